//! A chain's cycles beyond issue, divided among the kinds the fit prices apart: `cvtsi2sd`'s
//! wait for the last float result (`FloatMergeCycle`), float operations (`FloatChainCycle`),
//! integer divisions (`DivisionChainCycle`), stores forwarded to the next iteration's loads
//! (`ForwardChainCycle`), the rest `ChainCycle`. Each
//! kind's part of an iteration's excess is its share of the chain — what the chain walked
//! without that kind loses, in 65 536ths, rounded down — of the excess in sixths, rounded down;
//! whole cycles at the end of the run. Hand-computed from the latency table and instruction
//! counts of `counts_chain.rs`; read, as there, as differences between sizes 6 iterations apart.

mod common;

use common::{chain_kinds_per_six as per_six, share_of as part, CHAIN_KINDS as KINDS};

#[test]
fn a_horner_step_is_float_and_forwarding_cycles() {
    // load 5, `*. x` 4, `+. c` 2, boxed again 2: 13 cycles, of which the multiply and the add,
    // 6, are float, the box's store and its load in the next iteration, 7, forwarding;
    // 78 − 15 = 63 sixths beyond issue.
    let (float, forward) = (part(63, 6, 13), part(63, 7, 13));
    assert_eq!((float, forward), (29, 33));
    assert_eq!(
        per_six(common::chains::HORNER, 200),
        [63 - float - forward, 0, float, 0, forward]
    );
}

#[test]
fn a_division_on_the_way_back_is_division_cycles() {
    // `h / m + 1000`: the division 22 and the add 1 against 3 cycles of issue, 20 beyond a
    // level (120 sixths), of which 22/23 division; 399 levels return into one above.
    let source = common::chains::way_back_division("n land 3 >= 0");
    let division = part(120, 22, 23);
    assert_eq!(division, 114);
    let counts = KINDS.map(|kind| common::count_of(&source, 400, kind));
    let whole_division = 399 * division / 6;
    assert_eq!(
        counts,
        [399 * 20 - whole_division, 0, 0, whole_division, 0],
        "{counts:?}"
    );
}

#[test]
fn float_of_int_waiting_on_the_last_sum_is_merge_cycles() {
    // cvt 4, box 2, `f`'s load 5 and multiply 4, box 2, load 5, the add 2: 24 cycles, 110
    // sixths beyond issue. Without the wait the loop carries `s` alone, kept in its frame
    // across `f`'s call: loaded back 5, added to 2, 7 cycles. So the wait makes 17 cycles of
    // 24, the add 2 float cycles, the load from the frame 5 forwarding cycles; the roundings
    // leave 2 sixths to ChainCycle.
    let (merge, float, forward) = (part(110, 17, 24), part(110, 2, 24), part(110, 5, 24));
    assert_eq!((merge, float, forward), (77, 9, 22));
    assert_eq!(
        per_six(common::chains::FLOAT_OF_INT_SUM, 200),
        [110 - merge - float - forward, merge, float, 0, forward]
    );
}

#[test]
fn an_integer_chain_is_all_chain_cycles() {
    // `acc * n`: 3 cycles of multiply and 1 of `n - 1` (18 sixths) against 10 instructions.
    let source = common::chains::PRODUCT;
    assert_eq!(per_six(source, 200), [8, 0, 0, 0, 0]);
}

#[test]
fn euclid_is_division_cycles() {
    // Euclid's remainders (`idiv` 22 cycles a step): the division carries the chain, the
    // compare and the call's jump little of it; no float anywhere.
    // What the ramps of the short instances leave out is DivisionRampCycle.
    let counts = KINDS.map(|kind| common::count_of(common::chains::GCD, 100, kind));
    let ramp = common::count_of(common::chains::GCD, 100, "DivisionRampCycle");
    assert!(counts[3] + ramp > 100 * 2 * 15, "{counts:?} {ramp}");
    assert!(counts[3] > 10 * counts[0], "{counts:?}");
    assert_eq!((counts[1], counts[2], counts[4]), (0, 0, 0), "{counts:?}");
}
