//! The Stdlib's unqualified values beyond the primitives: `min`, `max` and `char_of_int`, real
//! calls whose definitions are read from the installed `stdlib.ml`; `abs`, `lnot`, `sqrt` and
//! `abs_float`, which ocamlopt compiles inline; the float constants; and `assert`, which the
//! Stdlib's `Array.sort` uses.

mod common;

const MIN_MAX_ABS: &str = "
let rec go i n acc =
  if i = n then acc
  else go (i + 1) n (max acc (abs (i * 37 mod 101 - 50)) + min i 3)
let input n = n
let run n = go 0 n 0
";

#[test]
fn min_max_and_abs_agree_with_native_code() {
    common::assert_agrees_with_native("min_max_abs.ml", MIN_MAX_ABS, &[0, 1, 10, 1000]);
}

#[test]
fn min_and_max_are_calls_with_a_polymorphic_compare_and_abs_is_inline() {
    let n = 10;
    let c = common::count(MIN_MAX_ABS, n);
    // Per step: `max` and `min` are called (their results feed `+`, so not tail calls) and
    // each compares polymorphically, as `stdlib.ml` defines them; `go` loops by a self tail
    // call, and `run` enters it by a tail call.
    assert_eq!(c["FunApp"], 2 * n as u64);
    assert_eq!(c["PolyCompare"], 2 * n as u64);
    assert_eq!(c["SelfTailApp"], n as u64);
    assert_eq!(c["TailApp"], 1);
    // `abs` is its inlined test, and a negation for the negative values: i * 37 mod 101 - 50
    // for i = 0 … 9 is -50, -13, 24, -40, -3, 34, -30, 7, 44, -20: six negative.
    assert_eq!(c["IntCondGE"], n as u64);
    assert_eq!(c["IntUMinus"], 6);
}

#[test]
fn a_program_s_own_min_shadows_the_stdlib_one() {
    let own = "let min (a : int) b = if a < b then a else b\nlet input n = n\nlet run n = min n 3";
    let c = common::count(own, 5);
    // the program's `min` is at type int: an immediate compare, no runtime call
    assert_eq!(c.get("PolyCompare"), None, "{c:?}");
    assert_eq!(c["IntCondLT"], 1);
    let stdlib = "let input n = n\nlet run n = min n 3";
    let c = common::count(stdlib, 5);
    assert_eq!(c["PolyCompare"], 1);
}

const ASSERTS: &str = "
let input n = n
let rec go i n acc =
  if i = n then acc
  else begin
    assert (acc >= 0);
    go (i + 1) n (acc + (if i < n then i else assert false))
  end
let run n = go 0 n 0
";

#[test]
fn assert_is_its_test_and_agrees_with_native_code() {
    common::assert_agrees_with_native("asserts.ml", ASSERTS, &[0, 1, 50]);
    let n = 20;
    let c = common::count(ASSERTS, n);
    // per step: `assert (acc >= 0)` is one test; `assert false` is never reached
    assert_eq!(c["IntCondGE"], n as u64);
    assert_eq!(c["IntCondLT"], n as u64);
    assert_eq!(c.get("Raise"), None, "{c:?}");
}

#[test]
fn a_failed_assertion_raises_assert_failure() {
    let source = "let input n = n\nlet run n = assert (n < 3); n";
    let program = semantics::Program::from_source("t.ml", source).unwrap();
    assert!(program.count(2).is_ok());
    let err = program
        .count(5)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("Assert_failure"), "{err}");
}

#[test]
fn array_sort_with_its_local_exception_and_assertions_agrees_with_native_code() {
    // array.ml's heap sort raises and catches `Bottom` and asserts inside `trickleup`.
    let source = "let input n = Array.init n (fun i -> (i * 7919) mod 1000)\n\
                  let run a = let b = Array.map (fun x -> x) a in Array.sort compare b; b.(0) + b.(Array.length b / 2)";
    common::assert_agrees_with_native("array_sort.ml", source, &[1, 7, 300]);
}

const FLOAT_FUNCTIONS: &str = "
let input n = n
let rec go i n best acc =
  if i = n then (best, acc, lnot n)
  else
    let x = float_of_int (i - 5) in
    let best = if x > best then x else best in
    go (i + 1) n best (acc +. sqrt (abs_float x))
let run n = go 0 n neg_infinity (if infinity > max_float && epsilon_float > 0.0 then 0.0 else nan)
";

#[test]
fn sqrt_abs_float_lnot_and_the_float_constants_agree_with_native_code() {
    common::assert_agrees_with_native("float_functions.ml", FLOAT_FUNCTIONS, &[0, 1, 12]);
}

#[test]
fn sqrt_and_abs_float_are_inline_operations() {
    let n = 12;
    let c = common::count(FLOAT_FUNCTIONS, n);
    // per step: one `sqrt` (an inline sqrtsd), one `abs_float` (the sign mask, counted as
    // `-.` is), one `float_of_int`; `lnot` once, at the end, as its inlined `lxor`
    assert_eq!(c["FloatSqrt"], n as u64);
    assert_eq!(c["FloatUMinus"], n as u64);
    assert_eq!(c["FloatOfInt"], n as u64);
    assert_eq!(c["IntLxor"], 1);
    // the constants are floats like literals: `x > best` per step, and the two tests of the
    // constants once, all float compares
    assert_eq!(c["FloatCondGT"], n as u64 + 2);
    assert_eq!(c.get("PolyCompare"), None, "{c:?}");
}

#[test]
fn char_of_int_is_the_stdlib_s_checked_call_and_int_of_char_is_free() {
    let source = "let input n = n\n\
                  let run n = int_of_char (char_of_int (n mod 256)) + int_of_char 'A'";
    common::assert_agrees_with_native("chars.ml", source, &[0, 65, 300]);
    let c = common::count(source, 70);
    // one call of `char_of_int` (not in tail position), its two range tests
    assert_eq!(c["FunApp"], 1);
    assert_eq!(c["IntCondLT"], 1);
    assert_eq!(c["IntCondGT"], 1);
    let err = semantics::Program::from_source("t.ml", "let input n = n\nlet run n = char_of_int n")
        .unwrap()
        .count(256)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("char_of_int"), "{err}");
}
