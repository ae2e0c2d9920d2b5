//! Compiling data, `match`, `try` and `let rec` into closures (see [`crate::lower`]): building
//! tuples, lists, constructors and closures, raising, and choosing a `match` arm. Pattern
//! matching itself is [`Machine::matches`], which walks the pattern.

use crate::catalogue::Counter;
use crate::ir::*;
use crate::lower::{ev, CondEv, Ev, Lower, Operand, RecGroupCode};
use crate::machine::{Machine, Unwind, R};
use crate::value::*;
use std::rc::Rc;

/// A compiled arm of a `match` or `try`.
struct ArmCode {
    pat: Pat,
    guard: Option<CondEv>,
    body: Ev,
}

struct TupleArmCode {
    pat: TupleArmPat,
    guard: Option<CondEv>,
    body: Ev,
}

/// Evaluates `items` right to left (OCaml's order) into a vector.
fn eval_all(m: &mut Machine<'_>, items: &[Operand]) -> R<Vec<Value>> {
    let mut values = vec![UNIT; items.len()];
    for (i, c) in items.iter().enumerate().rev() {
        values[i] = c.get(m)?;
    }
    Ok(values)
}

fn guard(m: &mut Machine<'_>, guard: &Option<CondEv>) -> R<bool> {
    match guard {
        None => Ok(true),
        Some(g) => g(m),
    }
}

/// The first arm of `arms` that matches `v` (binding its variables), counting each arm tried.
fn select(m: &mut Machine<'_>, arms: &[ArmCode], v: &Value) -> R<Option<usize>> {
    for (i, arm) in arms.iter().enumerate() {
        m.count(Counter::PatternMatch);
        if m.matches(&arm.pat, v) && guard(m, &arm.guard)? {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

impl Lower {
    fn operands(&self, items: Box<[Code]>) -> Box<[Operand]> {
        items
            .into_vec()
            .into_iter()
            .map(|c| self.operand(c))
            .collect()
    }

    fn arms(&self, arms: Box<[Arm]>, tail: bool) -> Box<[ArmCode]> {
        arms.into_vec()
            .into_iter()
            .map(|a| ArmCode {
                pat: a.pat,
                guard: a.guard.map(|g| self.cond(g)),
                body: self.code(a.body, tail),
            })
            .collect()
    }

    pub(crate) fn rec_group(&self, g: RecGroup) -> RecGroupCode {
        RecGroupCode {
            funs: g.funs,
            captures: g
                .captures
                .into_vec()
                .into_iter()
                .map(|c| self.code(c, false))
                .collect(),
        }
    }

    /// Allocating expressions, and `raise`.
    pub(crate) fn construct(&self, code: Code) -> Ev {
        match code {
            Code::MakeClosure(mc) => {
                let MakeClosure { fun, captures } = *mc;
                let captures = self.operands(captures);
                ev(move |m| {
                    m.count(Counter::FunDef);
                    m.count_n(Counter::Closure, captures.len());
                    let env = captures.iter().map(|c| c.get(m)).collect::<R<Vec<_>>>()?;
                    Ok(Value::fun(fun, Rc::new(env)))
                })
            }
            Code::Tuple(items) => {
                let items = self.operands(items);
                ev(move |m| {
                    m.count(Counter::TupleHead);
                    m.count_n(Counter::TupleElem, items.len());
                    let fields = eval_all(m, &items)?;
                    Ok(Value::Block(Rc::new(Block {
                        tag: 0,
                        fields: fields.into(),
                    })))
                })
            }
            Code::Cons(ht) => {
                let (h, t) = *ht;
                let (h, t) = (self.operand(h), self.operand(t));
                ev(move |m| {
                    m.count(Counter::Cons);
                    let tail = t.get(m)?;
                    let head = h.get(m)?;
                    Ok(Value::Cons(Rc::new(ConsCell { head, tail })))
                })
            }
            Code::List(l) => {
                let (items, tail) = *l;
                let (items, tail) = (self.operands(items), self.operand(tail));
                ev(move |m| {
                    let mut acc = tail.get(m)?;
                    for item in items.iter().rev() {
                        m.count(Counter::Cons);
                        let head = item.get(m)?;
                        acc = Value::Cons(Rc::new(ConsCell { head, tail: acc }));
                    }
                    Ok(acc)
                })
            }
            Code::Block(tag, args) => {
                let args = self.operands(args);
                ev(move |m| {
                    m.count(Counter::VariantHead);
                    m.count_n(Counter::VariantElem, args.len());
                    let fields = eval_all(m, &args)?;
                    Ok(Value::Block(Rc::new(Block {
                        tag,
                        fields: fields.into(),
                    })))
                })
            }
            Code::Exn(id, args) => {
                let args = self.operands(args);
                ev(move |m| {
                    m.count(Counter::VariantHead);
                    m.count_n(Counter::VariantElem, args.len());
                    let args = eval_all(m, &args)?;
                    Ok(Value::Exn(Rc::new(ExnValue {
                        id,
                        args: args.into(),
                    })))
                })
            }
            Code::Raise(e, pos) => {
                let e = self.operand(*e);
                ev(move |m| {
                    m.count(Counter::Raise);
                    let value = e.get(m)?;
                    Err(m.throw(Unwind::Exn { value, pos }))
                })
            }
            other => unreachable!("every other node is compiled by `Lower::code`: {other:?}"),
        }
    }

    /// Tries the arms in order, then runs the body of the one that matched (the scrutinee is
    /// released first: the body may run long, and in tail position it ends in a tail call).
    pub(crate) fn match_(&self, mt: Match, tail: bool) -> Ev {
        let Match {
            scrutinee,
            arms,
            pos,
        } = mt;
        let (scrutinee, arms) = (self.operand(scrutinee), self.arms(arms, tail));
        ev(move |m| {
            let v = scrutinee.get(m)?;
            let chosen = select(m, &arms, &v)?;
            drop(v);
            match chosen {
                Some(i) => (arms[i].body)(m),
                None => Err(m.match_failure(pos)),
            }
        })
    }

    /// `match (e1, …, en) with …`, without building the tuple unless an arm needs it.
    pub(crate) fn match_tuple(&self, mt: MatchTuple, tail: bool) -> Ev {
        let MatchTuple {
            components,
            slots,
            arms,
            pos,
        } = mt;
        let components = self.operands(components);
        let arms: Box<[TupleArmCode]> = arms
            .into_vec()
            .into_iter()
            .map(|a| TupleArmCode {
                pat: a.pat,
                guard: a.guard.map(|g| self.cond(g)),
                body: self.code(a.body, tail),
            })
            .collect();
        ev(move |m| {
            let values = eval_all(m, &components)?;
            for (&slot, v) in slots.iter().zip(values) {
                m.set_local(slot, v);
            }
            for arm in arms.iter() {
                m.count(Counter::PatternMatch);
                let matched = match &arm.pat {
                    TupleArmPat::Components(alternatives) => alternatives.iter().any(|alt| {
                        alt.iter().zip(slots.iter()).all(|(p, &slot)| {
                            let v = m.local(slot);
                            m.matches(p, &v)
                        })
                    }),
                    TupleArmPat::Whole(p) => {
                        // The arm needs the tuple itself: native code builds it here.
                        m.count(Counter::TupleHead);
                        m.count_n(Counter::TupleElem, slots.len());
                        let fields = slots.iter().map(|&s| m.local(s)).collect();
                        let tuple = Value::Block(Rc::new(Block { tag: 0, fields }));
                        m.matches(p, &tuple)
                    }
                };
                if matched && guard(m, &arm.guard)? {
                    return (arm.body)(m);
                }
            }
            Err(m.match_failure(pos))
        })
    }

    pub(crate) fn try_(&self, t: Try, tail: bool) -> Ev {
        // The body is never in tail position: the handler must stay installed while it runs.
        let (body, arms) = (self.code(t.body, false), self.arms(t.arms, tail));
        ev(move |m| {
            m.count(Counter::TryWith);
            let saved_len = m.stack.len();
            if let Ok(v) = body(m) {
                return Ok(v);
            }
            let (value, pos) = match m.take_unwind() {
                Unwind::Exn { value, pos } => (value, pos),
                // Not an exception (a limit of the interpreter): nothing catches it.
                fatal => return Err(m.throw(fatal)),
            };
            // Calls in the body restored base and environment on their way out; only the
            // arguments of an interrupted call may be left on the stack.
            m.stack.truncate(saved_len);
            match select(m, &arms, &value)? {
                Some(i) => (arms[i].body)(m),
                None => Err(m.throw(Unwind::Exn { value, pos })),
            }
        })
    }
}
