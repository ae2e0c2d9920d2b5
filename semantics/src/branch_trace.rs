//! Which branches the processor mispredicts in a benchmark's steady state: `JumpMiss` (table
//! jumps) and `BranchMiss` (two-way branches).
//!
//! A benchmark runs `run` again and again on one input, so the branch predictor meets the
//! same sequence of outcomes run after run, and a modern predictor with long global histories
//! (TAGE) memorises as much of it as it has room for. A run whose data-dependent branches fit
//! is predicted almost perfectly — a random expression tree of 200 nodes costs no miss — while
//! a run of a million coin tosses misses half of them. Measured here: the controls with random
//! two-way branches (`while_refs`, `collatz`, `str_scan`, `str_search`) were underpredicted by
//! 0–24% at their small sizes and by 43–67% at their large ones, and the table jumps of
//! `expr_eval` overpredicted fourfold at 200 nodes.
//!
//! So the interpreter records every branch of the counted run (its site and outcome) and, at
//! the end, replays the trace through model predictors several times: the first passes are
//! the runs before, which leave the predictor warm and its history where every run of the
//! steady state starts; the misses of the last pass are counted. The
//! two-way model is a small TAGE: a two-bit counter per site (the base predictor, which
//! learns a biased branch), a loop predictor per site (a loop's exit, whose trip count the
//! repeated input keeps), and three tagged tables indexed by the site and the global history —
//! the last 8 outcomes (1024 entries: a pattern such as "after an odd Collatz step comes an
//! even one"), the last 48 (6144 entries: where in the run this is) and the last 128 (32
//! entries: the few exits only a longer history tells apart). They take entries only
//! when the prediction was wrong — as TAGE allocates — so that only the hard branches compete
//! for them. Their sizes and histories are the figures the model takes from measurements rather than
//! from the code: x86 vendors do not publish them, and `perf` is not available on these VMs.
//! The walk of the `branchmiss` template measured here (1 run, 2 layouts): a coin-toss `if`
//! over 4000 list elements ran as fast as the same walk with every outcome alike, over 16 000
//! it cost 41 µs more (about 5400 misses at 7.5 ns), over 64 000 and 200 000 it cost 7.2–7.6
//! ns per element missed as a cold predictor would miss half; the model predicts 1, 6499
//! and one half. The other measurements that set the tables are in `two_way.rs`.
//!
//! A miss is found only when its condition is known, and what the processor ran the wrong way
//! until then is lost: an `if` whose condition waits on a division costs more per miss than
//! one that tests a bit. Measured here (a list walk counting the elements a predicate passes,
//! four in five at random, 16 000 to 250 000 elements, against the same walk passing all):
//! with `x mod k <> 0` each miss cost about 11 ns, twice the `BranchMiss` price of conditions
//! that compare a loaded value. So each `if` and `while` site carries the cycles its condition takes from
//! the iteration's start (set by [`crate::chain`]) and each of its counted misses adds them
//! to `ChainCycle` (`Misses::resolving`); so does a table jump, whose target is known once its
//! value and its tag are loaded.

use crate::catalogue::Counter;
use crate::machine::Machine;
use crate::table_jump::JumpPredictor;
use crate::two_way::TwoWayPredictor;

/// Runs replayed before the counted one. A benchmark's steady state comes after thousands of
/// runs; the tables, which take entries only on misses, take a few runs to settle. After 5
/// they hold the tosses of the `branchmiss` template over 4000 elements (1 miss), which the
/// processor predicts in full (measured); after 2 the model still missed 230 of them.
const WARM_RUNS: usize = 5;

/// Events are `site << 9 | kind << 8 | outcome`.
const TWO_WAY: u32 = 1 << 8;

/// The branches of one run, in order.
#[derive(Default)]
pub(crate) struct BranchTrace {
    events: Vec<u32>,
    /// Loop instances whose chain was counted ramping in ([`crate::issue::OVERLAP_WINDOW`]):
    /// the events recorded when each began, and the sixths of a cycle its ramp left out.
    /// Of those sixths, the ones of instances that divide integers ([`Ramp`]).
    ramps: Vec<Ramp>,
}

/// A loop instance that ramped in: the branches recorded when it began, and what its ramp
/// left out.
#[derive(Clone, Copy)]
struct Ramp {
    position: u64,
    /// The instance's last branch, the test that let it out ([`NO_EXIT`] until it exits).
    exit: u64,
    left_out: LeftOut,
}

const NO_EXIT: u64 = u64::MAX;

/// Sixths of a cycle of chain a ramp left out: all of them (`saved`), the part from iterations
/// that divide integers (`dividing`: `DivisionRampCycle`), the part from the other iterations
/// of loops (not levels of a shallow recursion) that a small reorder window would have counted
/// (`looping`: `RampCycle`), and of the dividing part the divisions' own (`division`:
/// `DivisionChainCycle`'s, should it count after all).
#[derive(Clone, Copy, Default)]
pub(crate) struct LeftOut {
    pub(crate) saved: u64,
    pub(crate) dividing: u64,
    pub(crate) looping: u64,
    pub(crate) division: u64,
}

impl std::ops::AddAssign for LeftOut {
    fn add_assign(&mut self, other: LeftOut) {
        self.saved += other.saved;
        self.dividing += other.dividing;
        self.looping += other.looping;
        self.division += other.division;
    }
}

/// What the trace's replay reads of each branch site ([`crate::lower::Executable`]'s
/// `site_resolve` and `site_waits_on_chain`).
#[derive(Clone, Copy, Default)]
pub(crate) struct Sites<'a> {
    pub(crate) resolve: &'a [u32],
    pub(crate) waits_on_chain: &'a [bool],
}

/// Mispredictions of a run in the steady state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Misses {
    pub(crate) jumps: u64,
    pub(crate) branches: u64,
    /// Sixths of a cycle of chain the ramps left out of instances that began right after a
    /// mispredicted branch: nothing ran beside their start, so their chain binds in full.
    pub(crate) unramped: u64,
    /// The divisions' part of `unramped` from iterations that divide integers, which
    /// `DivisionChainCycle` prices.
    pub(crate) unramped_division: u64,
    /// Sixths of a cycle the ramps left out of integer-dividing instances that began after a
    /// predicted branch: `DivisionRampCycle`.
    pub(crate) overlapped_dividing: u64,
    /// Sixths of a cycle the ramps left out of the other loop instances that began after a
    /// predicted branch: `RampCycle`.
    pub(crate) overlapped: u64,
    /// Cycles the mispredicted `if`s' conditions took to resolve: the processor ran the wrong
    /// way meanwhile, and that work is lost.
    pub(crate) resolving: u64,
}

impl BranchTrace {
    /// Forgets what was recorded (the branches of `input`).
    pub(crate) fn clear(&mut self) {
        self.events.clear();
        self.ramps.clear();
    }

    /// Branches recorded so far: where a loop instance beginning now sits in the trace.
    #[inline(always)]
    pub(crate) fn position(&self) -> u64 {
        self.events.len() as u64
    }

    /// The instance of a loop that began at trace `position` left `left_out` of its chain out,
    /// ramping in: it is counted after all if the branch just before it turns out
    /// mispredicted.
    #[inline(always)]
    pub(crate) fn ramped(&mut self, position: u64, left_out: LeftOut) {
        match self.ramps.last_mut() {
            Some(ramp) if ramp.position == position => ramp.left_out += left_out,
            _ => self.ramps.push(Ramp {
                position,
                exit: NO_EXIT,
                left_out,
            }),
        }
    }

    /// The loop instance that began at trace `position` exited: the last branch recorded is
    /// the test that let it out.
    pub(crate) fn instance_exited(&mut self, position: u64) {
        let Some(exit) = (self.events.len() as u64).checked_sub(1) else {
            return;
        };
        if exit < position {
            return;
        }
        for ramp in self.ramps.iter_mut().rev() {
            if ramp.position < position {
                break;
            }
            if ramp.position == position && ramp.exit == NO_EXIT {
                ramp.exit = exit;
            }
        }
    }

    /// A jump through the table of `site` went to `arm`.
    #[inline(always)]
    pub(crate) fn jump(&mut self, site: u32, arm: u8) {
        self.events.push(site << 9 | u32::from(arm));
    }

    /// The two-way branch at `site` went the `taken` way.
    #[inline(always)]
    pub(crate) fn branch(&mut self, site: u32, taken: bool) {
        self.events.push(site << 9 | TWO_WAY | u32::from(taken));
    }

    /// The misses of the recorded run when it follows an identical run (a benchmark's steady
    /// state), or, if `warm` is false, when it runs once on cold predictors (a script).
    pub(crate) fn misses(&self, warm: bool, sites: &Sites) -> Misses {
        self.misses_through(TwoWayPredictor::default(), warm, sites)
    }

    /// [`BranchTrace::misses`] through the two-way predictor `branches`.
    fn misses_through(&self, mut branches: TwoWayPredictor, warm: bool, sites: &Sites) -> Misses {
        let site_resolve = sites.resolve;
        let mut jumps = JumpPredictor::default();
        let mut missed = vec![0u64; self.events.len().div_ceil(64)];
        let mut pass = |count: bool| {
            let mut misses = Misses::default();
            let mut i = 0;
            while let Some(&e) = self.events.get(i) {
                let site = e >> 9;
                let miss = if e & TWO_WAY != 0 {
                    let miss = branches.branch(site, e & 1 != 0);
                    if miss {
                        misses.branches += 1;
                        misses.resolving +=
                            u64::from(site_resolve.get(site as usize).copied().unwrap_or(0));
                    }
                    miss
                } else {
                    let miss = jumps.jump(site, (e & 0xff) as u8);
                    if miss {
                        misses.jumps += 1;
                        misses.resolving +=
                            u64::from(site_resolve.get(site as usize).copied().unwrap_or(0));
                    }
                    miss
                };
                if count && miss {
                    missed[i / 64] |= 1 << (i % 64);
                }
                i += 1;
                // A loop's test repeats one way iteration after iteration: as long as the
                // predictor takes it for free, the run is skipped through at once.
                if e & TWO_WAY != 0 && branches.repeat == u64::from(site) << 1 | u64::from(e & 1) {
                    let run = self.events[i..].iter().take_while(|&&n| n == e).count();
                    i += branches.repeat_free(site, e & 1 != 0, run);
                }
            }
            misses
        };
        if warm {
            // The runs before: the first starts from an empty history, the others from the
            // end of the one before — where every run of the steady state starts.
            for _ in 0..WARM_RUNS {
                pass(false);
            }
        }
        let mut misses = pass(true);
        let is_missed = |i: usize| missed[i / 64] & (1 << (i % 64)) != 0;
        for ramp in &self.ramps {
            let before = ramp.position.wrapping_sub(1) as usize;
            let left_out = ramp.left_out;
            let exit_missed = ramp.exit != NO_EXIT && is_missed(ramp.exit as usize) && {
                let e = self.events[ramp.exit as usize];
                e & TWO_WAY != 0 && sites.waits_on_chain.get((e >> 9) as usize) == Some(&true)
            };
            if (ramp.position > 0 && is_missed(before)) || exit_missed {
                misses.unramped += left_out.saved;
                misses.unramped_division += left_out.division;
            } else {
                misses.overlapped_dividing += left_out.dividing;
                misses.overlapped += left_out.looping;
            }
        }
        misses
    }
}

/// How the compiled program reports its branches, and the run's misses are counted.
impl Machine<'_> {
    /// A `match` at `site` jumped through its table to `arm`.
    #[inline(always)]
    pub(crate) fn table_jump(&mut self, site: u32, arm: usize) {
        self.branches.jump(site, arm as u8);
    }

    /// Sets `JumpMiss` and `BranchMiss` to the misses of the recorded run: after identical
    /// runs (`warm`, a benchmark's steady state) or on cold predictors (a script).
    pub(crate) fn count_branch_misses(&mut self, warm: bool) {
        let sites = Sites {
            resolve: &self.prog.site_resolve,
            waits_on_chain: &self.prog.site_waits_on_chain,
        };
        let misses = self.branches.misses(warm, &sites);
        self.counts[Counter::JumpMiss as usize] = misses.jumps;
        self.counts[Counter::BranchMiss as usize] = misses.branches;
        self.add_chain_excess(misses.unramped + misses.resolving * crate::issue::ISSUE_WIDTH);
        // In sixths, as the chain's kinds are until the run ends (`split_chain_kinds`).
        self.counts[Counter::DivisionChainCycle as usize] += misses.unramped_division;
        self.counts[Counter::DivisionRampCycle as usize] =
            misses.overlapped_dividing / crate::issue::ISSUE_WIDTH;
        self.counts[Counter::RampCycle as usize] = misses.overlapped / crate::issue::ISSUE_WIDTH;
    }

    /// The two-way branch at `site` went the `taken` way.
    #[inline(always)]
    pub(crate) fn branch(&mut self, site: u32, taken: bool) -> bool {
        self.branches.branch(site, taken);
        taken
    }
}

/// `n` pseudo-random outcomes from `seed` (a 64-bit LCG's high bits).
pub(crate) fn coin_tosses(n: usize, seed: u64) -> Vec<bool> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) & 1 == 1
        })
        .collect()
}

/// A walk with an `if` on each of `outcomes` (site 7) and the walk's own test, taken until
/// the end (site 8), without the test's last, exiting outcome.
fn walk_trace(outcomes: &[bool]) -> BranchTrace {
    let mut trace = BranchTrace::default();
    for &t in outcomes {
        trace.branch(7, t);
        trace.branch(8, true);
    }
    trace
}

/// The steady-state misses of a walk over `n` coin tosses (an `if` on each and the walk's own
/// test, its exit included) through a predictor whose long table is `scale` times the model's:
/// how [`crate::branch_memory`] finds what the model keeps. The same tosses for every `n`, so
/// that the ladder of lengths walks one sequence.
pub(crate) fn steady_coin_toss_misses(n: usize, scale: f64) -> u64 {
    let mut trace = walk_trace(&coin_tosses(n, 1));
    trace.branch(8, false);
    trace
        .misses_through(
            TwoWayPredictor::with_long_table_scale(scale),
            true,
            &Sites::default(),
        )
        .branches
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::two_way::NO_REPEAT;

    #[test]
    fn each_miss_adds_its_sites_resolving_cycles() {
        // Site 0: a coin-toss `if` whose condition takes 9 cycles; site 1: a table jump among
        // four arms whose target takes 10; site 2: a loop's test, 2, never missed once learnt.
        let tosses = coin_tosses(100_000, 3);
        let arms = coin_tosses(200_000, 5);
        let mut trace = BranchTrace::default();
        for (i, &t) in tosses.iter().enumerate() {
            trace.branch(0, t);
            trace.jump(1, u8::from(arms[2 * i]) << 1 | u8::from(arms[2 * i + 1]));
            trace.branch(2, true);
        }
        let misses = trace.misses(
            true,
            &Sites {
                resolve: &[9, 10, 2],
                ..Sites::default()
            },
        );
        assert!(
            misses.branches > 20_000 && misses.jumps > 20_000,
            "{misses:?}"
        );
        assert_eq!(misses.resolving, 9 * misses.branches + 10 * misses.jumps);
        // Without the cycles, the same misses.
        let plain = trace.misses(true, &Sites::default());
        assert_eq!(
            (plain.branches, plain.jumps),
            (misses.branches, misses.jumps)
        );
        assert_eq!(plain.resolving, 0);
    }

    fn steady_misses(outcomes: &[bool]) -> u64 {
        walk_trace(outcomes)
            .misses(true, &Sites::default())
            .branches
    }

    #[test]
    fn a_biased_branch_costs_nothing_and_coin_tosses_are_memorised_only_while_they_fit() {
        assert_eq!(steady_misses(&[true; 5000]), 0);
        // 1000 tosses fit the long table: the runs before left them in it, but for the few
        // the short table happened to predict in the warm runs (so no long entry was taken),
        // and then gets wrong.
        let few = steady_misses(&coin_tosses(1000, 1));
        assert!(few <= 100, "{few}");
        // 200 000 do not: about half miss, as on a real processor.
        let many = steady_misses(&coin_tosses(200_000, 1));
        assert!((80_000..110_000).contains(&many), "{many}");
        // In between, the share of misses grows with the run.
        let some = steady_misses(&coin_tosses(16_000, 1));
        assert!(some > 5 * few.max(1) && some < many / 5, "{some}");
    }

    #[test]
    fn a_long_loop_does_not_miss_its_exit_once_its_trip_count_repeats() {
        // 1000 iterations a run, six runs: the exit of the sixth is predicted.
        let outcomes: Vec<bool> = (0..1000).map(|i| i < 999).collect();
        assert_eq!(steady_misses(&outcomes), 0);
        let mut trace = BranchTrace::default();
        for i in 0..1000 {
            trace.branch(3, i < 999);
        }
        assert_eq!(trace.misses(true, &Sites::default()).branches, 0);
        // A cold run misses it (and the first guesses).
        assert!(trace.misses(false, &Sites::default()).branches >= 1);
    }

    #[test]
    fn a_repeated_branch_skipped_through_is_predicted_as_in_full() {
        // Runs of one branch (loops of a few to a few hundred iterations, the exits of some
        // of a steady trip count), among other sites and coin tosses: the predictor that
        // skips repetitions must miss exactly where the one that looks every branch up does.
        let tosses = coin_tosses(60_000, 11);
        let mut fast = TwoWayPredictor::default();
        let mut full = TwoWayPredictor::default();
        let mut i = 0;
        let mut step = |site: u32, taken: bool| {
            full.repeat = NO_REPEAT;
            assert_eq!(
                fast.branch(site, taken),
                full.branch(site, taken),
                "at {site}"
            );
        };
        while i + 8 < tosses.len() {
            let bits = tosses[i..i + 8]
                .iter()
                .fold(0u32, |a, &t| a << 1 | u32::from(t));
            let site = bits % 5;
            let trip = if bits & 0x40 != 0 {
                100
            } else {
                bits * 3 % 300
            };
            for _ in 0..trip {
                step(site, site != 4);
            }
            step(site, site == 4);
            step(7, tosses[i]);
            i += 8;
        }
    }

    #[test]
    fn runs_skipped_through_miss_as_branch_by_branch() {
        // Loops of steady and varying trip counts, with their exits, among coin tosses.
        let tosses = coin_tosses(4_000, 17);
        let mut trace = BranchTrace::default();
        let mut full = TwoWayPredictor::default();
        let mut expected = 0;
        for (i, chunk) in tosses.chunks(8).enumerate() {
            let trip = if chunk[0] { 40 } else { 5 + i % 70 };
            for k in 0..=trip {
                trace.branch(1, k < trip);
                expected += u64::from(full.branch(1, k < trip));
            }
            trace.branch(2, chunk[1]);
            expected += u64::from(full.branch(2, chunk[1]));
        }
        assert_eq!(trace.misses(false, &Sites::default()).branches, expected);
    }

    #[test]
    fn a_missed_exit_that_waits_on_the_chain_lets_nothing_overlap_the_instance() {
        // On cold predictors (a first meeting is guessed taken): a branch before the
        // instance, taken (predicted); the instance's test, three times not taken (the first
        // missed, the counter then says not taken) and taken at its exit (missed).
        let left_out = LeftOut {
            saved: 60,
            dividing: 60,
            looping: 0,
            division: 42,
        };
        let trace = || {
            let mut trace = BranchTrace::default();
            trace.branch(1, true);
            let began = trace.position();
            for _ in 0..3 {
                trace.branch(0, false);
                trace.ramped(began, left_out);
            }
            trace.branch(0, true);
            trace.instance_exited(began);
            trace
        };
        let on_chain = trace().misses(
            false,
            &Sites {
                waits_on_chain: &[true, false],
                ..Sites::default()
            },
        );
        assert_eq!(on_chain.branches, 2);
        assert_eq!((on_chain.unramped, on_chain.unramped_division), (180, 126));
        assert_eq!(on_chain.overlapped_dividing, 0);
        // A test beside the chain is found at once: the code after the loop still overlaps.
        let beside = trace().misses(false, &Sites::default());
        assert_eq!(beside.branches, 2);
        assert_eq!((beside.unramped, beside.overlapped_dividing), (0, 180));
    }

    #[test]
    fn an_alternating_branch_is_learned() {
        let alternating: Vec<bool> = (0..20_000).map(|i| i % 2 == 0).collect();
        assert!(steady_misses(&alternating) <= 4);
    }

    #[test]
    fn table_jumps_of_a_short_random_run_are_memorised_but_not_those_of_a_long_one() {
        let jumps = |n: usize| {
            let mut trace = BranchTrace::default();
            let mut s: u64 = 99;
            for _ in 0..n {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                trace.jump(3, ((s >> 33) & 3) as u8);
            }
            trace.misses(true, &Sites::default()).jumps
        };
        let short = jumps(300);
        assert!(short <= 30, "{short}");
        let long = jumps(100_000);
        assert!(long >= 60_000, "{long}");
    }
}
