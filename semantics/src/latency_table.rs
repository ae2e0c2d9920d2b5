//! The latencies, in cycles, of ocamlopt 4.13's amd64 sequences on this project's machine (a
//! Golden Cove core): what each operation adds to a chain a loop carries ([`crate::chain`]).
//! Only their ratios to one another and to the issue width ([`crate::issue`]) matter: the fit
//! prices the cycle.

use crate::ir::{Op1, Op2};

/// A load that hits the level-1 cache, as a walk from one cell to the next waits on it
/// (calibrated with the operations: see [`op2_cycles`]).
pub(crate) const LOAD: u32 = 5;
/// What a float boxed by one iteration and unboxed by the next adds to the load: the store
/// whose result the load waits for.
pub(crate) const BOX: u32 = 2;
/// An integer the iteration before stored, loaded after a multiply whose product it is added
/// to (`q + x * x`): the load and its wait for the store, which a load issued before the
/// multiply does not make (see [`crate::chain`]'s `late_load`). `mlcost bench` measured the
/// chain with its add at 8.9 cycles an iteration for a record's field and 10.1 to 10.9 for a
/// pair's and a triple's, on a machine disturbed more than half the time, which makes these
/// slow; the `stats` control, measured quieter, runs its whole iteration in 8 to 9 cycles.
pub(crate) const LATE_FORWARD: u32 = 8;

/// Cycles of one binary operation as ocamlopt 4.13 selects it on amd64, on tagged integers.
///
/// Calibrated on the training templates that carry one kind of operation on their chain
/// (`chain_*`, `*_chain`; one default run, 8 layouts): each kind is worth the cycles that put
/// its templates' time beyond issue on one line with the others' — the fit then prices that
/// line's cycle. Against the latencies of the instruction tables, the constant divisions and
/// remainders come out slower (a multiply-high, shifts and a correction, all on the chain),
/// `idiv` faster (its latency depends on the operands, here small). A multiply of two tagged
/// values, `(a - 1) * (b asr 1) + 1`, was measured alone, 10⁸ iterations of a loop carrying
/// it: 3 cycles through its left operand (`acc * n`: the `imul`; this core's renamer folds
/// the decrement and the retagging increment, as a chain of `add $1` runs three to a cycle
/// here), 6 through its right one (`n * acc`: the untagging shift before the `imul` costs 3
/// more), also on a recursion's way back (`n * f (n - 1)` 0.79 ns a level slower than
/// `f (n - 1) * n`); see `Code::Op2` in [`crate::chain`].
/// The same folding makes a subtraction's retagging `add $1` free: `acc - n - k - n - k`,
/// four `sub` and one `add $4`, runs in 4 cycles an iteration (the `intsub` template, counted
/// at 2 a subtraction it was overpredicted by 57%). Floats: this core adds in 2 cycles on its
/// fast adders and multiplies in 4 (a sum of two array elements a step, `arrayget_float`,
/// runs at 2 cycles an add).
pub(crate) fn op2_cycles(op: Op2) -> u32 {
    use Op2::*;
    match op {
        // `lea -1(a, b)`; `sub` then a free `add $1`; `and`, `or`.
        Add | Land | Lor | Sub => 1,
        // `xor` then `or 1`; shifts untag, shift, retag.
        Lxor | Lsl | Lsr | Asr => 2,
        // `imul` (the decrement and the retagging folded); through the right operand, its
        // untagging shift 3 more (see `lat`).
        Mul => 3,
        MulConst => 3,
        Div | Mod => 22,
        DivPow2 | ModPow2 => 6,
        DivConst => 9,
        ModConst => 14,
        // The dividend's path to the result is the same whichever sequence computed the
        // quotient first: only the instructions are shared.
        DivReused { pow2: true } | ModReused { pow2: true } => 6,
        DivReused { pow2: false } => 9,
        ModReused { pow2: false } => 14,
        FAdd | FSub => 2,
        FMul => 4,
        FDiv => 13,
        IntEq | IntNe | IntLt | IntLe | IntGt | IntGe | PhysEq | PhysNe | IntCompare => 2,
        FloatEq | FloatNe | FloatLt | FloatLe | FloatGt | FloatGe | FloatCompare => 3,
        PolyEq | PolyNe | PolyLt | PolyLe | PolyGt | PolyGe | PolyCompare => 10,
        FloatCall(call) => call.latency_cycles(),
    }
}

pub(crate) fn op1_cycles(op: Op1) -> Option<u32> {
    Some(match op {
        Op1::Not | Op1::Neg | Op1::FNeg | Op1::Succ | Op1::Pred => 1,
        // The compare and the branch are predicted; the negation is on the chain.
        Op1::Abs | Op1::FAbs | Op1::Lnot => 1,
        Op1::FSqrt => 13,
        Op1::Fst | Op1::Snd => LOAD,
        Op1::FloatOfInt | Op1::IntOfFloat => 4,
        Op1::FloatCall(call) => call.latency_cycles(),
        Op1::Ignore => return None,
    })
}

pub(crate) fn is_float_op(op: Op2) -> bool {
    use Op2::*;
    matches!(
        op,
        FAdd | FSub | FMul | FDiv | FloatEq | FloatNe | FloatLt | FloatLe | FloatGt | FloatGe
    )
}

/// One of the walks [`crate::chain`] makes over a program: the chains as this table gives
/// them (`Full`, made last), and the same chains with one kind of latency left out, which
/// tell how much of each chain that kind makes ([`Chain::shares`]). The kinds are those whose
/// cycles differ most from one core to another, so the fit prices each apart on the machine
/// it runs on: `cvtsi2sd`'s wait for the last float result (a chain of 40 cycles an iteration
/// of Simpson's rule on this table's Golden Cove core, none on an AMD Zen 3), the float
/// operations (Zen 3 adds in 3 cycles and multiplies in 3: 2 and 4 here), the integer
/// divisions by a variable (`idiv` on small operands: 22 here, about 11 on Zen 3), and a store
/// forwarded to the next iteration's load — a boxed float, a float field, an array element
/// (7 cycles here with the load; Zen 3 forwards a double in about 8, and the fit on its
/// measurements priced a float cycle 1.8 times an integer one while this kind was in the
/// float kind, where the add and the multiply alone would be 1.5 and 0.75).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Walk {
    WithoutMerge,
    WithoutMergeOrFloat,
    WithoutMergeOrDivision,
    WithoutMergeOrForward,
    Full,
}

impl Walk {
    /// In the order [`crate::chain::mark_chains`] makes them: `Full` last, when the others'
    /// cycles are on the IR to divide its chains by.
    pub(crate) const ALL: [Walk; 5] = [
        Walk::WithoutMerge,
        Walk::WithoutMergeOrFloat,
        Walk::WithoutMergeOrDivision,
        Walk::WithoutMergeOrForward,
        Walk::Full,
    ];

    /// Whether `cvtsi2sd` waits for the last float result.
    pub(crate) fn merges(self) -> bool {
        self == Walk::Full
    }

    /// The cycles of binary operation `op` in this walk.
    pub(crate) fn op2(self, op: Op2) -> u32 {
        match self {
            Walk::WithoutMergeOrFloat if is_float_latency(op) => 0,
            Walk::WithoutMergeOrDivision if matches!(op, Op2::Div | Op2::Mod) => 0,
            _ => op2_cycles(op),
        }
    }

    /// The cycles of unary operation `op` in this walk; `None`: it carries no chain.
    pub(crate) fn op1(self, op: Op1) -> Option<u32> {
        let float = matches!(
            op,
            Op1::FNeg | Op1::FAbs | Op1::FSqrt | Op1::FloatOfInt | Op1::IntOfFloat
        );
        match op1_cycles(op) {
            Some(_) if float && self == Walk::WithoutMergeOrFloat => Some(0),
            cycles => cycles,
        }
    }

    /// What a float boxed by one iteration and unboxed by the next adds to the load.
    pub(crate) fn boxed(self) -> u32 {
        if self == Walk::WithoutMergeOrForward {
            0
        } else {
            BOX
        }
    }

    /// A load whose value a store on the chain wrote, so that it waits on the store's
    /// forwarding: a boxed float's contents (the box stored by the iteration before), a
    /// value a loop keeps in its frame across a call.
    pub(crate) fn forwarded_load(self) -> u32 {
        if self == Walk::WithoutMergeOrForward {
            0
        } else {
            LOAD
        }
    }

    /// A load of what an earlier iteration stored to memory (a boxed float, a float field, an
    /// array element): the load and the store's forwarding to it.
    pub(crate) fn forwarded(self) -> u32 {
        self.forwarded_load() + self.boxed()
    }

    /// An integer the iteration before stored, loaded after a multiply ([`LATE_FORWARD`]).
    pub(crate) fn late_forwarded(self) -> u32 {
        if self == Walk::WithoutMergeOrForward {
            0
        } else {
            LATE_FORWARD
        }
    }
}

/// Float operations whose latency the float walk leaves out: arithmetic and comparisons.
fn is_float_latency(op: Op2) -> bool {
    use Op2::*;
    is_float_op(op) || op == FloatCompare
}

/// The chain a loop carries, in cycles of each walk ([`Walk`]), and the parts of the full
/// chain that the kinds make — `cvtsi2sd`'s wait, float operations, integer divisions, stores
/// forwarded to the next iteration's loads — in 65 536ths, which [`crate::issue`] counts apart
/// (`FloatMergeCycle`, `FloatChainCycle`, `DivisionChainCycle`, `ForwardChainCycle`), the rest
/// as `ChainCycle`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Chain {
    walks: [u32; 5],
    pub(crate) shares: [u32; 4],
}

impl Chain {
    /// The full chain's cycles.
    pub(crate) fn cycles(&self) -> u32 {
        self.walks[Walk::Full as usize]
    }

    /// Sets the chain of walk `walk`; the full walk, made last, divides it into shares.
    pub(crate) fn set(&mut self, walk: Walk, cycles: u32) {
        self.walks[walk as usize] = cycles;
        if walk == Walk::Full {
            self.shares = self.divide();
        }
    }

    /// The merge is what the walk without it loses; float operations, divisions and
    /// forwarded stores what leaving each out loses beyond that (scaled down together where
    /// they would exceed the chain without the merge, as when one chain is a division of
    /// floats).
    fn divide(&self) -> [u32; 4] {
        let full = self.cycles();
        if full == 0 {
            return [0; 4];
        }
        let [without_merge, without_float, without_division, without_forward, _] = self.walks;
        let without_merge = without_merge.min(full);
        let merge = full - without_merge;
        let mut parts = [without_float, without_division, without_forward]
            .map(|without| without_merge.saturating_sub(without) as u64);
        let together: u64 = parts.iter().sum();
        if together > without_merge as u64 {
            parts = parts.map(|part| part * without_merge as u64 / together);
        }
        let share = |part: u64| (part * SHARE_ONE / full as u64) as u32;
        let [float, division, forward] = parts.map(share);
        [share(merge as u64), float, division, forward]
    }
}

/// A whole chain in [`Chain::shares`].
pub(crate) const SHARE_ONE: u64 = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(walks: [u32; 5]) -> Chain {
        let mut chain = Chain::default();
        for (walk, cycles) in Walk::ALL.into_iter().zip(walks) {
            chain.set(walk, cycles);
        }
        chain
    }

    #[test]
    fn each_kind_is_what_leaving_it_out_loses() {
        // 24 cycles, 2 without the merge, 0 without it or the float add.
        let merge = chain([2, 0, 2, 2, 24]);
        assert_eq!(merge.cycles(), 24);
        assert_eq!(merge.shares, [22 * 65536 / 24, 2 * 65536 / 24, 0, 0]);
        // A boxed accumulator's add: 2 cycles of float add, 7 of forwarding, 9 in all.
        let accumulator = chain([9, 7, 9, 2, 9]);
        assert_eq!(accumulator.shares, [0, 2 * 65536 / 9, 0, 7 * 65536 / 9]);
        // A chain of integer adds and loads: no kind.
        assert_eq!(chain([7, 7, 7, 7, 7]).shares, [0; 4]);
        assert_eq!(chain([0, 0, 0, 0, 0]).shares, [0; 4]);
    }

    #[test]
    fn float_and_division_parts_are_scaled_to_fit_the_chain() {
        // Leaving out either kind leaves 5 of 20 cycles: together they cannot make 30, so
        // each makes half.
        let both = chain([20, 5, 5, 20, 20]);
        assert_eq!(both.shares, [0, 32768, 32768, 0]);
        assert!(both.shares.iter().map(|&s| s as u64).sum::<u64>() <= SHARE_ONE);
    }

    #[test]
    fn a_walk_without_a_kind_never_counts_more_of_it() {
        assert_eq!(Walk::WithoutMergeOrFloat.op2(Op2::FAdd), 0);
        assert_eq!(
            Walk::WithoutMergeOrFloat.op2(Op2::Div),
            op2_cycles(Op2::Div)
        );
        assert_eq!(Walk::WithoutMergeOrDivision.op2(Op2::Mod), 0);
        assert_eq!(
            Walk::WithoutMergeOrDivision.op2(Op2::DivConst),
            op2_cycles(Op2::DivConst)
        );
        assert_eq!(Walk::WithoutMergeOrFloat.op1(Op1::FSqrt), Some(0));
        assert_eq!(Walk::WithoutMergeOrFloat.op1(Op1::Ignore), None);
        assert_eq!(Walk::WithoutMergeOrFloat.boxed(), BOX);
        assert_eq!(Walk::WithoutMergeOrForward.forwarded(), 0);
        assert_eq!(
            Walk::WithoutMergeOrForward.op2(Op2::FAdd),
            op2_cycles(Op2::FAdd)
        );
        assert_eq!(Walk::Full.forwarded(), LOAD + BOX);
        assert_eq!(Walk::WithoutMergeOrForward.late_forwarded(), 0);
        assert_eq!(Walk::WithoutMergeOrFloat.late_forwarded(), LATE_FORWARD);
        assert!(Walk::Full.merges() && !Walk::WithoutMerge.merges());
    }
}
