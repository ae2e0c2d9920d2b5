//! Quotients by a constant that ocamlopt's CSE computes once. A division or remainder by a
//! literal is a reciprocal multiply (or, for 2^k, shifts and an add) that yields the quotient
//! first; the remainder is the dividend less the quotient times the divisor. CSE numbers
//! those pure operations, so where `x / k` or `x mod k` follows another of the two on the
//! same dividend and divisor, the second reuses the first's quotient: a division is its
//! retagging alone, a remainder one multiply and one subtraction. Read off `ocamlopt -S
//! -inline 0` (4.13): `digit_reverse`'s `r := !r * 10 + !m mod 10; m := !m / 10` runs one
//! multiply-high an iteration; `if x mod 2 = 0 then x / 2` shifts once; `go (n / 10) (n mod
//! 10 :: acc)` shares across the cell's allocation; `(x mod 7) + (x / 7) + (x / 7)` computes
//! one quotient.
//!
//! What ends the sharing is what ends CSE's numbering (asmcomp/CSEgen.ml): a call — any
//! function, a C primitive, a polymorphic comparison, a division by a variable, whose zero
//! test branches — forgets everything; a join of two branches (after an `if`, a `match`, a
//! `&&` used as a value) and a loop's iteration start from nothing; the code before a branch
//! flows into the branch. Assigning or shadowing a variable forgets the dividends that mention it. A division of a
//! constant, or of anything impure, is never shared.
//!
//! An allocation or a store forgets only what read memory: `!r` of a reference left in the
//! heap. A reference Simplif turns into a variable (`crate::compile_imperative`'s rule) is a
//! register, which only an assignment of it changes.

use crate::ast::*;
use crate::cse_walk::{forget, walk_items, Available, Numbering};
use crate::infer::Typing;
use std::collections::HashSet;

/// A dividend and divisor whose quotient is in a register.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Quotient {
    dividend: String,
    divisor: i64,
    /// The variables the dividend reads (`r` for `!r`).
    names: Vec<String>,
    /// Whether the dividend reads memory (`!r`).
    loads: bool,
}

/// The `/` and `mod` nodes of `items` whose quotient ocamlopt's CSE computed already.
pub(crate) fn analyse(items: &[Item], typing: &Typing) -> HashSet<NodeId> {
    let mut pass = Pass {
        typing,
        reused: HashSet::new(),
        registers: Vec::new(),
    };
    walk_items(&mut pass, items);
    pass.reused
}

/// The divisor of `x / k` or `x mod k` when ocamlopt folds it into the sequence.
fn constant_divisor(k: &Expr) -> Option<i64> {
    let k = match &k.kind {
        ExprKind::Int(k) => *k,
        ExprKind::UnOp(UnOp::Neg, x) => match &x.kind {
            ExprKind::Int(k) => -*k,
            _ => return None,
        },
        ExprKind::Annot(x, _) => return constant_divisor(x),
        _ => return None,
    };
    (!matches!(k, -1..=1)).then_some(k)
}

/// A dividend as CSE would number it: pure integer arithmetic on variables, `!r` and
/// constants, with the variables it reads and whether it loads.
fn dividend_key(
    e: &Expr,
    registers: &[String],
    names: &mut Vec<String>,
    loads: &mut bool,
) -> Option<String> {
    Some(match &e.kind {
        ExprKind::Var(n) => {
            names.push(n.clone());
            n.clone()
        }
        ExprKind::Int(k) => k.to_string(),
        ExprKind::Annot(x, _) => dividend_key(x, registers, names, loads)?,
        ExprKind::UnOp(UnOp::Neg, x) => {
            format!("(- {})", dividend_key(x, registers, names, loads)?)
        }
        ExprKind::App { func, args, .. } if args.len() == 1 => match (&func.kind, &args[0].kind) {
            (ExprKind::Var(op), ExprKind::Var(r)) if op == "!" => {
                names.push(r.clone());
                *loads |= !registers.contains(r);
                format!("!{r}")
            }
            _ => return None,
        },
        ExprKind::BinOp(op, x, y) => {
            let pure = match op {
                BinOp::Add
                | BinOp::Sub
                | BinOp::Mul
                | BinOp::Land
                | BinOp::Lor
                | BinOp::Lxor
                | BinOp::Lsl
                | BinOp::Lsr
                | BinOp::Asr => true,
                BinOp::Div | BinOp::Mod => constant_divisor(y).is_some(),
                _ => false,
            };
            if !pure {
                return None;
            }
            let (x, y) = (
                dividend_key(x, registers, names, loads)?,
                dividend_key(y, registers, names, loads)?,
            );
            format!("({x} {op:?} {y})")
        }
        _ => return None,
    })
}

fn quotient(x: &Expr, k: &Expr, registers: &[String]) -> Option<Quotient> {
    let divisor = constant_divisor(k)?;
    let (mut names, mut loads) = (Vec::new(), false);
    let dividend = dividend_key(x, registers, &mut names, &mut loads)?;
    // A constant dividend is folded away, not divided.
    (!names.is_empty()).then_some(Quotient {
        dividend,
        divisor,
        names,
        loads,
    })
}

/// The name of `let x = ref e in body` when Simplif makes `x` a variable.
fn local_ref(bindings: &[Binding], body: &Expr) -> Option<String> {
    let [Binding { pat, expr, .. }] = bindings else {
        return None;
    };
    let (PatKind::Var(name), ExprKind::App { func, args, .. }) = (&pat.kind, &expr.kind) else {
        return None;
    };
    let is_ref = matches!(&func.kind, ExprKind::Var(f) if f == "ref");
    (is_ref && args.len() == 1 && crate::expr_shapes::only_ref_uses(name, body))
        .then(|| name.clone())
}

impl Available for Quotient {
    fn mentions(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }
}

/// An allocation or a store: what was loaded may have changed.
fn forget_loads(avail: &mut Vec<Quotient>) {
    avail.retain(|q| !q.loads);
}

struct Pass<'a> {
    typing: &'a Typing,
    reused: HashSet<NodeId>,
    /// The references in scope that Simplif turns into variables.
    registers: Vec<String>,
}

/// A call forgets every quotient; an allocation or a store only those that read memory.
impl Numbering for Pass<'_> {
    type Key = Quotient;

    fn typing(&self) -> &Typing {
        self.typing
    }

    fn operator(&mut self, e: &Expr, avail: &mut Vec<Quotient>) -> bool {
        let ExprKind::BinOp(BinOp::Div | BinOp::Mod, x, y) = &e.kind else {
            return false;
        };
        match quotient(x, y, &self.registers) {
            Some(q) if avail.contains(&q) => {
                self.reused.insert(e.id);
                false
            }
            Some(q) => {
                avail.push(q);
                false
            }
            // A divisor known only at run time is tested for zero: a branch, then the
            // division, and the two ways join.
            None => constant_divisor(y).is_none(),
        }
    }

    fn allocated(&self, avail: &mut Vec<Quotient>) {
        forget_loads(avail);
    }

    fn stored(&self, avail: &mut Vec<Quotient>) {
        forget_loads(avail);
    }

    fn assigned(&self, r: &str, avail: &mut Vec<Quotient>) {
        forget(avail, r);
        if !self.registers.iter().any(|n| n == r) {
            forget_loads(avail);
        }
    }

    fn value_joined(&self, avail: &mut Vec<Quotient>) {
        avail.clear();
    }

    fn enter_let(&mut self, bindings: &[Binding], body: &Expr) -> bool {
        let name = local_ref(bindings, body);
        let kept = name.is_some();
        self.registers.extend(name);
        kept
    }

    fn leave_let(&mut self) {
        self.registers.pop();
    }
}
