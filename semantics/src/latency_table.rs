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
        FAdd | FSub => 2,
        FMul => 4,
        FDiv => 13,
        IntEq | IntNe | IntLt | IntLe | IntGt | IntGe | PhysEq | PhysNe | IntCompare => 2,
        FloatEq | FloatNe | FloatLt | FloatLe | FloatGt | FloatGe | FloatCompare => 3,
        PolyEq | PolyNe | PolyLt | PolyLe | PolyGt | PolyGe | PolyCompare => 10,
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
