//! `Array.…` functions counted through the installed compiler's own `array.ml`, whose accesses
//! are generic (the element type is a type variable there): ocamlopt tests the array's tag at
//! run time, boxes a double read from a float array, and stores with `caml_modify` into any
//! other array.

mod common;

use semantics::Program;

fn counts(source: &str, size: i64) -> std::collections::BTreeMap<String, u64> {
    Program::from_source("t.ml", source)
        .unwrap_or_else(|e| panic!("{e}"))
        .count(size)
        .unwrap_or_else(|e| panic!("{e}"))
        .counts
        .into_iter()
        .collect()
}

#[test]
fn array_functions_agree_with_native_code() {
    let source = "
let input n = Array.init n (fun i -> (i * 7919) land 1023)

let run a =
  let total = ref 0 in
  Array.iter (fun x -> total := !total + x) a;
  let squares = Array.map (fun x -> x * x) a in
  let halves = Array.map (fun x -> float_of_int x /. 2.) a in
  ( !total,
    Array.fold_left ( + ) 0 squares,
    Array.fold_left (fun acc x -> acc +. x) 0. halves,
    Array.fold_right (fun x acc -> x :: acc) a [],
    Array.exists (fun x -> x > 1000) a,
    Array.for_all (fun x -> x >= 0) a,
    Array.to_list a )
";
    common::assert_agrees_with_native("calls_array.ml", source, &[3, 40, 300]);
}

#[test]
fn generic_reads_test_the_tag_and_box_the_doubles_of_a_float_array() {
    let n = 50;
    // fold_left: one generic `unsafe_get` per element; ints are read as they are.
    let ints = counts(
        "let input n = Array.make n 3\nlet run a = Array.fold_left (fun acc x -> acc + x) 0 a",
        n,
    );
    assert_eq!(ints["ArrayGet"], n as u64);
    assert_eq!(ints.get("FloatBox"), None);
    assert_eq!(ints.get("CamlModify"), None);
    // The same walk over a float array boxes each double it reads.
    let floats = counts(
        "let input n = Array.make n 1.5\nlet run a = Array.fold_left (fun acc x -> if x > acc then x else acc) 0. a",
        n,
    );
    assert_eq!(floats["ArrayGet"], n as u64);
    assert!(floats["FloatBox"] >= n as u64, "{floats:?}");
}

#[test]
fn generic_stores_call_caml_modify_except_into_a_float_array() {
    let n = 40;
    // init: `create l (f 0)`, then `unsafe_set res i (f i)` for i = 1 … l − 1.
    let ints = counts(
        "let input n = n\nlet run n = Array.init n (fun i -> i * 2)",
        n,
    );
    assert_eq!(ints["ArrayMake"], 1);
    assert_eq!(ints["ArrayMakeWord"], n as u64);
    assert_eq!(ints["ArraySet"], n as u64 - 1);
    // Into the array `create` has just allocated in the minor heap: the early exit.
    assert_eq!(ints["CamlModifyYoung"], n as u64 - 1);
    assert_eq!(ints.get("CamlModify"), None);
    let floats = counts(
        "let input n = n\nlet run n = Array.init n (fun i -> float_of_int i)",
        n,
    );
    assert_eq!(floats["ArraySet"], n as u64 - 1);
    assert_eq!(floats.get("CamlModify"), None);
    assert_eq!(floats.get("CamlModifyYoung"), None);
}

#[test]
fn array_of_list_takes_its_own_local_fill_not_the_module_s() {
    // array.ml's `of_list` defines a local `fill`; the module's top-level `fill` (the checks
    // around `caml_array_fill`) must not come along with it, nor be what the local name calls.
    let source = "let input n = List.init n (fun i -> i * 3)\n\
                  let run l = let a = Array.of_list l in Array.fold_left ( + ) 0 a + List.length (Array.to_list a)";
    common::assert_agrees_with_native("of_list.ml", source, &[0, 1, 50]);
    let c = common::count(source, 50);
    // one caml_make_vect of 50 words, then 49 stores by `fill` (the first element is the
    // one `create` was given)
    assert_eq!(c["ArrayMake"], 1);
    assert_eq!(c["ArrayMakeWord"], 50);
    assert_eq!(c["ArraySet"], 49);
}
