//! Integer arithmetic on a chain, and the one case where ocamlopt's order of evaluation
//! changes what the chain carries: a load of what the iteration before stored, issued after a
//! multiply whose product it is added to.
//!
//! An integer the last iteration stored to memory and this one loads — a field of the tuple
//! the last iteration built (`stats t (c + 1, s + x, q + x * x)` matched as `(c, s, q)`), a
//! mutable field of a record bound before the loop (`r.q <- r.q + i * i`) — costs nothing
//! more than the add on this core when the load comes first: the store and the load are
//! renamed away (the `tuple` templates rotate a tuple's fields at the add's speed). ocamlopt
//! evaluates a binary operation's right operand first, so in `q + x * x` the load of `q` is
//! issued after the `imul`, and then it waits for the store: measured with `mlcost bench`
//! (30 000 iterations, 2 layouts, ratios within each of four runs), the triple accumulator
//! runs at 10.3–10.9 cycles an iteration against 4.8 for `x * x + q`, a pair 10.1 against
//! 4.1, the record 8.9 against 2.5, an array element `a.(2)` 9.0 against 2.9 (the runs were
//! disturbed more than half the time, so the cycles are high; the ratios hold). A field loaded
//! after a shift, an `lea` (`n * 5`), a division by a constant, or a multiply whose product
//! was bound by a `let` before (so the product is ready long before the load) runs at the fast
//! speed; so does a field used twice, which ocamlopt loads once where the pattern binds it,
//! before any of the arithmetic. The wait is counted as a store forwarded to its load
//! ([`crate::latency_table::Walk::late_forwarded`]), `ForwardChainCycle`'s kind, which the
//! fit prices on the machine it runs on. An array element at a constant index (`a.(2) <-
//! a.(2) + i * i`) is not counted: the walk carries only elements named relative to a `for`
//! loop's counter, whose forwarded loads it counts in every order already.

use super::{plus, Lat, Walker};
use crate::ir::*;
use crate::latency_table::is_float_op;

impl Walker<'_> {
    /// The latency of a binary operation's result.
    pub(super) fn op2(&mut self, node: &mut Op2Node) -> Lat {
        let float = is_float_op(node.op) || matches!(node.op, Op2::FloatCall(_));
        let late = !float && multiply_in_flight(&node.rhs);
        let (a, b) = if late {
            let b = self.operand(&mut node.rhs, float);
            let at = self.calls_made;
            let a = self.late_operand(&mut node.lhs);
            (a, self.across_calls(b, at))
        } else {
            let a = self.operand(&mut node.lhs, float);
            let at = self.calls_made;
            let b = self.operand(&mut node.rhs, float);
            (self.across_calls(a, at), b)
        };
        // ocamlopt computes `a * b` as `(a - 1) * (b asr 1) + 1`: the right operand's
        // untagging shift delays it 3 cycles, the left one's decrement not at all
        // (this core's renamer folds it; measured, `latency_table::op2_cycles`).
        let b = if node.op == Op2::Mul { plus(&b, 3) } else { b };
        let result = plus(&super::join(&a, &b), self.known.walk.op2(node.op));
        if matches!(
            node.op,
            Op2::FAdd | Op2::FSub | Op2::FMul | Op2::FDiv | Op2::FloatCall(_)
        ) {
            self.last_float = result.clone();
        }
        result
    }

    fn operand(&mut self, code: &mut Code, float: bool) -> Lat {
        let l = self.lat(code);
        // A float held in a variable (unless unboxed) or returned by a call is boxed:
        // reading it is a load.
        let boxed = float
            && match code {
                Code::Local(s) | Code::TakeLocal(s) => !self.unboxed.contains(s),
                Code::App(_) => true,
                _ => false,
            };
        if boxed {
            plus(&l, self.known.walk.forwarded_load())
        } else {
            l
        }
    }

    /// The left operand of an operation whose right one multiplies: a field the pattern
    /// loads where it is used, or a record's field the loop stores, waits for the store.
    fn late_operand(&mut self, code: &mut Code) -> Lat {
        match code {
            Code::Local(s) | Code::TakeLocal(s) if self.loaded_at_use.contains(s) => {
                let l = self.lat(code);
                plus(&l, self.known.walk.late_forwarded())
            }
            Code::Imp(_) => {
                self.late_load = true;
                let l = self.lat(code);
                self.late_load = false;
                l
            }
            _ => self.lat(code),
        }
    }

    /// Marks the variables `pat` binds to fields of the value matched that `body` reads once:
    /// ocamlopt loads those where they are read, not where the pattern binds them.
    pub(super) fn note_field_loads(&mut self, pat: &Pat, body: &Code) {
        for slot in crate::liveness::field_slots(pat) {
            if crate::liveness::uses(body, slot) == 1 {
                self.loaded_at_use.insert(slot);
            } else {
                self.loaded_at_use.remove(&slot);
            }
        }
    }
}

/// Whether computing `code` ends in a multiply of two variables still in flight when the
/// operation that uses it issues: through integer operations, not through a `let` (whose
/// product is computed before) or a call.
fn multiply_in_flight(code: &Code) -> bool {
    match code {
        Code::Op2(node) => {
            node.op == Op2::Mul
                || (!is_float_op(node.op)
                    && (multiply_in_flight(&node.lhs) || multiply_in_flight(&node.rhs)))
        }
        Code::Op1(_, operand) => multiply_in_flight(operand),
        _ => false,
    }
}
