//! What a short loop instance's chain leaves out as it ramps in: the instructions after it issue
//! beside its chain over the reorder window (the first 512 instructions of the instance), so
//! its chain counts in full only past them. What the ramp leaves out is counted apart —
//! `DivisionRampCycle` where the iteration divides, `RampCycle` otherwise — for the
//! fit to price on the machine measured, and counts in the chain after all where the instance
//! began right after a mispredicted branch (the pipeline restarts there, nothing overlaps).
//! Same tables as `counts_chain.rs`.

mod common;

fn chain_cycles(source: &str, size: i64) -> u64 {
    common::chain_of(source, size)
}

/// Horner's rule over `degree` coefficients for each of n points.
fn horner(degree: usize) -> String {
    format!(
        "
let horner coeffs x =
  let rec go i acc = if i < 0 then acc else go (i - 1) (acc *. x +. coeffs.(i)) in
  go (Array.length coeffs - 1) 0.0
let input n = (Array.make {degree} 0.5, Array.make n 0.25)
let run (coeffs, xs) = Array.fold_left (fun s x -> s +. horner coeffs x) 0.0 xs"
    )
}

/// `steps k` carries `acc * 3 + k`, 4 cycles (24 sixths) against 10 instructions: 14 sixths an
/// iteration in full, for `trips` iterations an instance.
fn steps(trips: &str) -> String {
    format!(
        "
let rec steps k acc = if k = 0 then acc else steps (k - 1) (acc * 3 + k)
let input n = Array.init n (fun j -> {trips})
let run a = Array.fold_left (fun s k -> s + steps k 1) 0 a"
    )
}

const RANDOM_TRIPS: &str = "((j * 1103515245 + 12345) lsr 16) land 15";

#[test]
fn short_loops_called_one_after_another_overlap_their_chains() {
    // Horner's rule over 13 coefficients for each of n points: the accumulator's chain (a
    // boxed float: load 5, `*.` 4, `+.` 2, box 2 = 13 cycles, against some 20 instructions
    // issued in 3⅓) binds in a long loop: 9⅔ cycles an iteration, 126 an instance of 13. But
    // such an instance, some 260 instructions, sits in the reorder window beside the next
    // point's: its chain ramps in to half its length by its last iteration, and only the last
    // few count a cycle or a few. The same step over 200 coefficients binds in full once its
    // first 512 instructions are past.
    // In full, 13 × 9⅔ = 126 cycles an instance; overlapped, at most a tenth of that.
    assert!(
        chain_cycles(&horner(13), 100) <= 100 * 126 / 10,
        "{}",
        chain_cycles(&horner(13), 100)
    );
    assert!(
        chain_cycles(&horner(200), 100) > 100 * 150 * 5,
        "{}",
        chain_cycles(&horner(200), 100)
    );
}

#[test]
fn a_short_loop_that_divides_ramps_in_and_counts_what_it_leaves_out_apart() {
    // Euclid's remainders, a few per pair (`b mod (a mod b)`-style chains, idiv 22 cycles):
    // the chain ramps in as any short instance's does, and what the ramp leaves out — whether
    // the next pair's remainders overlap it is the core's — is DivisionRampCycle. Together
    // they are the chain in full, at least 15 cycles for each of two remainders per pair.
    let source = common::chains::GCD;
    let chain = chain_cycles(source, 100);
    let ramp = common::count_of(source, 100, "DivisionRampCycle");
    assert!(
        ramp > chain && chain + ramp > 100 * 2 * 15,
        "{chain} {ramp}"
    );
}

#[test]
fn a_dividing_loop_entered_after_a_mispredicted_branch_counts_its_ramp_in_its_chain() {
    // `steps` carries `(acc + k) mod m`, 23 cycles against some 20 instructions, for 15
    // iterations at most: far fewer than 512 instructions an instance. With one trip count,
    // every instance starts after a predicted branch, and most of its chain is left to
    // DivisionRampCycle. With trip counts at random, an instance after a mispredicted exit
    // starts alone and counts its chain after all — its division part as DivisionChainCycle,
    // not as the integer ChainCycle — and not as DivisionRampCycle.
    let trips = |count: &str| {
        format!(
            "
let rec steps k m acc = if k = 0 then acc else steps (k - 1) m ((acc + k) mod m)
let input n = (Array.init n (fun j -> {count}), 1000003)
let run (a, m) = Array.fold_left (fun s k -> s + steps k m (s land 1023)) 0 a"
        )
    };
    let parts = |source: &str| {
        [
            "ChainCycle",
            "DivisionChainCycle",
            "DivisionRampCycle",
            "BranchMiss",
        ]
        .map(|kind| common::count_of(source, 20_000, kind))
    };
    let [plain, division, ramp, misses] = parts(&trips("7 + j land 0"));
    assert_eq!(misses, 0);
    assert!(ramp > 2 * (plain + division), "{plain} {division} {ramp}");
    let [random_plain, random_division, random_ramp, random_misses] =
        parts(&trips("((j * 1103515245 + 12345) lsr 16) land 15"));
    assert!(random_misses > 0);
    assert!(
        random_division * ramp > 2 * division * random_ramp,
        "{random_division} {random_ramp} against {division} {ramp}"
    );
    assert!(
        random_plain * 4 < random_division,
        "{random_plain} {random_division}"
    );
}

#[test]
fn a_loop_entered_after_a_mispredicted_branch_carries_its_chain_from_the_start() {
    // `steps`' instances, 15 iterations at most, issue far fewer than 512 instructions:
    // called one after another with the same trip count, each overlaps the next and its chain
    // never binds. With trip counts drawn at random, the exit of an instance is sometimes
    // mispredicted, and the next starts alone: its chain binds in full, at most 15 × 14
    // sixths per miss.
    let fixed = steps("7 + j land 0");
    assert_eq!(chain_cycles(&fixed, 20_000), 0);
    let random = steps(RANDOM_TRIPS);
    let misses = common::count_of(&random, 20_000, "BranchMiss");
    let chain = chain_cycles(&random, 20_000);
    assert!(misses > 0);
    assert!(
        chain > 0 && chain <= misses * 15 * 14 / 6,
        "{chain} {misses}"
    );
}

/// Sixths of a cycle of `steps`' chain that a ramp over `window` instructions counts in an
/// instance of `trips` iterations: the ramp reaches 24 × 10j / window sixths by the end of the
/// j-th iteration (10 instructions each), of which 10 are the iteration's issue.
fn steps_ramp(trips: u64, window: u64) -> u64 {
    (1..=trips)
        .map(|j| (24 * (10 * j).min(window) / window).saturating_sub(10))
        .sum()
}

#[test]
fn what_a_small_window_would_count_of_a_short_instance_is_ramp_cycles() {
    // `steps` with 7 trips an instance, 70 instructions: the ramp over 512 counts nothing of
    // it (24 × 70 / 512 < 10), one over 80 counts 2 + 5 + 8 + 11 sixths in its last four
    // iterations. That difference is RampCycle; none of it divides.
    assert_eq!((steps_ramp(7, 512), steps_ramp(7, 80)), (0, 26));
    let fixed = steps("7 + j land 0");
    assert_eq!(
        common::count_of(&fixed, 20_000, "RampCycle"),
        20_000 * 26 / 6
    );
    assert_eq!(common::count_of(&fixed, 20_000, "DivisionRampCycle"), 0);
    // With trip counts at random, the instances after a mispredicted exit count their chain
    // in full (ChainCycle) and no RampCycle: less than every instance's small-window part.
    let random = steps(RANDOM_TRIPS);
    let every_instance: u64 = (0..20_000u64)
        .map(|j| steps_ramp(((j * 1_103_515_245 + 12_345) >> 16) & 15, 80))
        .sum::<u64>()
        / 6;
    let (chain, ramp) = (
        chain_cycles(&random, 20_000),
        common::count_of(&random, 20_000, "RampCycle"),
    );
    assert!(chain > 0, "{chain}");
    assert!(
        ramp < every_instance && 2 * ramp > every_instance,
        "{ramp} against {every_instance}"
    );
}

#[test]
fn horner_over_few_coefficients_binds_in_a_small_window() {
    // 13 coefficients, 78 sixths of chain against some 20 instructions an iteration: a ramp
    // over 80 instructions counts 19 and 38½ sixths in the second and third iterations and
    // 58 in each of the ten after; the ramp over 512 some 73 in the last seven. RampCycle is
    // the difference, 94 cycles an instance at 20 instructions (90 to 96 at 18 to 22).
    let ramp = common::count_of(&horner(13), 100, "RampCycle");
    assert!((100 * 88..=100 * 98).contains(&ramp), "{ramp}");
    // 200 coefficients: the two ramps differ over the first 26 iterations only (past 512
    // instructions the chain binds in full): some 1390 sixths against 550, 140 cycles an
    // instance, against the 9⅔ × 174 the chain counts in full past them.
    let ramp = common::count_of(&horner(200), 100, "RampCycle");
    assert!((100 * 120..=100 * 160).contains(&ramp), "{ramp}");
    assert!(
        chain_cycles(&horner(200), 100) > 100 * 150 * 9,
        "{}",
        chain_cycles(&horner(200), 100)
    );
}

/// Euclid's remainders over n random pairs, the loop leaving at `exit`: at `b = 0`, which
/// waits on the remainder just computed, or at `k = 0`, a count of the same steps made in
/// `input`. The two loops carry the same chain and take their exits at the same iterations.
fn euclid(exit: &str) -> String {
    format!(
        "
let rec steps a b k = if b = 0 then k else steps b (a mod b) (k + 1)
let rec gcd a b k = if {exit} then a else gcd b (a mod b) (k - 1)
let input n =
  Array.init n (fun j ->
      let a = (j * 1103515245 + 12345) land 1048575 + 1 in
      let b = (j * 69069 + 1) land 1048575 + 1 in
      (a, b, steps a b 0))
let run pairs = Array.fold_left (fun s (a, b, k) -> s + gcd a b k) 0 pairs"
    )
}

#[test]
fn a_mispredicted_exit_that_waits_on_the_chain_counts_the_ramp_in_the_chain() {
    // At 3000 pairs the exits come at random and many are missed (some 1400 branches, nearly
    // all exits: the instances after a missed exit are some two in five). Where the test waits on the
    // remainder, the miss is found only once the chain has run: nothing after the loop
    // overlapped it, and the ramp those instances left out counts in the chain. Where it
    // counts down beside the chain, it is found at once and the code after still overlaps.
    let (on_chain, beside) = (euclid("b = 0"), euclid("k = 0"));
    let of = |source: &str, construct: &str| common::count_of(source, 3000, construct);
    let misses = of(&on_chain, "BranchMiss");
    assert_eq!(misses, of(&beside, "BranchMiss"));
    assert!(misses > 1000, "{misses}");
    let (ramp_on, ramp_beside) = (
        of(&on_chain, "DivisionRampCycle"),
        of(&beside, "DivisionRampCycle"),
    );
    assert!(
        10 * ramp_on < 9 * ramp_beside,
        "{ramp_on} against {ramp_beside}"
    );
    // What leaves DivisionRampCycle is counted in the chain, the same cycles in both.
    let whole = |source: &str| chain_cycles(source, 3000) + of(source, "DivisionRampCycle");
    let (whole_on, whole_beside) = (whole(&on_chain), whole(&beside));
    assert!(
        whole_on.abs_diff(whole_beside) <= 2,
        "{whole_on} against {whole_beside}"
    );
    assert!(of(&on_chain, "DivisionChainCycle") > of(&beside, "DivisionChainCycle"));
}

#[test]
fn a_short_loop_that_divides_in_floats_ramps_in_as_well() {
    // Newton's square root of 2.0 from 1.5, for each of n points: four steps an instance,
    // each `x /. g` (13 cycles), `+.` (2) and `*. 0.5` (4) on the chain, some 9 cycles a step
    // beyond the step's instructions and their divider's, 38 an instance in full (as counted
    // before session 45). The instance, about 100 instructions, sits in the reorder window
    // beside the next point's, whose divisions the divider starts between this one's (one
    // every 4 cycles): it ramps in as any short instance does (`newton` at 30 points ran at
    // 24 ns a point, at 16 000, its exits missed, at 86; counted in full, +90% at 30). What
    // the ramp leaves out is DivisionRampCycle, as an integer division's.
    let source = "
let[@inline never] fabs d = if d < 0.0 then -. d else d
let rec newton x g =
  let g2 = (g +. x /. g) *. 0.5 in
  if fabs (g2 -. g) <= 0.000000001 *. g2 then g2 else newton x g2
let input n = Array.make n 2.0
let run a = Array.fold_left (fun s x -> s +. newton x 1.5) 0.0 a";
    let chain = chain_cycles(source, 100);
    let ramp = common::count_of(source, 100, "DivisionRampCycle");
    assert!(chain <= 100 * 38 / 4, "{chain}");
    assert!(ramp >= 100 * 30, "{ramp}");
}
