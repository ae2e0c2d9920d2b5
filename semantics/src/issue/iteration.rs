//! Where loop iterations and a linear recursion's levels begin and end on the interpreter's
//! clocks, and what an iteration that ended weighs: its chain beyond its issue, and what its
//! calls shadow (see [`super`]).

use super::{
    excess, excess_within, shadowed, Iteration, ALLOC_ISSUE_WIDTH, ALLOC_WRITE_PER_WORD, CALL_HOLD,
    DIVISION_KIND, ISSUE_WIDTH, OVERLAP_WINDOW, RECURSION_WINDOW, SMALL_OVERLAP_WINDOW,
};
use crate::branch_trace::LeftOut;
use crate::catalogue::Counter;
use crate::ir::{Chain, FunId};
use crate::latency_table::SHARE_ONE;
use crate::machine::Machine;

/// Where a loop iteration began, on the interpreter's clocks: instructions issued, calls
/// made, instructions of control transfers issued, and the calls and other instructions that
/// the iterations of loops inside it have already accounted for.
#[derive(Clone, Copy, Default)]
pub(crate) struct IterationMark {
    issued: u64,
    /// Instructions issued when the loop instance began.
    instance: u64,
    /// Branches recorded when the loop instance began.
    instance_branches: u64,
    /// Operations of the unpipelined divider run.
    divisions: u64,
    /// Cycles the dividers have been kept busy ([`super::DIVIDER_BUSY`]).
    divider_busy: u64,
    /// Words allocated in the minor heap.
    allocated: u64,
    /// Sixths of a cycle counted waiting on them ([`Machine::alloc_waited`]).
    alloc_waited: u64,
    calls: u64,
    control: u64,
    inner_calls: u64,
    inner_other: u64,
    inner_busy: u64,
}

/// Where one function's loop stands on the clocks.
#[derive(Clone, Copy, Default)]
pub(crate) struct LoopState {
    /// Where its current iteration began.
    iteration: IterationMark,
    /// The instructions issued when one of its self calls last entered or returned: where a
    /// level of a linear recursion's way back begins.
    level_began: u64,
    /// The words the program's stores wrote in the minor heap
    /// ([`crate::heap::written_and_stored_words`]), and the sixths of a cycle counted waiting
    /// on words, at the same moment.
    level_allocated: u64,
    level_alloc_waited: u64,
    /// Its non-tail self calls under way, in a linear recursion.
    depth: u32,
}

/// The clocks an iteration's end reads ([`Machine`]'s fields of the same names).
struct Clocks {
    issued: u64,
    calls: u64,
    control: u64,
    divisions: u64,
    divider_busy: u64,
    allocated: u64,
    /// Of `allocated`, the words the program's own stores wrote.
    stored: u64,
    alloc_waited: u64,
}

/// Calls and other instructions the loop iterations that ended so far accounted for.
#[derive(Clone, Copy, Default)]
pub(crate) struct Iterated {
    calls: u64,
    other: u64,
    /// Cycles of the dividers' ([`super::DIVIDER_BUSY`]).
    busy: u64,
}

/// What one iteration ran, from its mark to the clocks where it ended.
struct Ran {
    issued: u64,
    /// Instructions other than control transfers, less what inner loops accounted for.
    other: u64,
    /// Calls, less what inner loops accounted for.
    calls: u64,
    /// Instructions issued since the loop instance began.
    since_instance: u64,
    instance_branches: u64,
    divides: bool,
    /// Cycles the dividers were kept busy ([`super::DIVIDER_BUSY`]), less what inner loops
    /// accounted for: trial division's remainders are its `while` loop's, not again the
    /// enclosing `for` loop's.
    busy: u64,
    /// Words allocated in the minor heap, callees included.
    allocated: u64,
    /// Sixths of a cycle its inner loops waited on their words.
    alloc_waited: u64,
}

/// See [`Machine::advance`]; apart from it, for a mark that lies in the machine.
#[inline(always)]
fn advance(mark: &mut IterationMark, now: &Clocks, iterated: &mut Iterated) -> Ran {
    let issued = now.issued - mark.issued;
    let calls = (now.calls - mark.calls).saturating_sub(iterated.calls - mark.inner_calls);
    let other =
        (issued - (now.control - mark.control)).saturating_sub(iterated.other - mark.inner_other);
    let busy =
        (now.divider_busy - mark.divider_busy).saturating_sub(iterated.busy - mark.inner_busy);
    iterated.calls += calls;
    iterated.other += other;
    iterated.busy += busy;
    let ran = Ran {
        issued,
        other,
        calls,
        since_instance: now.issued - mark.instance,
        instance_branches: mark.instance_branches,
        divides: now.divisions > mark.divisions,
        busy,
        allocated: now.allocated.saturating_sub(mark.allocated),
        alloc_waited: now.alloc_waited - mark.alloc_waited,
    };
    mark.issued = now.issued;
    mark.divisions = now.divisions;
    mark.divider_busy = now.divider_busy;
    mark.allocated = now.allocated;
    mark.alloc_waited = now.alloc_waited;
    mark.calls = now.calls;
    mark.control = now.control;
    mark.inner_calls = iterated.calls;
    mark.inner_other = iterated.other;
    mark.inner_busy = iterated.busy;
    ran
}

/// The loops' clocks: where their iterations begin and end.
impl Machine<'_> {
    /// The clocks now: where an iteration that begins here begins.
    #[inline(always)]
    pub(crate) fn iteration_mark(&self) -> IterationMark {
        IterationMark {
            issued: self.issued,
            instance: self.issued,
            instance_branches: self.branches.position(),
            divisions: self.divisions,
            divider_busy: self.divider_busy,
            allocated: crate::heap::written_words(),
            alloc_waited: self.alloc_waited,
            calls: self.calls,
            control: self.control,
            inner_calls: self.iterated.calls,
            inner_other: self.iterated.other,
            inner_busy: self.iterated.busy,
        }
    }

    /// An iteration of a loop carrying `chain` cycles ended; it began at `*mark`, which
    /// becomes the next one's beginning. Counts the chain's cycles beyond the iteration's
    /// issue (fractions of a cycle carry over to the next iteration) and the instructions its
    /// calls shadow ([`crate::issue`]). The iterations of an inner loop have already weighed
    /// their own calls against their own instructions: an outer iteration weighs only what
    /// they left, so that a call deep in a nest is not counted to hide the same instructions
    /// once per enclosing loop.
    #[inline(always)]
    pub(crate) fn iteration_ended(&mut self, chain: Chain, mark: &mut IterationMark) {
        let ran = self.advance(mark);
        // The iteration's own wait is not an inner loop's for the next one.
        mark.alloc_waited += self.weigh_iteration(&chain, ran, Iteration::Loop);
    }

    /// Ends the iteration that began at `*mark`, moving `*mark` to where the next one begins
    /// (in the same loop instance), and accounts for its calls and other instructions: what
    /// it ran. The mark is updated in place: a loop's is read and written where it lies, not
    /// copied out and back (all nine fields, twice, were most of `fapp`'s iteration's end).
    #[inline(always)]
    fn advance(&mut self, mark: &mut IterationMark) -> Ran {
        advance(mark, &self.clocks(), &mut self.iterated)
    }

    /// The clocks an iteration's end reads, now.
    #[inline(always)]
    fn clocks(&self) -> Clocks {
        let (allocated, stored) = crate::heap::written_and_stored_words();
        Clocks {
            issued: self.issued,
            calls: self.calls,
            control: self.control,
            divisions: self.divisions,
            divider_busy: self.divider_busy,
            allocated,
            stored,
            alloc_waited: self.alloc_waited,
        }
    }

    /// What an iteration that `ran` weighs, for an iteration of the given kind. Returns the
    /// sixths of a cycle it counted waiting on its words.
    #[inline(always)]
    fn weigh_iteration(&mut self, chain: &Chain, ran: Ran, kind: Iteration) -> u64 {
        let Ran {
            issued,
            other,
            calls,
            since_instance,
            instance_branches,
            divides,
            busy,
            allocated,
            alloc_waited,
        } = ran;
        // Without a chain nothing binds, and nothing ramps in.
        let cycles = chain.cycles();
        // A loop's iteration takes at least the front end's hold of its calls (a linear
        // recursion's levels are weighed without it: their way down binds as measured).
        let instructions = issued;
        let issued = match kind {
            Iteration::Loop => issued.max(calls * CALL_HOLD),
            _ => issued,
        };
        let chained = if cycles != 0 {
            // A loop instance that divides ramps in like any other; what its ramp leaves out
            // is `DivisionRampCycle`, priced by the fit, since whether division chains
            // overlap is the core's (`idiv` two at a time on Zen 3). Float divisions included
            // since session 45: the divider starts a `divsd` every 4 cycles, and a chain of
            // 19 cycles a step (`newton`) leaves it idle most of the time, so the next
            // instance's divisions overlap this one's (`newton` at 30 points 24 ns a point
            // measured, +90% counted in full); where it is busy, `DividerCycle` counts that.
            // A recursion's levels that divide bind, as before.
            let overlapped = match kind {
                Iteration::Loop => since_instance,
                _ if divides => OVERLAP_WINDOW,
                Iteration::DeepLevel => OVERLAP_WINDOW,
                Iteration::ShallowLevel => 0,
            };
            let counted = excess(cycles, issued, overlapped);
            if overlapped < OVERLAP_WINDOW {
                let saved = excess(cycles, issued, OVERLAP_WINDOW) - counted;
                if saved > 0 {
                    let left_out = if divides {
                        // The division's part of it, should the instance start after a
                        // misprediction and count it after all.
                        LeftOut {
                            saved,
                            dividing: saved,
                            looping: 0,
                            division: saved * chain.shares[DIVISION_KIND] as u64 / SHARE_ONE,
                        }
                    } else if kind == Iteration::Loop {
                        // What a small window would count: a loop instance's `RampCycle`.
                        let small = excess_within(cycles, issued, overlapped, SMALL_OVERLAP_WINDOW);
                        LeftOut {
                            saved,
                            looping: small - counted,
                            ..LeftOut::default()
                        }
                    } else {
                        LeftOut {
                            saved,
                            ..LeftOut::default()
                        }
                    };
                    self.branches.ramped(instance_branches, left_out);
                }
            }
            self.add_chain(counted, chain);
            counted
        } else {
            0
        };
        // The minor heap takes the words the iteration allocates at its own pace, which binds
        // only beyond everything else the iteration waits on: its chain, its calls' hold, and
        // its instructions at the pace they run beside the writes ([`ALLOC_ISSUE_WIDTH`]).
        // Inner loops' waits on their own words are time the iteration already took.
        let paced =
            (instructions * ISSUE_WIDTH / ALLOC_ISSUE_WIDTH).max(issued + chained) + alloc_waited;
        let waited = self.wait_for_writes(allocated, paced);
        // The divider is busy only in iterations that divide; it binds beyond the iteration's
        // issue and its chain, which run beside it (`ext_gcd`'s way back, a field loaded
        // late beside two remainders a level: no slower than loaded early).
        if divides {
            self.add_divider_excess((busy * ISSUE_WIDTH).saturating_sub(issued + chained));
        }
        self.counts[Counter::CallShadow as usize] += shadowed(other, calls);
        waited
    }

    /// Counts the sixths of a cycle by which writing `words` in the minor heap outlasts
    /// `paced`, the sixths the code writing them takes without them, and returns them.
    #[inline(always)]
    fn wait_for_writes(&mut self, words: u64, paced: u64) -> u64 {
        let waited = (words * ALLOC_WRITE_PER_WORD).saturating_sub(paced);
        if waited > 0 {
            self.add_alloc_write_excess(waited);
        }
        waited
    }

    /// The instance of the `for` or `while` loop whose iteration began at `mark` exited.
    pub(crate) fn loop_instance_exited(&mut self, mark: &IterationMark) {
        self.branches.instance_exited(mark.instance_branches);
    }

    /// The instance of function `fid`, a loop, begun by the level returning now, returned or
    /// raised.
    #[inline(never)]
    pub(crate) fn loop_left(&mut self, fid: FunId) {
        let began = self.loops[fid as usize].iteration.instance_branches;
        self.branches.instance_exited(began);
    }

    /// Function `fid`, a loop, was entered (not jumped back to): its first iteration begins.
    #[inline(always)]
    pub(crate) fn loop_entered(&mut self, fid: FunId) {
        let (mark, issued) = (self.iteration_mark(), self.issued);
        let state = &mut self.loops[fid as usize];
        state.iteration = mark;
        state.level_began = issued;
        state.level_allocated = crate::heap::written_and_stored_words().1;
        state.level_alloc_waited = mark.alloc_waited;
    }

    /// A self call of `fid` (carrying `chain` cycles) ended an iteration of its loop, or a
    /// level of a linear recursion's way down.
    #[inline(never)]
    pub(crate) fn loop_iteration_ended(&mut self, fid: FunId, chain: Chain, kind: Iteration) {
        let clocks = self.clocks();
        let state = &mut self.loops[fid as usize];
        let ran = advance(&mut state.iteration, &clocks, &mut self.iterated);
        state.level_began = clocks.issued;
        state.level_allocated = clocks.stored;
        let waited = self.weigh_iteration(&chain, ran, kind);
        let alloc_waited = self.alloc_waited;
        let state = &mut self.loops[fid as usize];
        state.iteration.alloc_waited += waited;
        state.level_alloc_waited = alloc_waited;
    }

    /// A non-tail self call of `fid` returned, carrying `chain` cycles from its result to the
    /// function's return. The way back of a recursion runs after the way down, one level after
    /// another: a level's chain binds beyond the instructions issued since the last self call
    /// of `fid` entered or returned (the code after the call, or the base case). Its calls'
    /// shadow was weighed with the way down. The words such a level allocates are written at
    /// the minor heap's pace, as a loop iteration's are, beside the level's instructions and
    /// the hold of its call and return ([`CALL_HOLD`]). Measured at 1000 levels (1 run):
    /// `n :: build (n - 1)` runs 2.0 ns a level, 0.4 ns more than `1 + count (n - 1)`, about
    /// what the cons's instructions take, so its 3 words wait on nothing; a level consing a
    /// pair (6 words) or two cells runs 3.8 or 3.5 ns, 2.0–2.2 ns more, of which 5 cycles are
    /// the words beyond the hold. Only the program's own stores count: a blit's words (`w ^
    /// "," ^ join rest`) are the C library's, and counted they put `str_concat` at 100 words
    /// from −9% to +17%. Inline in its one caller, [`Machine::level_returned`], which is kept
    /// out of `invoke`'s frame itself.
    #[inline(always)]
    pub(crate) fn loop_returned(&mut self, fid: FunId, chain: &Chain) {
        let (issued, stored) = (self.issued, crate::heap::written_and_stored_words().1);
        let state = &mut self.loops[fid as usize];
        let began = std::mem::replace(&mut state.level_began, issued);
        let words = stored.saturating_sub(std::mem::replace(&mut state.level_allocated, stored));
        // What loops the level called waited on their own words is time it already took.
        let inner_waited = self.alloc_waited - state.level_alloc_waited;
        let instructions = issued - began;
        let counted = excess(chain.cycles(), instructions, OVERLAP_WINDOW);
        self.add_chain(counted, chain);
        let paced = (instructions * ISSUE_WIDTH / ALLOC_ISSUE_WIDTH)
            .max(instructions + counted)
            .max(CALL_HOLD)
            + inner_waited;
        self.wait_for_writes(words, paced);
        self.loops[fid as usize].level_alloc_waited = self.alloc_waited;
    }

    /// A non-tail self call of `fid` is made: whether the recursion is now deep enough for the
    /// chain of its way down to bind ([`RECURSION_WINDOW`]).
    #[inline(always)]
    pub(crate) fn recursion_descends(&mut self, fid: FunId) -> bool {
        let state = &mut self.loops[fid as usize];
        state.depth += 1;
        state.depth > RECURSION_WINDOW
    }

    /// The non-tail self call of `fid` returned (or raised).
    #[inline(always)]
    pub(crate) fn recursion_ascends(&mut self, fid: FunId) {
        self.loops[fid as usize].depth -= 1;
    }
}
