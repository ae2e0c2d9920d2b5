//! Language features beyond the counting rules: polymorphism, declarations, arity merging,
//! scoping, and that results equal hand-written expected values.

use semantics::Program;

/// Digest of `run (input size)` for `source`, and of the constant `expected` (an OCaml value).
fn same_result(source: &str, size: i64, expected: &str) {
    let program = Program::from_source("lang.ml", source).unwrap_or_else(|e| panic!("{e}"));
    let reference = Program::from_source(
        "expected.ml",
        &format!("let input n = n\nlet run _ = {expected}"),
    )
    .unwrap();
    assert_eq!(
        program.count(size).unwrap().digest,
        reference.count(0).unwrap().digest,
        "{source}"
    );
}

#[test]
fn let_polymorphism_and_the_value_restriction() {
    same_result(
        "let id x = x\nlet input n = n\nlet run n = (id n, id true, id [ id 'a' ])",
        3,
        "(3, true, ['a'])",
    );
    let e = Program::from_source(
        "p.ml",
        "let input n = n\nlet run n = let f = fun x -> x in (f 1, f \"s\")",
    )
    .unwrap();
    assert!(e.count(1).is_ok());
    // A function parameter is monomorphic.
    let err = Program::from_source("p.ml", "let g f = (f 1, f true)").unwrap_err();
    assert!(err.to_string().contains("type error"), "{err}");
}

#[test]
fn declarations_aliases_and_mutual_recursion() {
    let source = "
type point = int * int
type 'a pair = 'a * 'a
type tree = Leaf | Node of forest and forest = tree list
let rec size = function Leaf -> 1 | Node f -> 1 + forest_size f
and forest_size = function [] -> 0 | t :: ts -> size t + forest_size ts
let swap ((a, b) : point) : int pair = (b, a)
let input n = Node [ Leaf; Node [ Leaf; Leaf ]; Leaf ]
let run t = (size t, swap (1, 2))";
    same_result(source, 0, "(6, (2, 1))");
}

#[test]
fn a_trailing_function_adds_an_argument() {
    // `let f x = function …` has arity 2 (as ocamlopt merges it): a saturated call is one FunApp.
    let source =
        "let f x = function [] -> x | y :: _ -> y\nlet input n = n\nlet run n = f n [] + f n [ 2 ]";
    let counts = Program::from_source("a.ml", source)
        .unwrap()
        .count(5)
        .unwrap()
        .counts;
    assert_eq!(counts.get("FunApp"), Some(&2));
    assert_eq!(counts.get("FunDef"), None, "no partial application");
}

#[test]
fn shadowing_and_scoping() {
    let source = "
let x = 1
let f y = x + y
let x = 100
let input n = n
let run n = let n = n * 2 in (f n, x, (let x = 5 in x + n), match n with x -> x)";
    same_result(source, 3, "(7, 100, 11, 6)");
    // `let … in` extends as far as possible, over commas too.
    same_result(
        "let input n = n\nlet run n = (n, let x = 5 in x + n, n)",
        1,
        "(1, (6, 1))",
    );
}

#[test]
fn operators_as_values_pipes_and_sections() {
    let source = "
let rec fold f acc = function [] -> acc | x :: l -> fold f (f acc x) l
let input n = [ 1; 2; 3; n ]
let run l = (fold ( + ) 0 l, fold ( * ) 1 l, l |> fold max_of 0, ( = ) 1 1, List_free)";
    let source = source
        .replace(
            ", l |> fold max_of 0",
            ", l |> fold (fun a b -> if a > b then a else b) 0",
        )
        .replace(", List_free", "");
    same_result(&source, 4, "(10, 24, 4, true)");
}

#[test]
fn strings_chars_and_escapes() {
    same_result(
        "let input n = n\nlet run _ = (\"a\\tb\\\\\\\"\\065\\x41\", 'z', '\\n', \"multi\\\n   line\")",
        0,
        "(\"a\\tb\\\\\\\"AA\", 'z', '\\010', \"multiline\")",
    );
}

#[test]
fn exceptions_propagate_through_calls_and_restore_state() {
    let source = "
exception Stop of int
let rec find_first n i = if i * i > n then raise (Stop i) else 1 + find_first n (i + 1)
let input n = n
let run n =
  let a = try find_first n 0 with Stop i -> i * 1000 in
  let b = try (try find_first n 0 with Not_found -> 0) with Stop i -> i in
  (a, b, n)";
    same_result(source, 50, "(8000, 8, 50)");
}

#[test]
fn programs_can_be_shared_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Program>();
    let program = Program::from_source("t.ml", "let input n = n\nlet run n = n * n").unwrap();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                s.spawn({
                    let p = &program;
                    move || p.count(i).unwrap().counts["IntMult"]
                })
            })
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), 1);
        }
    });
}

#[test]
fn the_catalogue_is_complete_and_counts_use_its_names() {
    let names: Vec<&str> = semantics::catalogue().iter().map(|c| c.name).collect();
    let program = Program::from_source(
        "t.ml",
        "let input n = n\nlet run n = (n land 1, [ n ], Some n)",
    )
    .unwrap();
    for name in program.count(3).unwrap().counts.keys() {
        assert!(
            names.contains(&name.as_str()),
            "{name} is not in the catalogue"
        );
    }
    assert!(names.len() >= 50);
    assert!(semantics::catalogue()
        .iter()
        .all(|c| !c.group.is_empty() && !c.rule.is_empty()));
}
