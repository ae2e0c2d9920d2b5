//! Hand-computed counts for the quotients ocamlopt's CSE shares: a division or remainder by a
//! constant after another of the same dividend and divisor counts IntDivReused or
//! IntModReused, and what ends CSE's numbering (a call, a join, a loop's iteration, an
//! assignment of the dividend) makes the next one pay in full. Each case is checked against
//! the quotients `ocamlopt -S` computes: one multiply-high each for a divisor other than 2^k,
//! one adjusted dividend for 2^k.

mod common;

use common::{count, pairs};

/// The quotients by a constant other than 2^k that `function` computes: one-operand `imulq`
/// (the multiply-high by the reciprocal).
fn multiply_highs_in(source: &str, function: &str) -> usize {
    common::assembly_lines_in("quotients", source, function, |l| {
        l.starts_with("imulq") && !l.contains(',')
    })
}

/// The dividends adjusted for a division or remainder by 2^k that `function` computes: each
/// takes the sign with one `shr` by 64 − k.
fn pow2_adjustments_in(source: &str, function: &str) -> usize {
    common::assembly_lines_in("quotients", source, function, |l| l.starts_with("shrq\t$6"))
}

/// Counts of the division constructs alone.
fn divisions(source: &str, size: i64) -> Vec<(String, u64)> {
    count(source, size)
        .into_iter()
        .filter(|(k, _)| k.contains("Div") || k.contains("Mod"))
        .collect()
}

#[test]
fn a_remainder_then_a_division_of_the_same_variable_share_one_quotient() {
    let source = "
let[@inline never] f x = (x / 10, x mod 10)
let input n = n
let run n = f n";
    // A tuple's fields are computed last first: the remainder, then the division.
    assert_eq!(
        divisions(source, 1234),
        pairs(&[("IntModConst", 1), ("IntDivReused", 1)])
    );
    assert_eq!(multiply_highs_in(source, "f"), 1);
}

#[test]
fn a_division_then_a_remainder_counts_the_remainder_reused() {
    let source = "
let[@inline never] f x = let q = x / 7 in let r = x mod 7 in q + r
let input n = n
let run n = f n";
    assert_eq!(
        divisions(source, 100),
        pairs(&[("IntDivConst", 1), ("IntModReused", 1)])
    );
    assert_eq!(multiply_highs_in(source, "f"), 1);
    // Powers of two share the adjusted dividend the same way.
    let pow2 = "
let[@inline never] f x = if x mod 2 = 0 then x / 2 else 3 * x + 1
let[@inline never] g x = x mod 4 + x / 4
let input n = n
let run n = f n + g n";
    // `g`'s sum computes its right operand first: the division, then the remainder.
    assert_eq!(
        divisions(pow2, 100),
        pairs(&[
            ("IntDivPow2", 1),
            ("IntDivReused", 1),
            ("IntModPow2", 1),
            ("IntModReused", 1)
        ])
    );
    assert_eq!(pow2_adjustments_in(pow2, "f"), 1);
    assert_eq!(pow2_adjustments_in(pow2, "g"), 1);
}

#[test]
fn a_digit_loop_on_references_reuses_its_quotient_every_iteration() {
    // digit_reverse's loop: two references Simplif turns into variables; four digits.
    let source = "
let[@inline never] rev x =
  let r = ref 0 in
  let m = ref x in
  while !m > 0 do
    r := !r * 10 + !m mod 10;
    m := !m / 10
  done;
  !r
let input n = n
let run n = rev n";
    assert_eq!(
        divisions(source, 1234),
        pairs(&[("IntModConst", 4), ("IntDivReused", 4)])
    );
    assert_eq!(multiply_highs_in(source, "rev"), 1);
}

#[test]
fn a_call_a_join_or_an_assignment_between_makes_the_second_pay_in_full() {
    // The division is computed before the call, the remainder after it.
    let call = "
let[@inline never] id x = x
let[@inline never] f x = (x mod 10) + id (x / 10)
let input n = n
let run n = f n";
    assert_eq!(
        divisions(call, 1234),
        pairs(&[("IntDivConst", 1), ("IntModConst", 1)])
    );
    assert_eq!(multiply_highs_in(call, "f"), 2);
    // The `if` joins before the division.
    let join = "
let[@inline never] f x = let a = if x mod 10 = 0 then 1 else 2 in a + x / 10
let input n = n
let run n = f n";
    assert_eq!(
        divisions(join, 1234),
        pairs(&[("IntDivConst", 1), ("IntModConst", 1)])
    );
    assert_eq!(multiply_highs_in(join, "f"), 2);
    // The dividend changes between the two.
    let assigned = "
let[@inline never] f x =
  let m = ref x in
  let a = !m mod 10 in
  m := !m + 1;
  a + !m / 10
let input n = n
let run n = f n";
    assert_eq!(
        divisions(assigned, 1234),
        pairs(&[("IntDivConst", 1), ("IntModConst", 1)])
    );
    assert_eq!(multiply_highs_in(assigned, "f"), 2);
    // Other divisors, and a dividend that is a constant, share nothing.
    let different = "
let[@inline never] f x = (x / 10, x mod 100, (x + 1) mod 10)
let input n = n
let run n = f n";
    assert_eq!(
        divisions(different, 1234),
        pairs(&[("IntDivConst", 1), ("IntModConst", 2)])
    );
    assert_eq!(multiply_highs_in(different, "f"), 3);
}

#[test]
fn an_allocation_between_keeps_a_variables_quotient() {
    // trie_int_lists' digit split: the cell is allocated between the remainder and the
    // division; a register is not memory.
    let source = "
let rec go n acc = if n < 10 then n :: acc else go (n / 10) (n mod 10 :: acc)
let input n = n
let run n = go n []";
    // 1234: three steps (1234, 123, 12), then 1 is consed.
    assert_eq!(
        divisions(source, 1234),
        pairs(&[("IntModConst", 3), ("IntDivReused", 3)])
    );
    assert_eq!(multiply_highs_in(source, "go"), 1);
}
