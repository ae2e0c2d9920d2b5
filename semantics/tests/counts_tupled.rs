//! Tupled functions: a function whose one parameter is a tuple pattern takes the tuple's
//! components when called with the tuple written out, as ocamlopt compiles it.

mod common;

use common::{assert_agrees_with_native, count, expect};

const SUM_TO: &str = "
let rec sum_to (i, acc) = if i = 0 then acc else sum_to (i - 1, acc + i)
let input n = n
let run n = sum_to (n, 0)";

#[test]
fn a_tuple_written_out_is_never_built() {
    // Per iteration: the test, the two operations and the jump back; no tuple, no field read.
    // The loop polls: nothing allocates in it any more.
    let n = 6;
    let want = expect(&[
        ("Base", 1),
        ("TailApp", 1), // run's call
        ("IntCondEq", n + 1),
        ("IntSub", n),
        ("IntAdd", n),
        ("SelfTailApp", n),
        ("LoopPoll", n + 1),
    ]);
    assert_eq!(count(SUM_TO, n as i64), want);
    // Nothing allocated (the native binary allocates nothing either: `sum_to` polls).
    let program = semantics::Program::from_source("sum_to.ml", SUM_TO).unwrap();
    assert_eq!(program.count(n as i64).unwrap().allocation.words, 0);
}

#[test]
fn a_tuple_value_goes_through_the_tuplifying_entry() {
    // `f p` with `p` a tuple value, and `List.map f` calling `f` through its closure: the
    // entry (`caml_tuplify2`) reads both fields and jumps to the code — TupleMatch 2 and
    // TailApp 1 a call, no caml_apply2 (one argument is passed).
    let source = "
let f (a, b) = a * 10 + b
let input n = n
let run n = let p = (n, 1) in f p + List.fold_left (+) 0 (List.map f [(1, 2); (n, 4)])";
    let counts = count(source, 3);
    // p, and the literal's one dynamic pair (n, 4) with its cell.
    assert_eq!(counts["TupleHead"], 2);
    assert_eq!(counts["TupleMatch"], 2 * 3);
    // Only `fold_left`'s two-argument calls of `(+)` go through caml_apply2.
    assert_eq!(counts.get("ApplyN"), Some(&2), "{counts:?}");
}

#[test]
fn mutually_recursive_tupled_functions_pass_components() {
    let source = "
let rec even (n, k) = if n = 0 then k else odd (n - 1, k + 1)
and odd (n, k) = if n = 0 then -k else even (n - 1, k)
let input n = n
let run n = even (n, 0)";
    let counts = count(source, 5);
    assert!(!counts.contains_key("TupleHead"), "{counts:?}");
    assert!(!counts.contains_key("TupleMatch"), "{counts:?}");
}

#[test]
fn tupled_functions_agree_with_native_code() {
    assert_agrees_with_native("sum_to.ml", SUM_TO, &[0, 7, 100]);
    let mixed = "
let rec gcd (a, b) = if b = 0 then a else gcd (b, a mod b)
let norm ((x, y) : float * float) = sqrt (x *. x +. y *. y)
let input n = List.init n (fun i -> (i + 12, 3 * i + 18))
let run l =
  List.fold_left (fun acc p -> acc + gcd p) 0 l
  + int_of_float (norm (3.0, 4.0))
  + List.length (List.filter (fun (a, b) -> gcd (a, b) > 1) l)";
    assert_agrees_with_native("mixed.ml", mixed, &[0, 5, 40]);
}
