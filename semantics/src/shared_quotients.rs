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
use crate::infer::Typing;
use crate::types::CmpClass;
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
    for item in items {
        if let Item::Let { bindings, .. } = item {
            for b in bindings {
                pass.walk(&b.expr, &mut Vec::new());
            }
        } else if let Item::Expr(e) = item {
            pass.walk(e, &mut Vec::new());
        }
    }
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

/// Forgets the quotients whose dividend reads `name` (assigned, or shadowed by a new binding).
fn forget(avail: &mut Vec<Quotient>, name: &str) {
    avail.retain(|q| !q.names.iter().any(|n| n == name));
}

fn forget_pattern(avail: &mut Vec<Quotient>, p: &Pattern) {
    let mut names = Vec::new();
    crate::fv::pattern_vars(p, &mut names);
    names.iter().for_each(|n| forget(avail, n));
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

impl Pass<'_> {
    /// Walks `e` as a condition: the quotients available where it is true, and where it is
    /// false (none where a branch of `&&` or `||` joins another).
    fn cond(&mut self, e: &Expr, avail: &[Quotient]) -> (Vec<Quotient>, Vec<Quotient>) {
        match &e.kind {
            ExprKind::BinOp(BinOp::And, x, y) => {
                let (xt, _) = self.cond(x, avail);
                let (yt, _) = self.cond(y, &xt);
                (yt, Vec::new())
            }
            ExprKind::BinOp(BinOp::Or, x, y) => {
                let (_, xf) = self.cond(x, avail);
                let (_, yf) = self.cond(y, &xf);
                (Vec::new(), yf)
            }
            _ => {
                let mut after = avail.to_vec();
                self.walk(e, &mut after);
                (after.clone(), after)
            }
        }
    }

    /// The cases of a `match` or a handler, each starting from what `avail` says.
    fn arms(&mut self, arms: &[Arm], avail: &[Quotient]) {
        for arm in arms {
            let mut here = avail.to_vec();
            forget_pattern(&mut here, &arm.pat);
            if let Some(g) = &arm.guard {
                self.walk(g, &mut here);
            }
            self.walk(&arm.body, &mut here);
        }
    }

    fn walk_all<'e>(&mut self, es: impl Iterator<Item = &'e Expr>, avail: &mut Vec<Quotient>) {
        es.for_each(|e| self.walk(e, avail));
    }

    fn walk(&mut self, e: &Expr, avail: &mut Vec<Quotient>) {
        match &e.kind {
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Char(_)
            | ExprKind::Bool(_)
            | ExprKind::Unit
            | ExprKind::Var(_) => {}
            ExprKind::ArrayGet(a, i) => self.walk_all([&**i, &**a].into_iter(), avail),
            ExprKind::ArraySet(a, i, v) => {
                self.walk_all([&**v, &**i, &**a].into_iter(), avail);
                forget_loads(avail);
            }
            ExprKind::App { func, args, .. } => {
                let name = match &func.kind {
                    ExprKind::Var(f) => f.as_str(),
                    _ => "",
                };
                match (name, args.as_slice()) {
                    ("String.get" | "Bytes.get", [s, i]) => {
                        self.walk_all([i, s].into_iter(), avail)
                    }
                    ("Bytes.set", [s, i, c]) => {
                        self.walk_all([c, i, s].into_iter(), avail);
                        forget_loads(avail);
                    }
                    (":=" | "incr" | "decr", [r, rest @ ..]) => {
                        self.walk_all(rest.iter(), avail);
                        match &r.kind {
                            ExprKind::Var(r) if self.registers.contains(r) => forget(avail, r),
                            ExprKind::Var(r) => {
                                forget(avail, r);
                                forget_loads(avail);
                            }
                            _ => avail.clear(),
                        }
                    }
                    _ => {
                        self.walk_all(args.iter().rev(), avail);
                        self.walk(func, avail);
                        if !crate::shared_checks::PURE.contains(&name) {
                            avail.clear();
                        }
                    }
                }
            }
            ExprKind::BinOp(BinOp::And | BinOp::Or, x, y) => {
                self.walk(x, avail);
                let mut second = avail.clone();
                self.walk(y, &mut second);
                // The two ways join.
                avail.clear();
            }
            ExprKind::BinOp(BinOp::Div | BinOp::Mod, x, y) => {
                self.walk_all([&**y, &**x].into_iter(), avail);
                match quotient(x, y, &self.registers) {
                    Some(q) if avail.contains(&q) => {
                        self.reused.insert(e.id);
                    }
                    Some(q) => avail.push(q),
                    // A divisor known only at run time is tested for zero: a branch, then
                    // the division, and the two ways join.
                    None if constant_divisor(y).is_none() => avail.clear(),
                    None => {}
                }
            }
            ExprKind::BinOp(op, x, y) => {
                self.walk_all([&**y, &**x].into_iter(), avail);
                let calls = matches!(
                    op,
                    BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
                ) && matches!(
                    self.typing.comparisons.get(&e.id).copied(),
                    Some(CmpClass::Poly) | None
                );
                if calls {
                    avail.clear();
                }
            }
            ExprKind::UnOp(_, x) | ExprKind::Field(x, _) | ExprKind::Annot(x, _) => {
                self.walk(x, avail)
            }
            ExprKind::If(c, t, f) => {
                let (yes, no) = self.cond(c, avail);
                self.walk(t, &mut yes.clone());
                if let Some(f) = f {
                    self.walk(f, &mut no.clone());
                }
                avail.clear();
            }
            ExprKind::Seq(a, b) => self.walk_all([&**a, &**b].into_iter(), avail),
            ExprKind::Let { bindings, body, .. } if local_ref(bindings, body).is_some() => {
                let [b] = bindings.as_slice() else {
                    unreachable!()
                };
                self.walk(&b.expr, avail);
                forget_pattern(avail, &b.pat);
                self.registers.extend(local_ref(bindings, body));
                self.walk(body, avail);
                self.registers.pop();
            }
            ExprKind::Let { bindings, body, .. } => {
                for b in bindings {
                    self.walk(&b.expr, avail);
                    forget_pattern(avail, &b.pat);
                }
                self.walk(body, avail);
            }
            ExprKind::Match(s, arms) | ExprKind::Try(s, arms) => {
                let is_try = matches!(e.kind, ExprKind::Try(..));
                self.walk(s, avail);
                self.arms(arms, if is_try { &[] } else { avail });
                avail.clear();
            }
            ExprKind::MatchExn(s, arms, handlers) => {
                self.walk(s, avail);
                self.arms(arms, avail);
                self.arms(handlers, &[]);
                avail.clear();
            }
            ExprKind::While(c, body) => {
                let (yes, _) = self.cond(c, &[]);
                self.walk(body, &mut yes.clone());
                avail.clear();
            }
            ExprKind::For {
                from, until, body, ..
            } => {
                self.walk_all([&**until, &**from].into_iter(), avail);
                self.walk(body, &mut Vec::new());
                avail.clear();
            }
            // Another function's body; building its closure allocates.
            ExprKind::Fun { body, .. } => {
                self.walk(body, &mut Vec::new());
                forget_loads(avail);
            }
            ExprKind::Function(arms) => {
                for arm in arms {
                    self.walk(&arm.body, &mut Vec::new());
                }
                forget_loads(avail);
            }
            ExprKind::Constr(_, arg) => {
                if let Some(a) = arg {
                    self.walk(a, avail);
                    forget_loads(avail);
                }
            }
            ExprKind::Tuple(items) | ExprKind::List(items) | ExprKind::Array(items) => {
                self.walk_all(items.iter().rev(), avail);
                forget_loads(avail);
            }
            ExprKind::Cons(a, b) => {
                self.walk_all([&**b, &**a].into_iter(), avail);
                forget_loads(avail);
            }
            ExprKind::Record(fields, base) => {
                self.walk_all(fields.iter().map(|(_, v)| v), avail);
                if let Some(b) = base {
                    self.walk(b, avail);
                }
                forget_loads(avail);
            }
            ExprKind::SetField(r, _, v) => {
                self.walk_all([&**v, &**r].into_iter(), avail);
                forget_loads(avail);
            }
        }
    }
}
