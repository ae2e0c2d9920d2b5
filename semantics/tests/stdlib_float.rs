//! The float library's C calls (`floor`, `exp`, `sin`, `**`, `mod_float`, …): one construct
//! per call by the family of C code it runs, the result as the C library computes it, a frame
//! for the caller, nothing boxed where the float stays inside its expression, and `**` parsed
//! with OCaml's precedence.

mod common;

use common::{count, count_of, expect};
use semantics::Program;

const INPUT: &str = "let input n = float_of_int n /. 7.0\n";

#[test]
fn each_call_counts_its_family_once() {
    // By hand: `run x` applies one function to its parameter (a boxed float, unboxed by a
    // load: no construct) and returns the result boxed (FloatBox); a binary one takes a
    // literal as its second operand.
    let families = [
        ("floor x", "FloatRoundCall"),
        ("ceil x", "FloatRoundCall"),
        ("Float.trunc x", "FloatRoundCall"),
        ("Float.round x", "FloatRoundCall"),
        ("copysign x (-1.0)", "FloatRoundCall"),
        ("exp x", "FloatExpLogCall"),
        ("log x", "FloatExpLogCall"),
        ("Float.log2 x", "FloatExpLogCall"),
        ("hypot x 3.0", "FloatExpLogCall"),
        ("x ** 1.5", "FloatPowCall"),
        ("Float.pow x 1.5", "FloatPowCall"),
        // x below the divisor: `fmod` returns before its steps (FloatFmodBit, below).
        ("mod_float x 4.0", "FloatFmodCall"),
        ("Float.rem x 4.0", "FloatFmodCall"),
        ("sin x", "FloatTrigCall"),
        ("atan2 x 2.0", "FloatTrigCall"),
        ("Float.cosh x", "FloatExpLogCall"),
        ("Float.erf x", "FloatTrigCall"),
    ];
    for (call, family) in families {
        let source = format!("{INPUT}let run x = {call}");
        assert_eq!(
            count(&source, 20),
            expect(&[(family, 1), ("FloatBox", 1), ("Base", 1)]),
            "{call}"
        );
        // The caller keeps a frame: the C call needs the stack aligned, as any call.
        assert_eq!(count_of(&source, 20, "Frame"), 1, "{call}");
    }
}

#[test]
fn fmod_counts_a_step_per_bit_of_exponent_between_its_operands() {
    // By hand, x = n / 7: glibc's loop runs ilogb |x| - ilogb |y| times, ending early where
    // the remainder is exactly 0. 20 / 7 = 1.43 * 2^1 over 0.3 = 1.2 * 2^-2: 3 steps. 7000 / 7
    // = 1000 = 1.95 * 2^9 over 1.0: 7, as 1000 is a multiple of 1 (the remainder is 0 after
    // the seventh). 7003.5 / 7 = 1000.5 over 1.0: 9. Negative operands take as many.
    let steps = |expr: &str, n: i64| {
        let source = format!("{INPUT}let run x = {expr}");
        count_of(&source, n, "FloatFmodBit")
    };
    assert_eq!(steps("mod_float x 0.3", 20), 3);
    assert_eq!(steps("Float.rem (-. x) 0.3", 20), 3);
    assert_eq!(steps("mod_float x 1.0", 7000), 7);
    assert_eq!(steps("mod_float (x +. 0.5) (-1.0)", 7000), 9);
    assert_eq!(steps("mod_float x 4.0", 20), 0);
    // Each call counts its own: a loop of ten calls at quotients 8 to 17 (3 steps at 8 to
    // 15, 4 at 16 and 17) takes 3 * 8 + 4 * 2 = 32.
    let source = format!(
        "{INPUT}let run x = ignore x; let s = ref 0.0 in \
         for i = 8 to 17 do s := !s +. mod_float (float_of_int i +. 0.5) 1.0 done; !s"
    );
    assert_eq!(count_of(&source, 7, "FloatFmodBit"), 32);
    assert_eq!(count_of(&source, 7, "FloatFmodCall"), 10);
}

#[test]
fn fmods_branches_are_predicted_as_the_programs_are() {
    // Quotients spread to 100 000 (up to 16 steps a call): over a few calls the predictor
    // model learns every step's sign, as the processor does run after run; over 20 000 it
    // misses about half of them (some 7 steps a call on average, so more than one a call).
    let source = "let input n = n
let run n = let s = ref 0.0 in
  for i = 1 to n do s := !s +. mod_float (float_of_int (i * 7919 mod 100003) +. 0.5) 1.0 done; !s";
    let misses = |n: i64| count_of(source, n, "BranchMiss");
    assert!(misses(20) <= 5, "{}", misses(20));
    assert!(misses(20_000) >= 20_000, "{}", misses(20_000));
    assert!(count_of(source, 20_000, "FloatFmodBit") >= 200_000);
}

/// The digest of `run`'s result when `run x` is `expr`, `x` being `n /. 7`.
fn digest(expr: &str, n: i64) -> String {
    let source = format!("{INPUT}let run x = ignore x; {expr}");
    Program::from_source("t.ml", &source)
        .unwrap()
        .count(n)
        .unwrap()
        .digest
}

#[test]
fn results_are_the_c_librarys() {
    // 20 / 7 = 2.857…
    let cases = [
        ("floor x", 20, "2.0"),
        ("ceil x", 20, "3.0"),
        ("Float.round (-. x)", 20, "-3.0"),
        ("Float.trunc (-. x)", 20, "-2.0"),
        ("mod_float x 1.0", 14, "0.0"),
        ("mod_float (-. x) 1.5", 14, "-0.5"),
        ("copysign 2.0 (-. x)", 7, "-2.0"),
        ("hypot 3.0 4.0", 7, "5.0"),
        ("exp (log x)", 7, "1.0"),
    ];
    for (expr, n, expected) in cases {
        assert_eq!(digest(expr, n), digest(expected, n), "{expr} at {n}");
    }
    assert_ne!(digest("floor x", 20), digest("3.0", 20));
}

#[test]
fn power_binds_tighter_than_product_looser_than_minus_and_to_the_right() {
    // `2 ** 3 ** 2` is 2 ** 9, not 8 ** 2.
    assert_eq!(digest("2.0 ** 3.0 ** 2.0", 0), digest("512.0", 0));
    // `-. 2 ** 2` is (-2) ** 2; `3 *. 2 ** 2` is 3 * 4.
    assert_eq!(digest("-. 2.0 ** 2.0", 0), digest("4.0", 0));
    assert_eq!(digest("3.0 *. 2.0 ** 2.0", 0), digest("12.0", 0));
    // As a value, `( ** )` is the C call wrapped in a closed function.
    let source = "let input n = n\nlet run n = List.fold_left ( ** ) 2.0 [float_of_int n; 0.5]";
    assert_eq!(count_of(source, 4, "FloatPowCall"), 2);
}

#[test]
fn float_min_and_max_call_sign_bit() {
    // float.ml's `max x y`: `if y > x || (not (sign_bit y) && sign_bit x) then (if is_nan x
    // then x else y) else (if is_nan y then y else x)`, inlined by ocamlopt (`-S`: two calls
    // of `caml_signbit` where it is used). With y > x the `||` stops at once: no sign_bit; with
    // y <= x, `sign_bit y`, then `sign_bit x` where y is not negative.
    let source = "let input n = float_of_int n\nlet run x = Float.max x 1.0";
    assert_eq!(count_of(source, 0, "FloatRoundCall"), 0);
    assert_eq!(count_of(source, 5, "FloatRoundCall"), 2);
    let source = "let input n = float_of_int n\nlet run x = Float.max x (-1.0)";
    assert_eq!(count_of(source, 5, "FloatRoundCall"), 1);
    let assembly = common::assembly("fmax", source);
    assert_eq!(
        assembly.matches("call\tcaml_signbit").count(),
        2,
        "{assembly}"
    );
}

/// Every call of the catalogue at arguments of both signs, small and large, in a loop: the
/// interpreter's results must be the native binary's to the bit.
const EVERY_CALL: &str = "
let input n = n
let run n =
  let s = ref 0.0 in
  for i = -n to n do
    let x = float_of_int i *. 0.37 +. 0.011 in
    let y = float_of_int (i * i) /. 3.0 +. 1.0 in
    s := !s +. floor x +. ceil x +. Float.trunc x +. Float.round x +. copysign y x
      +. Float.next_after x y +. exp (x /. 9.0) +. expm1 (x /. 50.0) +. Float.exp2 (x /. 9.0)
      +. log y +. log10 y +. log1p y +. Float.log2 y +. Float.cbrt x +. Float.erf x
      +. Float.erfc x +. hypot x y +. y ** 0.37 +. mod_float x 0.7 +. Float.rem y 1.3
      +. sin x +. cos x +. tan x +. asin (x /. (y +. 300.0)) +. acos (x /. (y +. 300.0))
      +. atan x +. atan2 x y +. sinh (x /. 9.0) +. cosh (x /. 9.0) +. tanh x +. asinh x
      +. acosh y +. atanh (x /. (y +. 300.0))
      +. (if Float.sign_bit x then 1.0 else 0.0) +. Float.min x 0.5 +. Float.max x (-0.5)
  done;
  !s
";

#[test]
fn every_call_agrees_with_native_code_on_results_and_words() {
    common::assert_agrees_with_native("every_call.ml", EVERY_CALL, &[0, 3, 40, 400]);
    for size in [3, 400] {
        assert_eq!(
            Program::from_source("t.ml", EVERY_CALL)
                .unwrap()
                .count(size as i64)
                .unwrap()
                .allocation
                .words,
            common::native_words(EVERY_CALL, size).0,
            "words at size {size}"
        );
    }
}

#[test]
fn functions_that_return_pairs_are_refused_by_name() {
    let message = common::refusal("let input n = n\nlet run n = fst (frexp (float_of_int n))");
    assert!(message.contains("frexp"), "{message}");
    assert!(message.contains("bad.ml:2"), "{message}");
}

#[test]
fn a_loop_that_chains_calls_waits_on_their_latency() {
    // `x := cos x` waits on each call (56 cycles on the chain beyond what the call's price
    // gives, about 18 of them issue: some 38 ChainCycles an iteration); summing `cos` of
    // independent arguments waits only on the add (2 cycles, far below the issue).
    let chained = "let input n = n
let run n = let x = ref 0.5 in for _ = 1 to n do x := cos !x done; !x";
    let independent = "let input n = n
let run n = let s = ref 0.0 in for i = 1 to n do s := !s +. cos (float_of_int i) done; !s";
    let per_iteration = |source: &str| count_of(source, 2000, "ChainCycle") / 2000;
    assert!(
        (32..=44).contains(&per_iteration(chained)),
        "{}",
        per_iteration(chained)
    );
    assert_eq!(per_iteration(independent), 0);
    // `**` (79 cycles) chains longer than `floor` (9), less the 20 cycles more it takes to
    // issue (130 instructions against 10): 50 ChainCycles more an iteration.
    let pow = "let input n = n
let run n = let x = ref 0.5 in for _ = 1 to n do x := (!x +. 1.0) ** 0.75 done; !x";
    let floor = "let input n = n
let run n = let x = ref 0.5 in for _ = 1 to n do x := floor (!x +. 1.0) done; !x";
    let (pow, floor) = (per_iteration(pow), per_iteration(floor));
    assert!((45..=55).contains(&(pow - floor)), "{pow} {floor}");
}
