//! Hand-computed counts for what ocamlopt compiles differently from its generic form:
//! arithmetic by an integer constant (IntMultConst, IntDivPow2, IntDivConst, IntModPow2,
//! IntModConst) and the walk of a structural comparison (PolyCompareStep, one per pair of
//! values runtime/compare.c examines). Every assertion compares the whole count map.

mod common;

use common::{count, expect};
use semantics::Program;
use std::collections::BTreeMap;

fn digest(source: &str, size: i64) -> String {
    let program = Program::from_source("test.ml", source).unwrap_or_else(|e| panic!("{e}"));
    program.count(size).unwrap_or_else(|e| panic!("{e}")).digest
}

#[test]
fn a_constant_divisor_or_factor_selects_the_constant_construct() {
    let source = "
let input n = n
let run n = (n / 2, n / (-4), n / 10, n / (-7), n mod 2, n mod (-8), n mod 10,
             3 * n, n * 8, n * (-5))";
    let want = expect(&[
        ("Base", 1),
        ("TupleHead", 1),
        ("TupleElem", 10),
        // `n / 2` and `n / 10` reuse the quotients of `n mod 2` and `n mod 10`, computed
        // before them (a tuple's fields are computed last first; counts_shared_quotients.rs).
        ("IntDivPow2", 1),
        ("IntDivConst", 1),
        ("IntDivReused", 2),
        ("IntModPow2", 2),
        ("IntModConst", 1),
        ("IntMultConst", 3),
    ]);
    assert_eq!(count(source, 37), want);
    // The values are OCaml's (truncating division, remainder of the dividend's sign), at
    // a negative dividend too.
    let by_hand = "
let input n = n
let run n = if n > 0 then (18, -9, 3, -5, 1, 5, 7, 111, 296, -185)
            else (-18, 9, -3, 5, -1, -5, -7, -111, -296, 185)";
    assert_eq!(digest(source, 37), digest(by_hand, 37));
    assert_eq!(digest(source, -37), digest(by_hand, -37));
}

#[test]
fn runtime_divisors_and_constant_dividends_stay_generic() {
    // `100 / n`: the literal is the dividend, the divisor is known only at run time.
    let source = "
let input n = n
let run n = n / (n + 1) + 100 / n + n mod (n - 1) + n * n";
    let want = expect(&[
        ("Base", 1),
        ("IntAdd", 4),
        ("IntSub", 1),
        ("IntDiv", 2),
        ("IntMod", 1),
        ("IntMult", 1),
    ]);
    assert_eq!(count(source, 7), want);
}

#[test]
fn let_bound_and_top_level_constants_are_constant_operands() {
    // ocamlopt propagates `let`-bound integer constants (closure.ml's approximations), so
    // `n mod k` with `k = 10` is compiled as `n mod 10`.
    let source = "
let k = 10
let input n = n
let run n = let d = 4 in n mod k + n / d + n * k";
    let counts = count(source, 7);
    assert_eq!(counts.get("IntModConst"), Some(&1));
    assert_eq!(counts.get("IntDivPow2"), Some(&1));
    assert_eq!(counts.get("IntMultConst"), Some(&1));
    assert_eq!(counts.get("IntAdd"), Some(&2));
    for generic in ["IntDiv", "IntMod", "IntMult"] {
        assert_eq!(counts.get(generic), None, "{generic}");
    }
}

#[test]
fn identities_compile_to_nothing_or_a_negation() {
    // `/ 1`, `* 1` are the operand; `* 0`, `mod 1`, `mod (-1)` the constant 0 (the operand
    // still evaluated); `/ (-1)` and `* (-1)` a negation.
    let source = "
let input n = n
let run n = (n / 1, n * 1, n * 0, 0 * n, n mod 1, n mod (-1), n / (-1), -1 * n)";
    let want = expect(&[
        ("Base", 1),
        ("TupleHead", 1),
        ("TupleElem", 8),
        ("IntUMinus", 2),
    ]);
    assert_eq!(count(source, 5), want);
    let by_hand = "let input n = n\nlet run n = (n, n, 0, 0, 0, 0, -n, -n)";
    assert_eq!(digest(source, 5), digest(by_hand, 5));
}

#[test]
fn a_literal_zero_divisor_is_a_checked_division_that_raises() {
    let source = "
let input n = n
let run n = (try n / 0 with Division_by_zero -> -1) + (try n mod 0 with Division_by_zero -> -2)";
    // Each `try`: TryWith, the IntDiv/IntMod that raised (a runtime exception: no Raise), the
    // handler's one arm tried.
    let want = expect(&[
        ("Base", 1),
        ("TryWith", 2),
        ("IntDiv", 1),
        ("IntMod", 1),
        ("PatternMatch", 2),
        ("IntAdd", 1),
    ]);
    assert_eq!(count(source, 5), want);
    assert_eq!(
        digest(source, 5),
        digest("let input n = n\nlet run n = -3", 5)
    );
}

/// `run`'s counts minus Base, for a program comparing what `input` built.
fn compare_counts(decls: &str, run: &str) -> BTreeMap<String, u64> {
    let source = format!("{decls}\nlet run x = {run}");
    let mut counts = count(&source, 3);
    counts.remove("Base");
    counts
}

const LISTS: &str = "
let input n = ([1; 2; n], [1; 2; n + 1], [1; 2; n])";

#[test]
fn list_steps_stop_at_the_first_difference() {
    // compare [1;2;3] [1;2;4]: the cells (1), heads 1/1 (2), tails (3), heads 2/2 (4),
    // tails (5), heads 3/4 differ (6). Destructuring `x` reads the two fields named (`_` is
    // never loaded).
    let run = "let (a, b, _) = x in compare a b";
    let want = expect(&[
        ("TupleMatch", 2),
        ("PolyCompare", 1),
        ("PolyCompareStep", 6),
        ("PolyCompareBlock", 3), // the three pairs of cells
    ]);
    assert_eq!(compare_counts(LISTS, run), want);
    // Equal lists of n elements: n cells, n heads, and the final [] / [] pair: 2n + 1.
    let run = "let (a, _, c) = x in a = c";
    let want = expect(&[
        ("TupleMatch", 2),
        ("PolyCompare", 1),
        ("PolyCompareStep", 7),
        ("PolyCompareBlock", 3),
    ]);
    assert_eq!(compare_counts(LISTS, run), want);
}

#[test]
fn compare_skips_a_physically_equal_value_and_equality_walks_it() {
    // caml_compare (total) stops at `v1 == v2`; caml_equal compares the shared list field by
    // field, exactly as two distinct equal lists.
    let run = "let (a, _, _) = x in (compare a a, a = a, a < a)";
    let want = expect(&[
        ("TupleMatch", 1),
        ("TupleHead", 1),
        ("TupleElem", 3),
        ("PolyCompare", 3),
        ("PolyCompareStep", 1 + 7 + 7),
        ("PolyCompareBlock", 3 + 3), // the skipped pair reads no header
    ]);
    assert_eq!(compare_counts(LISTS, run), want);
}

#[test]
fn immediates_blocks_and_shapes_are_one_step_each() {
    // A polymorphic function: every comparison in it goes through the runtime.
    let decls = "
let[@inline never] eq a b = a = b
let input n = n";
    // Two immediates: one step, equal or not.
    let run = "(eq x 3, eq x 4)";
    let want = expect(&[
        ("TupleHead", 1),
        ("TupleElem", 2),
        ("FunApp", 2),
        ("PolyCompare", 2),
        ("PolyCompareStep", 2),
        // No pair of blocks: the runtime's fast path.
    ]);
    assert_eq!(compare_counts(decls, run), want);
    // [] against a cell, None against Some: an immediate against a block, one step; Some 3
    // against Some 4: the blocks, then their fields, two steps. (`Some x` allocates.)
    let run = "(eq [] [x], eq None (Some x), eq (Some x) (Some 4))";
    let want = expect(&[
        ("TupleHead", 1),
        ("TupleElem", 3),
        ("FunApp", 3),
        ("Cons", 1),
        ("VariantHead", 2),
        ("VariantElem", 2),
        ("PolyCompare", 3),
        ("PolyCompareStep", 1 + 1 + 2),
        ("PolyCompareBlock", 1), // Some x / Some 4; an immediate against a block is none
    ]);
    assert_eq!(compare_counts(decls, run), want);
}

#[test]
fn pairs_nested_pairs_strings_and_floats() {
    let decls = "let input n = (n, \"abc\", 1.5)";
    // (1, 3) vs (1, 4): the pair, then 1/1, then 3/4: three steps. ((1, s), 2.) twice: the
    // pair, the inner pair, 1/1, the strings (one step whatever their length), then 2./2.
    let run = "let (n, s, f) = x in (compare (1, n) (1, n + 1), ((1, s), f) = ((1, s), f))";
    let want = expect(&[
        ("TupleMatch", 3),
        ("IntAdd", 1),
        ("TupleHead", 1 + 2 + 4),
        ("TupleElem", 2 + 4 + 8),
        ("PolyCompare", 2),
        ("PolyCompareStep", 3 + 5),
        // The outer pairs; then the pairs, the inner pairs, the strings and the floats.
        ("PolyCompareBlock", 1 + 4),
        // Right to left, each call's arguments are one allocation: `=`'s four blocks, then
        // `compare`'s two (3 + 1 joined); the result tuple, after the last call, begins a third.
        ("AllocMerged", 3 + 1),
    ]);
    assert_eq!(compare_counts(decls, run), want);
    // A NaN stops `=` (unordered) but not `compare`, which orders NaN equal to itself.
    let decls = "let input n = (float_of_int n, 0.0 /. 0.0)";
    let run = "let (f, nan) = x in ((nan, f) = (nan, f), compare (nan, f) (nan, f))";
    let want = expect(&[
        ("TupleMatch", 2),
        ("TupleHead", 1 + 4),
        ("TupleElem", 2 + 8),
        ("PolyCompare", 2),
        ("PolyCompareStep", 2 + 3),
        // `=`: the pairs, the NaNs; `compare`: the pairs, then it skips each float as
        // physically equal to itself.
        ("PolyCompareBlock", 2 + 1),
        ("AllocMerged", 1 + 1), // each call's two pairs
    ]);
    assert_eq!(compare_counts(decls, run), want);
}
