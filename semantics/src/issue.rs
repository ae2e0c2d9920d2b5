//! How long an iteration takes to issue, so that a loop's chain is counted only where it binds.
//!
//! A loop runs at the speed of whichever is slower: issuing its instructions, or waiting on
//! the chain of dependent operations one iteration carries into the next ([`crate::chain`]).
//! `length`'s walk issues 7 instructions an iteration and waits 4 cycles on each cell's load;
//! `for_all`'s issues 28 around the same load, and the load's latency hides behind them. So
//! `ChainCycle` counts, per iteration, only the cycles of the chain beyond the iteration's
//! instructions at [`ISSUE_WIDTH`] a cycle: the excess over the throughput the other
//! constructs' costs already price.
//!
//! A call does the opposite. A call and its return hold the front end about five cycles
//! whatever the callee does (four independent calls of `id` take 5.3–6.3 ns, four chained ones
//! 6.0–6.5 ns), and the rest of a short iteration issues in their shadow: `for_all`'s 27
//! instructions and its call run in 1.8 ns an element, `length`'s 9 without a call in 1.7.
//! So `CallShadow` counts, per iteration, the instructions other than control transfers
//! ([`CONTROL`]) that [`SHADOW_PER_CALL`] per call can hide; the time model takes them back
//! out of what ordinary instructions cost (`fit::structured`). For the same reason a loop's
//! iteration lasts at least [`CALL_HOLD`] per call it makes, and its chain binds only beyond
//! that.
//!
//! The interpreter keeps clocks of the instructions issued ([`instructions`] per construct
//! counted), of the calls made and of the control transfers' instructions, and each loop reads
//! them where an iteration ends: the counts between two readings are exactly what that
//! iteration ran, callees included. A recursive function's first iteration begins at its
//! entry, a `for` or `while` loop's at the loop.

use crate::catalogue::{Counter, COUNTER_COUNT};
use crate::ir::Chain;
use crate::latency_table::SHARE_ONE;
use crate::machine::Machine;

mod iteration;
pub(crate) use iteration::{Iterated, LoopState};

/// Instructions a cycle the processor issues when nothing waits: this host's Golden Cove
/// cores rename and allocate six a cycle. The fitted price of an ordinary instruction says the
/// same (about a sixth of a cycle, one default run). At four, an iteration's issue was counted
/// at half again its time, so a chain was counted to bind by less than it does: Mandelbrot's
/// escape loop (24 instructions around a 10-cycle chain) came out at 6 cycles an iteration
/// where it takes 9.8. Recounted on run L's measurements (1 run, NNLS): controls 14.5% → 14.1%
/// without GC, leave-one-program-out 19.1% → 17.9% (five and eight a cycle did worse).
pub(crate) const ISSUE_WIDTH: u64 = 6;

/// The instructions ocamlopt 4.13 emits on amd64 for one construct, rounded: the instruction
/// model's constants (NNLS, one default run on this project's machine, valgrind counts) where
/// the construct runs code of its own, and 0 for what only waits (mispredictions, misses,
/// chains) or is the collector's work. Only the ratio of a loop's instructions to its chain
/// depends on them, so a rounding of ±1 moves no loop from one regime to the other.
const fn instructions(c: Counter) -> u8 {
    use Counter::*;
    match c {
        AllocWriteCycle | BranchMiss | CallShadow | ChainCycle | DividerCycle
        | DivisionChainCycle | ForwardChainCycle | FarLoad | FarStackWord | FarStreamWord
        | FloatChainCycle | FloatMergeCycle | DivisionRampCycle | RampCycle | JumpMiss
        | LetLambda | MajorWord | MemoryLoad | PromotedWord | ReturnMiss | ScannedFrame => 0,
        // Negative in truth (three instructions fewer than the block's construct counts), but
        // the clock only moves forward; three instructions do not move a loop between regimes.
        AllocMerged => 0,
        AddToField | Base | BytesCopyWord | FieldSet | FloatAdd | IndirectCall | IndirectJump
        | IntAdd | IntDivReused | IntSub | LetRec | SelfTailApp | Spill | TupleElem
        | TupleMatch | WhileIter => 1,
        FloatDiv | FloatMult | FloatSqrt | FloatSub | FloatUMinus | Frame | FunApp | IntCondEq
        | IntCondGE | IntCondGT | IntCondLT | IntLand | IntLor | IntMultConst | IntOfFloat
        | IntUMinus | LetData | Raise | VariantElem => 2,
        ArrayGetKnownLength | BoolNot | BytesUnsafeSet | CondValue | IntCondLE | IntLsl
        | IntLxor | IntModReused | IntMult | LoopPoll | StringUnsafeGet => 3,
        Closure | FloatCondGE | FloatCondGT | FloatCondLE | FloatCondLT | FloatOfInt | IntAsr
        | IntLsr | PatternMatch | TailApp => 4,
        ArrayGet | BoolAnd | BoolOr | FloatCondEq | ForIter | StringGetKnownLength | TableJump
        | TupleHead => 5,
        ArrayLength | ArrayMakeWord | ArraySet | StringLength => 6,
        FloatBox | IntCompare | IntDivPow2 | IntModPow2 | TryWith => 7,
        Cons | FunDef | IntDivConst => 8,
        StringGet | VariantHead => 9,
        IntModConst | StringSet => 10,
        ApplyN | IntDiv | IntMod => 11,
        ArrayBarrierWord => 12,
        ArrayInitWord | FloatCompare => 24,
        BytesCopy => 34,
        PolyCompare => 42,
        BytesCreate => 54,
        // caml_c_call, the format parsed, snprintf, the copy: about 875 under valgrind (the
        // table's most), and 19 a character printed.
        FormatInt => 255,
        FormatIntChar => 19,
        PolyCompareStep => 31,
        BoolTest => 2,
        BackEdgePoll => 2,
        PolyCompareBlock => 21,
        CamlModify => 66,
        // The young path's early exit: 15 under valgrind, against the old path's 71.
        CamlModifyYoung => 15,
        ArrayMake => 94,
        ArrayCopy => 153,
        // The C library's code under valgrind (a loop of `f (float_of_int i *. 0.0137)`, its
        // own 12 instructions taken off): `floor`, `ceil` 6, `copysign` 11, `Float.trunc` 16,
        // `Float.round` 26; `exp`, `log` 55, `hypot` 58; `**` 130; `mod_float` 120 (quotients
        // below 40); `atan` 73, `tanh` 79, `sin` 98, `cos`, `tan` 102, `sinh` 109, `atan2` 144.
        FloatRoundCall => 10,
        FloatExpLogCall => 55,
        FloatPowCall => 130,
        FloatFmodCall => 120,
        // glibc's loop: `sub`, `test`, a branch, the shift and the count, about six a step.
        FloatFmodBit => 6,
        FloatTrigCall => 100,
    }
}

/// [`instructions`] indexed by counter, for the interpreter's hot path.
pub(crate) static INSTRUCTIONS: [u8; COUNTER_COUNT] = {
    let mut table = [0u8; COUNTER_COUNT];
    let mut i = 0;
    while i < COUNTER_COUNT {
        table[i] = instructions(crate::catalogue::counter_at(i));
        i += 1;
    }
    table
};

/// The calls whose shadow hides other instructions: a call and its return (`FunApp`). A call
/// through `caml_applyN` is one call and one return too: 4.13's `caml_apply2` checks the
/// closure's arity and jumps to its code (`jmp *%rsi`), whose `ret` goes straight back to the
/// caller, so its dispatch (`ApplyN`) is ordinary code with no shadow of its own. (Counted as
/// a second call until session 25, it let `fold_left`'s closure call hide 36 instructions;
/// recounted without it, runs W and X: controls with GC 17.5% → 16.7% and 17.7% → 16.9%.)
pub(crate) const CALLS: [Counter; 1] = [Counter::FunApp];

/// Control transfers: their instructions are what holds the front end, not what it hides
/// (the time model prices them apart, not by their instructions). `caml_applyN`'s arity check
/// is not among them: it is ordinary code, priced by its instructions, and hides as well.
pub(crate) const CONTROL: [Counter; 7] = [
    Counter::FunApp,
    Counter::TailApp,
    Counter::IndirectCall,
    Counter::IndirectJump,
    Counter::SelfTailApp,
    Counter::PatternMatch,
    Counter::TableJump,
];

/// Instructions a call can hide: about five cycles of a 4-wide front end, less its own two.
/// (Offline on one default run's measurements, 12, 18 and 24 gave the same training error
/// within half a point.)
pub(crate) const SHADOW_PER_CALL: u64 = 18;

/// How long a call and its return hold the front end, in [`ISSUE_WIDTH`]ths of a cycle: five
/// cycles (`for_all`'s element, 27 instructions around one call, takes 1.8 ns: about five
/// cycles of this host's 2.7 GHz). A loop iteration lasts at least that per call it
/// makes, so a chain binds only beyond it: `fold_left`'s, `exists`'s and `for_all`'s walk
/// (a 5-cycle load from cell to cell) hides behind the call of `f`, and a tree evaluator's
/// recursion behind its calls. Counted beyond the instructions alone, those chains
/// overpredicted `expr_eval` by 26–32% and the list walks calling a closure by 10–21%.
/// Recounted on runs R4 and R5's measurements (NNLS): controls without GC 10.50 → 10.05% and
/// 10.16 → 9.22%, with GC 11.93 → 11.87% and 11.91 → 11.78% (four and six cycles did worse).
/// Not for a linear recursion's levels, whose calls are the recursion itself: with it,
/// `append`'s way down (`hd :: append tl l2`) went from −20% to −25%.
///
/// Calibrated on session 41's host. On the Intel host of sessions 47–50 a direct call holds
/// the front end far less (`callshadow_0`, a call and its loop, 2.1 cycles an iteration; two
/// calls of `id` in 2.6), and a list walk calling a known function runs 1.3 cycles an element
/// slower than one calling a closure, whose chain this hold hides as measured. Lower holds
/// were tried (0 or 2 cycles for every call, 0 for a direct call only): the known-call walks
/// −50% → −23%, but the controls 10.9% → 11.3–11.6% (`expr_eval` +27%). See docs/latency.md,
/// "Loops that keep their variables in the frame".
pub(crate) const CALL_HOLD: u64 = 5 * ISSUE_WIDTH;

/// How long the minor heap takes a word an iteration allocates, in [`ISSUE_WIDTH`]ths of a
/// cycle: 1⅔ cycles. The minor heap (2 MB) is this host's level 2, so every line an
/// allocation writes has left the level 1 since it was last written, and comes back at about
/// 3 ns a line: a tail loop that builds a tuple of k ints per iteration and does little else
/// takes 1.2 ns at 2 fields and 5.0 at 12 (`AllocWriteCycle`'s catalogue entry has the
/// figures), a third of that with a minor heap the level 1 holds. Each size's time beyond the
/// model's price of its instructions, at a cycle of 0.22 ns (a multiply chain's 5 cycles in
/// 1.09 ns), over its words less its instructions at [`ALLOC_ISSUE_WIDTH`]: 1.7 cycles a word
/// at the median of the eleven sizes (1.2 for the blocks of 4 and 8 words, which never
/// straddle a line, to 2.0).
pub(crate) const ALLOC_WRITE_PER_WORD: u64 = 10;

/// Instructions a cycle an allocating loop issues beside its writes: the pace the fitted price
/// of an instruction says (0.06 ns against a cycle of 0.22), not the rename width a chain is
/// weighed against ([`ISSUE_WIDTH`]). Against six a cycle, a list walk building a cell an
/// element (3 words, 20 instructions) would count a cycle of writing an element that the
/// processor spends issuing.
pub(crate) const ALLOC_ISSUE_WIDTH: u64 = 4;

/// The instructions an iteration's calls hide: its `other` instructions (not control
/// transfers), up to [`SHADOW_PER_CALL`] per call.
#[inline(always)]
pub(crate) fn shadowed(other: u64, calls: u64) -> u64 {
    other.min(SHADOW_PER_CALL * calls)
}

/// The levels of a linear recursion whose way down carries no chain that binds: a recursion
/// this shallow fits in the processor's window (512 micro-operations here, some 15 a level)
/// with the independent work around it, which overlaps it. Measured on the controls (one
/// default run's measurements, recounted): `digit_sum`, five levels of `x / 10` a number, is
/// missed by +42% when every level counts its way down, and by −10% (as without that chain)
/// with a window of 16 or 32 levels. The way back is not windowed: `power`, 10 to 20 levels
/// of a multiply and a remainder on its result, goes from −10% to −30% when its chain back is
/// left out.
pub(crate) const RECURSION_WINDOW: u32 = 32;

/// The instructions a loop instance (one run of a `for` or `while` loop, one call of a
/// self-tail-recursive function from outside) issues before its chain binds in full: the
/// processor's reorder window (512 micro-operations on this host's cores). Until the window is
/// full, the instructions after the loop — the next instance of a short inner loop, the outer
/// loop's work — issue beside the chain and overlap it. Horner's rule over 13 coefficients
/// (a multiply and an add through a boxed accumulator, 13 cycles an iteration, 20
/// instructions) takes 5 cycles an iteration when called for one point after another; counted
/// in full, its chain overpredicted it by 83%. Only where the instance began after a branch
/// the processor predicted, though: after a mispredicted one — the exit of Mandelbrot's escape
/// loop, after a different number of iterations at every point — the pipeline restarts at the
/// instance, nothing of the code before runs beside it, and its chain binds from the first
/// iteration ([`crate::branch_trace::Misses::unramped`]).
pub(crate) const OVERLAP_WINDOW: u64 = 512;

/// How long a divider stays busy per operation, in cycles: it starts a `divsd` every 4 cycles
/// and a `sqrtsd` every 6 (Golden Cove's reciprocal throughputs), and an `idivq` every 10
/// (measured, session 48: 30 000 iterations of one remainder by a variable and little else ran
/// 2.69 ns an iteration, of two 5.37 ns, on a host disturbed most of the time). The rest of an
/// iteration issues beside it: trial division (`n mod d` in a short loop, a raise per
/// composite) runs in the divider's time, and was overpredicted by 55% at 250 with the other
/// instructions' costs added to the remainders'. The fit prices the cycle.
const DIVIDER_BUSY: [(Counter, u64); 4] = [
    (Counter::FloatDiv, 4),
    (Counter::FloatSqrt, 6),
    (Counter::IntDiv, 10),
    (Counter::IntMod, 10),
];

/// What an iteration that ended was, for how much of its chain the code around it overlaps.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Iteration {
    /// Of a loop (or a tail recursion, or a tree recursion's level): its chain ramps in over
    /// the instance's first [`OVERLAP_WINDOW`] instructions.
    Loop,
    /// A level of a linear recursion's way down within [`RECURSION_WINDOW`] levels of its
    /// top: its chain overlaps the code around the recursion.
    ShallowLevel,
    /// A level deeper than that: its chain binds.
    DeepLevel,
}

/// The operations of the dividers: a chain of them binds however many shallow recursions
/// overlap (an extended Euclid recursing a dozen levels per pair, −31% with its way down left
/// to the recursion window). One in a short loop instance may overlap the next on some cores:
/// on the Intel host `gcd`'s remainders, one pair after another, ran at the chain's pace
/// (−52% with the overlap window applied to them), on Zen 3 two chains at once; and on the
/// Intel host `newton`'s float divisions, a few a point, overlap the next point's (24 ns a
/// point where its chain in full is 40). So what the window leaves out of a dividing instance
/// is counted apart (`DivisionRampCycle`) for the fit to price.
const DIVIDER: [Counter; 4] = [
    Counter::IntDiv,
    Counter::IntMod,
    Counter::FloatDiv,
    Counter::FloatSqrt,
];

/// The chain cycles one iteration adds beside its issue, in `ISSUE_WIDTH`ths of a cycle:
/// `chain` cycles carried, `issued` instructions run since the iteration began, `instance`
/// since its loop instance began. The chain ramps in over the first [`OVERLAP_WINDOW`]
/// instructions of the instance, as the window it overlaps with fills.
#[inline(always)]
pub(crate) fn excess(chain: u32, issued: u64, instance: u64) -> u64 {
    excess_within(chain, issued, instance, OVERLAP_WINDOW)
}

/// [`excess`] for a reorder window of `window` instructions.
#[inline(always)]
fn excess_within(chain: u32, issued: u64, instance: u64, window: u64) -> u64 {
    let full = chain as u64 * ISSUE_WIDTH;
    let bound = if instance >= window {
        full
    } else {
        full * instance / window
    };
    bound.saturating_sub(issued)
}

/// The smallest reorder window a short loop instance meets, in instructions: what the code
/// after an instance overlaps of its chain on Zen 3, whose Horner over 13 coefficients (some
/// 200 instructions an instance) runs 15% faster an iteration than over 104, where a window of
/// [`OVERLAP_WINDOW`] would hide two thirds of it. The chain the ramp over this window would
/// count beyond the ramp over [`OVERLAP_WINDOW`] is `RampCycle`, which the fit prices on the
/// machine measured: a chain cycle's price where the window is this small, nothing where it
/// is the Intel host's.
pub(crate) const SMALL_OVERLAP_WINDOW: u64 = 80;

/// What counting one construct adds to the clocks other than `issued`: a call (`calls`), the
/// instructions of a control transfer (`control`), an operation of the divider (`divisions`)
/// and the cycles it keeps the float divider busy (`busy`).
#[derive(Clone, Copy)]
pub(crate) struct ClockStep {
    calls: u8,
    control: u8,
    divisions: u8,
    busy: u8,
}

impl ClockStep {
    /// Whether the step moves any clock: most constructs move none.
    #[inline(always)]
    fn moves(self) -> bool {
        u32::from_ne_bytes([self.calls, self.control, self.divisions, self.busy]) != 0
    }
}

/// [`ClockStep`] per counter, from [`CALLS`], [`CONTROL`], [`DIVIDER`] and [`DIVIDER_BUSY`].
static CLOCK_STEPS: [ClockStep; COUNTER_COUNT] = {
    let mut table = [ClockStep {
        calls: 0,
        control: 0,
        divisions: 0,
        busy: 0,
    }; COUNTER_COUNT];
    let mut i = 0;
    while i < CALLS.len() {
        table[CALLS[i] as usize].calls = 1;
        i += 1;
    }
    i = 0;
    while i < CONTROL.len() {
        table[CONTROL[i] as usize].control = INSTRUCTIONS[CONTROL[i] as usize];
        i += 1;
    }
    i = 0;
    while i < DIVIDER.len() {
        table[DIVIDER[i] as usize].divisions = 1;
        i += 1;
    }
    i = 0;
    while i < DIVIDER_BUSY.len() {
        table[DIVIDER_BUSY[i].0 as usize].busy = DIVIDER_BUSY[i].1 as u8;
        i += 1;
    }
    table
};

/// The clocks, and where loops read them.
impl Machine<'_> {
    /// Starts counting afresh (after `input`, after the prelude). The clocks and the loops'
    /// marks go on: only differences of them are read.
    pub(crate) fn reset_counts(&mut self) {
        self.counts = [0; COUNTER_COUNT];
        self.chain_fraction = 0;
        self.divider_fraction = 0;
        self.alloc_write_fraction = 0;
        self.young_modify_excess = 0.0;
    }

    /// Moves the clocks by `n` counts of `c`. They are kept running as constructs are
    /// counted, not summed from the counters where an iteration ends: every iteration of
    /// every loop reads them, twice (summed, they were a sixth of `fapp`'s instructions).
    #[inline(always)]
    pub(crate) fn tick_clocks(&mut self, c: Counter, n: u64) {
        let step = CLOCK_STEPS[c as usize];
        if step.moves() {
            self.calls += step.calls as u64 * n;
            self.control += step.control as u64 * n;
            self.divisions += step.divisions as u64 * n;
            self.divider_busy += step.busy as u64 * n;
        }
    }

    /// Counts `excess` sixths of a cycle of the divider's, whole cycles as `DividerCycle`.
    #[inline(always)]
    fn add_divider_excess(&mut self, excess: u64) {
        self.counts[Counter::DividerCycle as usize] +=
            whole_cycles(&mut self.divider_fraction, excess);
    }

    /// Counts `excess` sixths of a cycle spent writing fresh lines, whole cycles as
    /// `AllocWriteCycle`.
    #[inline(always)]
    fn add_alloc_write_excess(&mut self, excess: u64) {
        self.alloc_waited += excess;
        self.counts[Counter::AllocWriteCycle as usize] +=
            whole_cycles(&mut self.alloc_write_fraction, excess);
    }

    #[inline(always)]
    pub(crate) fn add_chain_excess(&mut self, excess: u64) {
        self.counts[Counter::ChainCycle as usize] += whole_cycles(&mut self.chain_fraction, excess);
    }
}

/// Where `DivisionChainCycle` sits in [`CHAIN_KINDS`].
pub(crate) const DIVISION_KIND: usize = 2;

/// The constructs that the parts of a chain's excess other than `ChainCycle`'s go to, in the
/// order of [`Chain::shares`].
const CHAIN_KINDS: [Counter; 4] = [
    Counter::FloatMergeCycle,
    Counter::FloatChainCycle,
    Counter::DivisionChainCycle,
    Counter::ForwardChainCycle,
];

impl Machine<'_> {
    /// Counts `excess` sixths of a cycle of `chain` as a whole in `ChainCycle`, and the parts
    /// of it that `chain`'s kinds make: kept in sixths on their own counters until the run
    /// ends ([`split_chain_kinds`]), so that rounding takes nothing from the whole.
    #[inline(always)]
    fn add_chain(&mut self, excess: u64, chain: &Chain) {
        // The fraction carried over is always less than a cycle: adding nothing counts none.
        if excess == 0 {
            return;
        }
        self.add_chain_excess(excess);
        for (counter, &share) in CHAIN_KINDS.iter().zip(&chain.shares) {
            self.counts[*counter as usize] += excess * share as u64 / SHARE_ONE;
        }
    }
}

/// At the end of a run, moves the whole cycles of each kind's sixths ([`CHAIN_KINDS`]) from
/// `ChainCycle` to the kind's own construct.
pub(crate) fn split_chain_kinds(counts: &mut [u64; COUNTER_COUNT]) {
    for counter in CHAIN_KINDS {
        let whole =
            (counts[counter as usize] / ISSUE_WIDTH).min(counts[Counter::ChainCycle as usize]);
        counts[Counter::ChainCycle as usize] -= whole;
        counts[counter as usize] = whole;
    }
}

/// Adds `excess` sixths of a cycle to the `fraction` carried over, returning the whole cycles
/// it now holds and keeping the rest.
#[inline(always)]
fn whole_cycles(fraction: &mut u64, excess: u64) -> u64 {
    *fraction += excess;
    let whole = *fraction / ISSUE_WIDTH;
    *fraction -= whole * ISSUE_WIDTH;
    whole
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_binds_only_beyond_its_iterations_issue() {
        // A list walk: 4 cycles of load, 7 instructions (7/6 cycles) → 17/6 cycles beyond.
        assert_eq!(excess(4, 7, OVERLAP_WINDOW), 17);
        // 28 instructions issue in 4⅔ cycles: the 4-cycle load hides behind them.
        assert_eq!(excess(4, 28, OVERLAP_WINDOW), 0);
        assert_eq!(excess(0, 0, OVERLAP_WINDOW), 0);
        // Half a window into its instance, half the chain binds.
        assert_eq!(excess(4, 7, OVERLAP_WINDOW / 2), 5);
    }

    #[test]
    fn calls_hide_up_to_a_bound_of_the_other_instructions() {
        // `for_all`: 20 instructions beside its call's; one call hides 18 of them.
        assert_eq!(shadowed(20, 1), 18);
        assert_eq!(shadowed(20, 2), 20);
        assert_eq!(shadowed(20, 0), 0);
    }

    #[test]
    fn only_waiting_has_no_instructions() {
        assert_eq!(INSTRUCTIONS[Counter::ChainCycle as usize], 0);
        assert_eq!(INSTRUCTIONS[Counter::BranchMiss as usize], 0);
        assert_eq!(INSTRUCTIONS[Counter::FunApp as usize], 2);
        assert!(INSTRUCTIONS[Counter::Cons as usize] > INSTRUCTIONS[Counter::IntAdd as usize]);
    }
}
