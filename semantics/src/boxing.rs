//! Where ocamlopt 4.13 boxes a float: a pass over the IR that wraps each float that must be
//! stored as a heap block in [`Code::BoxFloat`] (counted `FloatBox`, 2 words).
//!
//! Float arithmetic works on unboxed doubles in registers. A float becomes a block (a header
//! and the double) when it leaves an expression as an OCaml value: passed to a function,
//! returned, stored in a tuple, list, constructor, exception or closure. Cmmgen pushes that
//! boxing down to the branches of `if`, `match`, `let … in` and `;`, so only the branches that
//! compute a new float box. What is already a block — a parameter, a field read, a constant —
//! is passed as it is.
//!
//! A `let`-bound float whose right-hand side computes a new float (any of its branches does:
//! Cmmgen's `is_unboxed_number_cmm ~strict:false` for a bound expression of type float) is
//! kept unboxed, and then every use of the variable that needs a value boxes it again — once
//! per use, as the native code does.

use crate::ir::*;
use std::collections::HashSet;

/// Inserts the boxing of every function body (a body's value is returned: a boxed context)
/// and of the top-level items.
pub(crate) fn insert_float_boxes(compiled: &mut Compiled) {
    for fun in &mut compiled.funs {
        let body = std::mem::replace(&mut fun.body, Code::Imm(0));
        fun.body = Boxing::default().walk(body, Context::Boxed);
    }
    for item in &mut compiled.items {
        let mut boxing = Boxing::default();
        match item {
            TopItem::Let(_, value, _) | TopItem::Expr(value) => {
                let code = std::mem::replace(value, Code::Imm(0));
                *value = boxing.walk(code, Context::Boxed);
            }
            TopItem::LetRec(group) => boxing.captures(&mut group.captures),
        }
    }
}

/// Whether the value of an expression is needed as an OCaml value (a pointer to a block) or
/// is consumed unboxed (by float arithmetic or a comparison) or dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    Boxed,
    Unboxed,
}

/// Whether `code` computes a new float in at least one of the positions its value comes from,
/// `unboxed` being the slots bound to unboxed floats so far: then a `let` keeps it unboxed.
pub(crate) fn computes_new_float(code: &Code, unboxed: &HashSet<Slot>) -> bool {
    let fresh = |c: &Code| computes_new_float(c, unboxed);
    match code {
        Code::Op2(node) => matches!(
            node.op,
            Op2::FAdd | Op2::FSub | Op2::FMul | Op2::FDiv | Op2::FloatCall(_)
        ),
        Code::Op1(op, _) => {
            matches!(op, Op1::FNeg | Op1::FloatOfInt | Op1::FSqrt | Op1::FAbs)
                || matches!(op, Op1::FloatCall(call) if call.returns_float())
        }
        Code::Local(slot) => unboxed.contains(slot),
        Code::Let(l) => fresh(&l.body),
        Code::LetRec(group) => fresh(&group.1),
        Code::Seq(pair) => fresh(&pair.1),
        Code::If(branches) => fresh(&branches.1) || fresh(&branches.2),
        Code::Match(m) => m
            .arms
            .iter()
            .chain(m.handlers.iter())
            .any(|a| fresh(&a.body)),
        Code::MatchTuple(m) => m.arms.iter().any(|a| fresh(&a.body)),
        Code::Try(t) => fresh(&t.body) || t.arms.iter().any(|a| fresh(&a.body)),
        Code::Imp(node) => matches!(
            node.op,
            ImpOp::GetField { flat: true, .. } | ImpOp::ArrayGet { flat: true, .. }
        ),
        _ => false,
    }
}

/// Whether a `let` of `value` (`float_var`: an eliminated `float ref`) binds an unboxed float,
/// as Cmmgen decides: what the boxing and the chain pass both follow.
pub(crate) fn stays_unboxed(float_var: bool, value: &Code, unboxed: &HashSet<Slot>) -> bool {
    float_var || computes_new_float(value, unboxed)
}

#[derive(Default)]
struct Boxing {
    /// Frame slots of the running function bound to unboxed floats (slots are never reused
    /// within a function, so one set per function is exact).
    unboxed: HashSet<Slot>,
}

impl Boxing {
    fn fresh(&self, code: &Code) -> bool {
        computes_new_float(code, &self.unboxed)
    }

    fn walk_box(&mut self, code: Code) -> Code {
        self.walk(code, Context::Boxed)
    }

    fn walk_unboxed(&mut self, code: Code) -> Code {
        self.walk(code, Context::Unboxed)
    }

    fn all(&mut self, codes: &mut [Code], context: Context) {
        for code in codes.iter_mut() {
            let c = std::mem::replace(code, Code::Imm(0));
            *code = self.walk(c, context);
        }
    }

    fn captures(&mut self, captures: &mut [Code]) {
        self.all(captures, Context::Boxed);
    }

    fn arms(&mut self, arms: &mut [Arm], context: Context) {
        for arm in arms.iter_mut() {
            if let Some(guard) = arm.guard.take() {
                arm.guard = Some(self.walk_unboxed(guard));
            }
            let body = std::mem::replace(&mut arm.body, Code::Imm(0));
            arm.body = self.walk(body, context);
        }
    }

    fn walk(&mut self, code: Code, context: Context) -> Code {
        match code {
            Code::Op2(mut node) => {
                node.lhs = self.walk_unboxed(std::mem::replace(&mut node.lhs, Code::Imm(0)));
                node.rhs = self.walk_unboxed(std::mem::replace(&mut node.rhs, Code::Imm(0)));
                self.leaf(Code::Op2(node), context)
            }
            Code::Op1(op, operand) => {
                let operand = Box::new(self.walk_unboxed(*operand));
                self.leaf(Code::Op1(op, operand), context)
            }
            Code::Let(mut l) => {
                let value = std::mem::replace(&mut l.value, Code::Imm(0));
                l.value = match l.binder {
                    Binder::Slot(slot) if stays_unboxed(l.float_var, &value, &self.unboxed) => {
                        let value = self.walk_unboxed(value);
                        self.unboxed.insert(slot);
                        value
                    }
                    _ => self.walk_box(value),
                };
                l.body = self.walk(std::mem::replace(&mut l.body, Code::Imm(0)), context);
                Code::Let(l)
            }
            Code::LetRec(mut group) => {
                self.captures(&mut group.0.captures);
                group.1 = self.walk(std::mem::replace(&mut group.1, Code::Imm(0)), context);
                Code::LetRec(group)
            }
            Code::If(mut branches) => {
                let (c, a, b, resolve) = std::mem::replace(
                    &mut *branches,
                    (
                        Code::Imm(0),
                        Code::Imm(0),
                        Code::Imm(0),
                        IfChains::default(),
                    ),
                );
                *branches = (
                    self.walk_unboxed(c),
                    self.walk(a, context),
                    self.walk(b, context),
                    resolve,
                );
                Code::If(branches)
            }
            Code::Seq(mut pair) => {
                let (a, b) = std::mem::replace(&mut *pair, (Code::Imm(0), Code::Imm(0)));
                *pair = (self.walk_unboxed(a), self.walk(b, context));
                Code::Seq(pair)
            }
            Code::And(mut pair) => {
                let (a, b) = std::mem::replace(&mut *pair, (Code::Imm(0), Code::Imm(0)));
                *pair = (self.walk_unboxed(a), self.walk_unboxed(b));
                Code::And(pair)
            }
            Code::Or(mut pair) => {
                let (a, b) = std::mem::replace(&mut *pair, (Code::Imm(0), Code::Imm(0)));
                *pair = (self.walk_unboxed(a), self.walk_unboxed(b));
                Code::Or(pair)
            }
            Code::App(mut app) => {
                app.func = self.walk_unboxed(std::mem::replace(&mut app.func, Code::Imm(0)));
                self.all(&mut app.args, Context::Boxed);
                Code::App(app)
            }
            Code::MakeClosure(mut closure) => {
                self.captures(&mut closure.captures);
                Code::MakeClosure(closure)
            }
            Code::Tuple(mut items) => {
                self.all(&mut items, Context::Boxed);
                Code::Tuple(items)
            }
            Code::Cons(mut pair) => {
                let (h, t) = std::mem::replace(&mut *pair, (Code::Imm(0), Code::Imm(0)));
                *pair = (self.walk_box(h), self.walk_box(t));
                Code::Cons(pair)
            }
            Code::List(mut list) => {
                self.all(&mut list.0, Context::Boxed);
                list.1 = self.walk_box(std::mem::replace(&mut list.1, Code::Imm(0)));
                Code::List(list)
            }
            Code::Block(tag, mut args) => {
                self.all(&mut args, Context::Boxed);
                Code::Block(tag, args)
            }
            Code::Exn(id, mut args) => {
                self.all(&mut args, Context::Boxed);
                Code::Exn(id, args)
            }
            Code::Match(mut m) => {
                m.scrutinee = self.walk_unboxed(std::mem::replace(&mut m.scrutinee, Code::Imm(0)));
                self.arms(&mut m.arms, context);
                self.arms(&mut m.handlers, context);
                Code::Match(m)
            }
            Code::MatchTuple(mut m) => {
                self.all(&mut m.components, Context::Unboxed);
                for arm in m.arms.iter_mut() {
                    if let Some(guard) = arm.guard.take() {
                        arm.guard = Some(self.walk_unboxed(guard));
                    }
                    let body = std::mem::replace(&mut arm.body, Code::Imm(0));
                    arm.body = self.walk(body, context);
                }
                Code::MatchTuple(m)
            }
            Code::Try(mut t) => {
                t.body = self.walk(std::mem::replace(&mut t.body, Code::Imm(0)), context);
                self.arms(&mut t.arms, context);
                Code::Try(t)
            }
            Code::Raise(e, pos) => Code::Raise(Box::new(self.walk_box(*e)), pos),
            Code::Imp(mut node) => {
                for (i, arg) in node.args.iter_mut().enumerate() {
                    let a = std::mem::replace(arg, Code::Imm(0));
                    *arg = self.walk(a, imp_operand_context(node.op, i));
                }
                self.leaf(Code::Imp(node), context)
            }
            Code::Assign(slot, value) => {
                let inner = if self.unboxed.contains(&slot) {
                    Context::Unboxed
                } else {
                    Context::Boxed
                };
                Code::Assign(slot, Box::new(self.walk(*value, inner)))
            }
            Code::For(mut f) => {
                f.from = self.walk_unboxed(std::mem::replace(&mut f.from, Code::Imm(0)));
                f.until = self.walk_unboxed(std::mem::replace(&mut f.until, Code::Imm(0)));
                f.body = self.walk_unboxed(std::mem::replace(&mut f.body, Code::Imm(0)));
                Code::For(f)
            }
            Code::While(mut w) => {
                let (c, b, chain, resolve) = std::mem::replace(
                    &mut *w,
                    (
                        Code::Imm(0),
                        Code::Imm(0),
                        Chain::default(),
                        IfChains::default(),
                    ),
                );
                *w = (self.walk_unboxed(c), self.walk_unboxed(b), chain, resolve);
                Code::While(w)
            }
            leaf => self.leaf(leaf, context),
        }
    }

    /// A value that is not a control form: boxed here when it is a new float that leaves
    /// as a value.
    fn leaf(&self, code: Code, context: Context) -> Code {
        if context == Context::Boxed && self.fresh(&code) {
            Code::BoxFloat(Box::new(code))
        } else {
            code
        }
    }
}

/// Whether operand `i` of an imperative operation is stored as an OCaml value (a new float is
/// boxed for it) or used unboxed: a flat block's doubles and plain stores take the double,
/// a pointer store and `Array.make`'s initial value take a value.
fn imp_operand_context(op: ImpOp, i: usize) -> Context {
    match op {
        ImpOp::Make { flat, .. } => {
            if flat {
                Context::Unboxed
            } else {
                Context::Boxed
            }
        }
        ImpOp::SetField {
            store: StoreKind::Barrier,
            ..
        } if i == 1 => Context::Boxed,
        ImpOp::ArraySet {
            store: StoreKind::Barrier,
            ..
        } if i == 2 => Context::Boxed,
        ImpOp::ArrayMake if i == 1 => Context::Boxed,
        ImpOp::Arr(crate::ir::ArrOp::Fill) if i == 3 => Context::Boxed,
        _ => Context::Unboxed,
    }
}
