//! Functions of the installed OCaml Stdlib's `list.ml` (read at test time from the compiler's
//! library directory, never copied into this repository) parse, type and run with the right
//! results and the right counts.

mod common;

use semantics::Program;
use std::path::Path;

const LIST_ML: &str = "/usr/lib/ocaml/list.ml";

/// The top-level definition `let [rec] name …` of list.ml: from its first line to the next
/// line that starts in column 0 (the next phrase, a comment, or `;;`).
fn phrase(source: &str, name: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let starts = |l: &str| {
        l.starts_with(&format!("let {name} ")) || l.starts_with(&format!("let rec {name} "))
    };
    let first = lines
        .iter()
        .position(|l| starts(l))
        .unwrap_or_else(|| panic!("{name} not found in {LIST_ML}"));
    let mut text = String::new();
    for (i, line) in lines[first..].iter().enumerate() {
        let continues = line.is_empty() || line.starts_with(' ') || line.starts_with('\t');
        if i > 0 && !continues {
            break;
        }
        text.push_str(line);
        text.push('\n');
    }
    text
}

fn list_ml() -> String {
    assert!(
        Path::new(LIST_ML).exists(),
        "{LIST_ML} is missing: install the `ocaml-nox` package"
    );
    std::fs::read_to_string(LIST_ML).expect("list.ml is readable")
}

const FUNCTIONS: &[&str] = &[
    "length_aux",
    "length",
    "rev_append",
    "rev",
    "nth",
    "map",
    "iter",
    "fold_left",
    "fold_right",
    "for_all",
    "exists",
    "mem",
    "assoc",
    "find_all",
    "filter",
    "partition",
    "split",
    "combine",
    "merge",
    "stable_sort",
    "flatten",
];

const DRIVER: &str = "
let input n = let rec range i = if i >= n then [] else ((i * 37) mod 101) :: range (i + 1) in range 0

let run l =
  let evens, odds = partition (fun x -> x mod 2 = 0) l in
  ( rev_append [ 1; 2 ] [ 3 ],
    map (fun x -> x * 2) l,
    fold_left ( + ) 0 l,
    (evens, odds),
    (length l, mem 47 l, mem 48 l, for_all (fun x -> x >= 0) l, exists (fun x -> x > 70) l),
    stable_sort compare l,
    split (combine l (rev l)),
    (fold_right (fun x acc -> x :: acc) l [], filter (fun x -> x < 40) l, flatten [ l; [ 7 ] ]),
    (try assoc 10 (combine l l) with Not_found -> -1),
    (try nth l 2 with Failure _ -> -1 | Invalid_argument _ -> -2) )
";

/// The same result for the input [0; 37; 74; 10; 47], written out by hand.
const EXPECTED_FOR_5: &str = "
let input n = n
let run _ =
  ( [ 2; 1; 3 ],
    [ 0; 74; 148; 20; 94 ],
    168,
    ([ 0; 74; 10 ], [ 37; 47 ]),
    (5, true, false, true, true),
    [ 0; 10; 37; 47; 74 ],
    ([ 0; 37; 74; 10; 47 ], [ 47; 10; 74; 37; 0 ]),
    ([ 0; 37; 74; 10; 47 ], [ 0; 37; 10 ], [ 0; 37; 74; 10; 47; 7 ]),
    10,
    74 )
";

fn program_text() -> String {
    let source = list_ml();
    let mut text: String = FUNCTIONS
        .iter()
        .map(|f| phrase(&source, f))
        .collect::<Vec<_>>()
        .join("\n");
    text.push_str(DRIVER);
    text
}

#[test]
fn extracted_functions_are_the_stdlib_ones() {
    let source = list_ml();
    assert!(phrase(&source, "stable_sort").contains("and rev_sort n l"));
    assert!(phrase(&source, "partition").contains("part [] [] l"));
    assert!(phrase(&source, "rev").starts_with("let rev l = rev_append l []"));
}

#[test]
fn list_functions_compute_the_right_results() {
    let program =
        Program::from_source("list.ml", &program_text()).unwrap_or_else(|e| panic!("{e}"));
    let expected = Program::from_source("expected.ml", EXPECTED_FOR_5).unwrap();
    assert_eq!(
        program.count(5).unwrap().digest,
        expected.count(0).unwrap().digest
    );
}

#[test]
fn list_functions_agree_with_native_code() {
    common::assert_agrees_with_native("list_program.ml", &program_text(), &[0, 1, 5, 300]);
}

#[test]
fn list_functions_count_as_expected() {
    let source = list_ml();
    let text = format!(
        "{}\n{}\n{}\nlet input n = let rec range i = if i >= n then [] else i :: range (i + 1) in range 0\nlet run l = (mem 7 l, rev l)",
        phrase(&source, "mem"),
        phrase(&source, "rev_append"),
        phrase(&source, "rev")
    );
    let program = Program::from_source("list.ml", &text).unwrap_or_else(|e| panic!("{e}"));
    let n = 10u64;
    let counts = program.count(n as i64).unwrap().counts;
    // mem 7 visits 0..7: `compare a x` is polymorphic (caml_compare), `= 0` an int test;
    // `compare a x = 0 || mem x l` is returned: a jump, no flag built (no BoolOr).
    assert_eq!(counts["PolyCompare"], 8);
    assert_eq!(counts["IntCondEq"], 8);
    assert!(!counts.contains_key("BoolOr"));
    // rev: one call of rev_append from rev, n tail calls. Each of mem's 8 calls and
    // rev_append's n + 1 is one test against `[]`: the `::` arm, last of an exhaustive
    // match, is where that test falls through.
    assert_eq!(counts["Cons"], n);
    assert_eq!(counts["PatternMatch"], 8 + n + 1);
    assert_eq!(counts["FunApp"], 2); // mem and rev, called inside a tuple
                                     // mem's 7 recursive calls and rev_append's n are loops; rev's call of rev_append is a
                                     // tail call of another function.
    assert_eq!(counts["SelfTailApp"], 7 + n);
    assert_eq!(counts["TailApp"], 1);
}

/// A program written as people write it, calling `List.…` directly.
const CALLS_LIST: &str = "
let map x = x + 1 (* the program's own `map`: List.map is not this *)

let input n = let rec range i = if i >= n then [] else ((i * 37) mod 101) :: range (i + 1) in range 0

let run l =
  let doubled = List.map (fun x -> x * 2) l in
  let evens = List.filter (fun x -> x mod 2 = 0) doubled in
  ( List.fold_left ( + ) 0 (List.map map evens),
    List.length l,
    List.rev l,
    List.mem 47 l,
    List.sort compare l,
    List.assoc 10 (List.combine l l),
    List.exists (fun x -> x > 70) l )
";

#[test]
fn list_calls_read_the_installed_stdlib_and_agree_with_native_code() {
    common::assert_agrees_with_native("calls_list.ml", CALLS_LIST, &[5, 40, 300]);
}

#[test]
fn a_list_call_counts_what_its_stdlib_definition_counts() {
    // `List.rev l` against the same definitions copied from list.ml into the program.
    let source = list_ml();
    let input =
        "let input n = let rec range i = if i >= n then [] else i :: range (i + 1) in range 0";
    let copied = format!(
        "{}\n{}\n{}\n{input}\nlet run l = (rev l, mem 3 l)",
        phrase(&source, "rev_append"),
        phrase(&source, "rev"),
        phrase(&source, "mem")
    );
    let called = format!("{input}\nlet run l = (List.rev l, List.mem 3 l)");
    for n in [0i64, 7, 100] {
        let (a, b) = (counted(&copied, n), counted(&called, n));
        // One difference: the Stdlib, built with the default inlining threshold, has `rev`
        // (a call of `rev_append`, size 5) inlined where it is called; the program's own copy,
        // at `-inline 0`, stays a call, which jumps on to `rev_append` (`ocamlopt -S`:
        // `List.rev l` calls `rev_append` directly).
        let mut inlined = a.counts.clone();
        inlined.remove("TailApp");
        assert_eq!(inlined, b.counts, "n = {n}");
        assert_eq!(a.digest, b.digest, "n = {n}");
    }
    let counts = Program::from_source("called.ml", &called)
        .unwrap()
        .count(10)
        .unwrap()
        .counts;
    // rev: n conses (the input is built outside the run); mem 3 compares 0, 1, 2, 3.
    assert_eq!(counts["Cons"], 10);
    assert_eq!(counts["PolyCompare"], 4);
}

/// What `run (input n)` of `source` counts.
fn counted(source: &str, n: i64) -> semantics::CountResult {
    Program::from_source("t.ml", source)
        .unwrap_or_else(|e| panic!("{e}"))
        .count(n)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn list_functions_that_are_missing_or_unsupported_are_named() {
    let err = common::refusal("let input n = [n]\nlet run l = List.no_such_function l");
    assert!(
        err.contains("bad.ml:2") && err.contains("List.no_such_function"),
        "{err}"
    );
    // A module path the subset does not have, inside the Stdlib's own source: the error
    // points into it.
    let err = common::refusal("let input n = n\nlet run n = List.to_seq [n]");
    assert!(err.contains("list.ml:") && err.contains("Seq"), "{err}");
}

#[test]
fn list_init_reads_the_backend_type_as_native_code_does() {
    // `List.init` builds with `init_aux` (non-tail, one call per element) up to
    // `rev_init_threshold` = 10 000 elements, which `Sys.backend_type` = `Native` gives, and
    // with `init_tailrec_aux` and `rev` beyond: above it the list is consed twice.
    let source = "let input n = n\nlet run n = List.init n (fun i -> 2 * i)";
    common::assert_agrees_with_native("list_init.ml", source, &[0, 3, 10_000, 10_001]);
    let counts = |n: i64| common::count(source, n);
    assert_eq!(counts(10_000)["Cons"], 10_000);
    assert_eq!(counts(10_001)["Cons"], 2 * 10_001);
    // init's test `len > rev_init_threshold` against the constant, then one test per step.
    assert_eq!(counts(100)["IntCondGT"], 1);
}

#[test]
fn list_init_spliced_in_as_written_counts_as_the_call() {
    // `rev_init_threshold` matches on `Sys.backend_type` with `Sys.Native`, … in the program
    // itself: the same constant as in the Stdlib's own code.
    let source = list_ml();
    let input = "let input n = n";
    let spliced = format!(
        "{}\n{}\n{}\n{}\n{}\n{}\n{}\n{input}\nlet run n = length_aux 0 (init n (fun i -> i))",
        phrase(&source, "rev_append"),
        phrase(&source, "rev"),
        phrase(&source, "init_tailrec_aux"),
        phrase(&source, "init_aux"),
        phrase(&source, "rev_init_threshold"),
        phrase(&source, "init"),
        phrase(&source, "length_aux"),
    );
    let called = format!("{input}\nlet run n = List.length (List.init n (fun i -> i))");
    for n in [0i64, 50, 10_001] {
        let (a, b) = (counted(&spliced, n), counted(&called, n));
        assert_eq!(a.digest, b.digest, "n = {n}");
        assert_eq!(a.counts.get("Cons"), b.counts.get("Cons"), "n = {n}");
    }
    common::assert_agrees_with_native("spliced_init.ml", &spliced, &[3, 10_001]);
}
