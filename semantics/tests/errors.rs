//! Every bad program ends in one error line naming the file, line and column — before running
//! for syntax, unsupported constructs and types; where it happened for run-time errors.

use semantics::{Program, SemanticsError};

fn load_error(source: &str) -> SemanticsError {
    Program::from_source("bad.ml", source).expect_err("the program must be rejected")
}

fn run_error(source: &str, size: i64) -> SemanticsError {
    let program = Program::from_source("bad.ml", source).unwrap_or_else(|e| panic!("loads: {e}"));
    program.count(size).expect_err("the run must fail")
}

fn assert_message(e: &SemanticsError, prefix: &str, contains: &str) {
    let shown = e.to_string();
    assert!(
        shown.starts_with(prefix),
        "{shown:?} should start with {prefix:?}"
    );
    assert!(
        shown.contains(contains),
        "{shown:?} should contain {contains:?}"
    );
    assert!(!shown.contains('\n'), "one line: {shown:?}");
}

#[test]
fn syntax_errors_name_the_position() {
    assert_message(
        &load_error("let input n = n\nlet run x ="),
        "bad.ml:2:12: syntax error",
        "end of file",
    );
    assert_message(
        &load_error("let input n = (n + 1\nlet run x = x"),
        "bad.ml:2:1: syntax error",
        "expected `)`",
    );
    assert_message(
        &load_error("let input n = n\nlet run x = match x with | -> 1"),
        "bad.ml:2:28: syntax error",
        "pattern",
    );
    assert_message(
        &load_error("let input n = n\nlet run x = match x with exception Exit -> 1"),
        "bad.ml:2:13: syntax error",
        "only `exception` cases",
    );
    assert_message(
        &load_error("let s = \"abc"),
        "bad.ml:1:9: syntax error",
        "unterminated string",
    );
    assert_message(
        &load_error("(* never closed"),
        "bad.ml:1:1: syntax error",
        "unterminated comment",
    );
    assert_message(
        &load_error("let x = 99999999999999999999"),
        "bad.ml:1:9: syntax error",
        "63-bit",
    );
}

#[test]
fn unsupported_constructs_are_named() {
    let cases = [
        ("module F (X : sig end) = struct end", "1:10", "functors"),
        (
            "module M = struct include List end",
            "1:19",
            "modules (`include`)",
        ),
        ("let f s = Random.State.int s 3", "1:11", "module `Random`"),
        ("let f s = s.[0] <- 'a'", "1:17", "`s.[i] <- c`"),
        ("let f s = Hashtbl.length s", "1:11", "module `Hashtbl`"),
        (
            "let g f = f ~x:1",
            "1:11",
            "labelled arguments to a function that is not",
        ),
        (
            "let f ~x y = x + y let g = f 1",
            "1:28",
            "a partial application leaving out the labelled parameter `~x`",
        ),
        ("let f x = lazy x", "1:11", "`lazy`"),
        (
            "let rec f ~x = f ~y:1",
            "1:16",
            "the function has no parameter labelled `y`",
        ),
        ("open Hashtbl", "1:6", "opening `Hashtbl`"),
        ("let f l = let open Random in l", "1:20", "opening `Random`"),
        (
            "let f x = try x with exception Exit -> 1",
            "1:22",
            "exception patterns other than a `match` case",
        ),
        (
            "let f x = match (x, x) with _ -> 1 | exception Exit -> 0",
            "1:18",
            "a tuple as the scrutinee",
        ),
    ];
    for (source, pos, construct) in cases {
        let e = load_error(source);
        assert!(
            matches!(e, SemanticsError::Unsupported { .. }),
            "{source}: {e}"
        );
        assert_message(&e, &format!("bad.ml:{pos}: unsupported: "), construct);
    }
}

#[test]
fn type_errors_name_the_position() {
    assert_message(
        &load_error("let input n = n + 1.0\nlet run x = x"),
        "bad.ml:1:19: type error",
        "has type float but an expression was expected of type int",
    );
    assert_message(
        &load_error("let input n = n\nlet run x = y"),
        "bad.ml:2:13: type error",
        "unbound value y",
    );
    assert_message(
        &load_error("let f r = r.zz"),
        "bad.ml:1:11: type error",
        "unbound record field zz",
    );
    assert_message(
        &load_error("type t = { a : int }\nlet f r = r.a <- 1"),
        "bad.ml:2:11: type error",
        "the record field a is not mutable",
    );
    assert_message(
        &load_error("let f x = [| x; x |]"),
        "bad.ml:1:11: type error",
        "unsupported: an array whose element type is a type variable",
    );
    assert_message(
        &load_error("let f x = Some"),
        "bad.ml:1:11: type error",
        "expects 1 argument",
    );
    assert_message(
        &load_error("type t = A of int * int\nlet f x = A x"),
        "bad.ml:2:11: type error",
        "expects 2 argument",
    );
    assert_message(
        &load_error("let f x = Nope x"),
        "bad.ml:1:11: type error",
        "unbound constructor Nope",
    );
    assert_message(
        &load_error("let f x = x x"),
        "bad.ml:1:13: type error",
        "cyclic",
    );
    assert_message(
        &load_error("let f x = 1 2"),
        "bad.ml:1:11: type error",
        "not a function",
    );
    assert_message(
        &load_error("let f = function (a, b) -> a | [] -> 0"),
        "bad.ml:1:32: type error",
        "this pattern matches values of type 'a list",
    );
    assert_message(
        &load_error("let f = function (x, _) | (_, y) -> 0"),
        "bad.ml:1:19: type error",
        "same variables",
    );
    assert_message(
        &load_error("let f x = if x then 1"),
        "bad.ml:1:21: type error",
        "type unit",
    );
}

#[test]
fn the_benchmark_shape_is_checked() {
    assert_message(
        &load_error("let input n = n"),
        "bad.ml:1:1: ",
        "no top-level `run`",
    );
    assert_message(
        &load_error("let run x = x"),
        "bad.ml:1:1: ",
        "no top-level `input`",
    );
    assert_message(
        &load_error("let input n = n\nlet run = 3"),
        "bad.ml:2:5: ",
        "must be a function",
    );
    assert_message(
        &load_error("let input n = n\nlet run (a, b) = a"),
        "bad.ml:2:5: ",
        "must accept the result of `input`, of type int",
    );
    assert_message(
        &load_error("let input s = s ^ \"\"\nlet run x = x"),
        "bad.ml:1:5: ",
        "must have type int -> 'a",
    );
    assert_message(
        &load_error("let input (x : float) = x\nlet run x = x"),
        "bad.ml:1:5: ",
        "must have type int -> 'a",
    );
    let script = Program::script_from_source("s.ml", "let x = 1").unwrap();
    assert_message(&script.count(1).unwrap_err(), "s.ml:1:1: ", "script");
}

#[test]
fn run_time_errors_name_where_they_happened() {
    let source = "let input n = n\nlet run n =\n  match n with\n  | 0 -> 1\n  | 1 -> 2";
    assert_message(
        &run_error(source, 5),
        "bad.ml:3:3: match failure",
        "in `run`, size 5",
    );
    let source = "let input n = n\nlet run n = 100 / (n - n)";
    assert_message(
        &run_error(source, 5),
        "bad.ml:2:17: division by zero",
        "in `run`",
    );
    let source = "let input n = n\nlet run n =\n  if n > 2 then failwith \"boom\" else n";
    assert_message(
        &run_error(source, 5),
        "bad.ml:3:17: uncaught exception Failure(\"boom\")",
        "in `run`",
    );
    let source = "exception E of int * string\nlet input n = if n > 3 then raise (E (n, \"big\")) else n\nlet run n = n";
    assert_message(
        &run_error(source, 5),
        "bad.ml:2:29: uncaught exception E(5, \"big\")",
        "in `input 5`",
    );
    let source = "let input n = n\nlet run n = compare (fun x -> x) (fun x -> x + n)";
    assert_message(
        &run_error(source, 1),
        "bad.ml:2:13: uncaught exception Invalid_argument(\"compare: functional value\")",
        "",
    );
    let source = "let input n = n\nlet run n = let (a, 1) = (n, n) in a";
    assert_message(&run_error(source, 5), "bad.ml:2:21: match failure", "");
}

#[test]
fn an_exception_raised_in_the_stdlib_s_code_names_the_stdlib_file() {
    // `String.index` raises `Not_found` in string.ml's own code, `List.nth` `Failure "nth"`
    // in list.ml's: the position is in that file, which the message names (it named the
    // program's file with string.ml's line before).
    let source = "let input n = String.make n 'a'\nlet run s = String.index s 'b'";
    let e = run_error(source, 5).to_string();
    assert!(
        e.contains("string.ml:")
            && e.contains("uncaught exception Not_found")
            && !e.contains("bad.ml"),
        "{e}"
    );
    let source = "let input n = List.init n (fun i -> i)\nlet run l = List.nth l 100";
    let e = run_error(source, 5).to_string();
    assert!(
        e.contains("list.ml:") && e.contains("Failure(\"nth\")") && !e.contains("bad.ml"),
        "{e}"
    );
    // Raised by the program's own code, named in the program's file as before.
    let source = "let input n = n\nlet rec f n = if n = 0 then raise Not_found else f (n - 1)\nlet run n = f n";
    assert_message(
        &run_error(source, 3),
        "bad.ml:2:29: uncaught exception Not_found",
        "",
    );
}

#[test]
fn runaway_recursion_is_an_error_not_a_crash() {
    let source = "let rec down n = 1 + down (n + 1)\nlet input n = n\nlet run n = down n";
    let e = run_error(source, 0);
    assert!(matches!(e, SemanticsError::Limit { .. }), "{e}");
    assert_message(&e, "bad.ml:1:", "recursion too deep");
    // The machine is still usable afterwards.
    let ok = Program::from_source("ok.ml", "let input n = n\nlet run n = n + 1").unwrap();
    assert_eq!(ok.count(1).unwrap().counts["IntAdd"], 1);
}

#[test]
fn pathological_nesting_is_refused_not_overflowed() {
    let deep = format!(
        "let input n = {}n{}\nlet run x = x",
        "(".repeat(20_000),
        ")".repeat(20_000)
    );
    assert_message(&load_error(&deep), "bad.ml:1:", "nesting deeper than");
    let long_chain = format!("let input n = n{}\nlet run x = x", " + 1".repeat(20_000));
    assert_message(&load_error(&long_chain), "bad.ml:1:", "nesting deeper than");
    let reasonable = format!(
        "let input n = {}n{}\nlet run x = x",
        "(".repeat(300),
        ")".repeat(300)
    );
    assert!(Program::from_source("ok.ml", &reasonable).is_ok());
}

#[test]
fn a_missing_file_is_an_io_error() {
    let e = Program::load(std::path::Path::new("/nonexistent/prog.ml")).unwrap_err();
    assert!(matches!(e, SemanticsError::Io { .. }));
    assert_message(&e, "/nonexistent/prog.ml: cannot read the program", "");
    assert_eq!(e.position(), None);
}
