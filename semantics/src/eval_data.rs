//! The interpreter's out-of-line operations: building data, pattern matching, exceptions,
//! and the less common primitive operations (see [`crate::eval`] for the hot paths).

use crate::ast::Pos;
use crate::catalogue::Counter;
use crate::eval::{Machine, Tail, Unwind, R};
use crate::ir::*;
use crate::types::{EXN_DIVISION_BY_ZERO, EXN_INVALID_ARGUMENT};
use crate::value::*;
use std::rc::Rc;

impl<'p> Machine<'p> {
    /// Evaluates `items` right to left (OCaml's order) into a vector.
    fn eval_all(&mut self, items: &'p [Code]) -> R<Vec<Value>> {
        let mut values = vec![UNIT; items.len()];
        for (i, c) in items.iter().enumerate().rev() {
            values[i] = self.eval_fast(c)?;
        }
        Ok(values)
    }

    /// Allocating expressions, and `raise`.
    #[inline(never)]
    pub(crate) fn construct(&mut self, code: &'p Code) -> R<Value> {
        match code {
            Code::MakeClosure(mc) => {
                self.count(Counter::FunDef);
                self.count_n(Counter::Closure, mc.captures.len());
                let env = mc
                    .captures
                    .iter()
                    .map(|c| self.eval(c))
                    .collect::<R<Vec<_>>>()?;
                Ok(Value::Fun(Rc::new(env), mc.fun))
            }
            Code::Tuple(items) => {
                self.count(Counter::TupleHead);
                self.count_n(Counter::TupleElem, items.len());
                let fields = self.eval_all(items)?;
                Ok(Value::Block(Rc::new(Block {
                    tag: 0,
                    fields: fields.into(),
                })))
            }
            Code::Cons(ht) => {
                self.count(Counter::Cons);
                let tail = self.eval_fast(&ht.1)?;
                let head = self.eval_fast(&ht.0)?;
                Ok(Value::Cons(Rc::new(ConsCell { head, tail })))
            }
            Code::List(l) => {
                let mut acc = self.eval_fast(&l.1)?;
                for item in l.0.iter().rev() {
                    self.count(Counter::Cons);
                    let head = self.eval_fast(item)?;
                    acc = Value::Cons(Rc::new(ConsCell { head, tail: acc }));
                }
                Ok(acc)
            }
            Code::Block(tag, args) => {
                self.count(Counter::VariantHead);
                self.count_n(Counter::VariantElem, args.len());
                let fields = self.eval_all(args)?;
                Ok(Value::Block(Rc::new(Block {
                    tag: *tag,
                    fields: fields.into(),
                })))
            }
            Code::Exn(id, args) => {
                self.count(Counter::VariantHead);
                self.count_n(Counter::VariantElem, args.len());
                let args = self.eval_all(args)?;
                Ok(Value::Exn(Rc::new(ExnValue {
                    id: *id,
                    args: args.into(),
                })))
            }
            Code::Raise(e, pos) => {
                self.count(Counter::Raise);
                let value = self.eval(e)?;
                Err(Box::new(Unwind::Exn { value, pos: *pos }))
            }
            other => unreachable!("not an allocating expression: {other:?}"),
        }
    }

    #[inline(never)]
    pub(crate) fn rec_group(&mut self, g: &'p RecGroup) -> R<()> {
        self.count_n(Counter::LetRec, g.funs.len());
        let env = if g.captures.is_empty() {
            self.empty_env.clone()
        } else {
            self.count_n(Counter::FunDef, g.funs.len());
            self.count_n(Counter::Closure, g.captures.len());
            let values = g
                .captures
                .iter()
                .map(|c| self.eval(c))
                .collect::<R<Vec<_>>>()?;
            Rc::new(values)
        };
        for &(slot, fid) in g.funs.iter() {
            self.set_local(slot, Value::Fun(env.clone(), fid));
        }
        Ok(())
    }

    fn guard(&mut self, guard: &'p Option<Code>) -> R<bool> {
        match guard {
            None => Ok(true),
            Some(g) => Ok(self.eval(g)?.bool()),
        }
    }

    /// Tries the arms of a `match` in order; returns the body to evaluate.
    #[inline(never)]
    pub(crate) fn select_arm(&mut self, m: &'p Match) -> R<&'p Code> {
        let v = self.eval_fast(&m.scrutinee)?;
        for arm in m.arms.iter() {
            self.count(Counter::PatternMatch);
            if self.matches(&arm.pat, &v) && self.guard(&arm.guard)? {
                return Ok(&arm.body);
            }
        }
        Err(self.match_failure(m.pos))
    }

    /// `match (e1, …, en) with …`, without building the tuple unless an arm needs it.
    #[inline(never)]
    pub(crate) fn select_tuple_arm(&mut self, m: &'p MatchTuple) -> R<&'p Code> {
        let values = self.eval_all(&m.components)?;
        for (&slot, v) in m.slots.iter().zip(values) {
            self.set_local(slot, v);
        }
        for arm in m.arms.iter() {
            self.count(Counter::PatternMatch);
            let matched = match &arm.pat {
                TupleArmPat::Components(alternatives) => alternatives.iter().any(|alt| {
                    alt.iter().zip(m.slots.iter()).all(|(p, &slot)| {
                        let v = self.local(slot);
                        self.matches(p, &v)
                    })
                }),
                TupleArmPat::Whole(p) => {
                    // The arm needs the tuple itself: native code builds it here.
                    self.count(Counter::TupleHead);
                    self.count_n(Counter::TupleElem, m.slots.len());
                    let fields = m.slots.iter().map(|&s| self.local(s)).collect();
                    let tuple = Value::Block(Rc::new(Block { tag: 0, fields }));
                    self.matches(p, &tuple)
                }
            };
            if matched && self.guard(&arm.guard)? {
                return Ok(&arm.body);
            }
        }
        Err(self.match_failure(m.pos))
    }

    #[inline(never)]
    pub(crate) fn eval_try(&mut self, t: &'p Try) -> R<Tail> {
        self.count(Counter::TryWith);
        let saved_len = self.stack.len();
        match self.eval(&t.body) {
            Ok(v) => Ok(Tail::Value(v)),
            Err(unwind) => {
                let Unwind::Exn { value, pos } = *unwind else {
                    return Err(unwind);
                };
                // Calls in the body restored base and environment on their way out; only
                // the arguments of an interrupted call may be left on the stack.
                self.stack.truncate(saved_len);
                for arm in t.arms.iter() {
                    self.count(Counter::PatternMatch);
                    if self.matches(&arm.pat, &value) && self.guard(&arm.guard)? {
                        return self.eval_tail_outlined(&arm.body);
                    }
                }
                Err(Box::new(Unwind::Exn { value, pos }))
            }
        }
    }

    #[inline(never)]
    fn eval_tail_outlined(&mut self, code: &'p Code) -> R<Tail> {
        self.eval_tail(code)
    }

    /// A `let` (or parameter) with a pattern other than a name.
    pub(crate) fn bind_pattern(
        &mut self,
        pat: &'p Pat,
        refutable: bool,
        pos: Pos,
        value: Value,
    ) -> R<()> {
        if refutable {
            self.count(Counter::PatternMatch);
        }
        if !self.matches(pat, &value) {
            return Err(self.match_failure(pos));
        }
        Ok(())
    }

    /// Matches `v` against `pat`, binding its variables; counts the tuple fields it reads.
    fn matches(&mut self, pat: &'p Pat, v: &Value) -> bool {
        match pat {
            Pat::Any => true,
            Pat::Bind(s) => {
                self.set_local(*s, v.clone());
                true
            }
            Pat::Imm(i) => matches!(v, Value::Int(x) if x == i),
            Pat::Float(f) => matches!(v, Value::Float(x) if x == f),
            Pat::Str(s) => matches!(v, Value::Str(x) if x.as_str() == &**s),
            Pat::Cons(b) => match v {
                Value::Cons(c) => self.matches(&b.0, &c.head) && self.matches(&b.1, &c.tail),
                _ => false,
            },
            Pat::Tuple(ps) => {
                self.count_n(Counter::TupleMatch, ps.len());
                match v {
                    Value::Block(b) => ps
                        .iter()
                        .zip(b.fields.iter())
                        .all(|(p, f)| self.matches(p, f)),
                    _ => false,
                }
            }
            Pat::Block(tag, ps) => match v {
                Value::Block(b) if b.tag == *tag => ps
                    .iter()
                    .zip(b.fields.iter())
                    .all(|(p, f)| self.matches(p, f)),
                _ => false,
            },
            Pat::Exn(id, ps) => match v {
                Value::Exn(e) if e.id == *id => ps
                    .iter()
                    .zip(e.args.iter())
                    .all(|(p, f)| self.matches(p, f)),
                _ => false,
            },
            Pat::Or(b) => self.matches(&b.0, v) || self.matches(&b.1, v),
            Pat::As(p, s) => {
                if self.matches(p, v) {
                    self.set_local(*s, v.clone());
                    true
                } else {
                    false
                }
            }
        }
    }

    pub(crate) fn op1(&mut self, op: Op1, v: Value) -> Value {
        if let Some(c) = op.counter() {
            self.count(c);
        }
        match op {
            Op1::Not => Value::Int(1 - v.int()),
            Op1::Neg => Value::Int(wrap63(v.int().wrapping_neg())),
            Op1::FNeg => Value::Float(-v.float()),
            Op1::Fst => v.tuple_field(0),
            Op1::Snd => v.tuple_field(1),
            Op1::FloatOfInt => Value::Float(v.int() as f64),
            Op1::IntOfFloat => Value::Int(wrap63(v.float() as i64)),
            Op1::Succ => Value::Int(wrap63(v.int().wrapping_add(1))),
            Op1::Pred => Value::Int(wrap63(v.int().wrapping_sub(1))),
            Op1::Ignore => UNIT,
        }
    }

    #[inline(never)]
    pub(crate) fn op2(&mut self, n: &Op2Node, a: Value, b: Value) -> R<Value> {
        use Op2::*;
        self.count(n.op.counter());
        let bool_value = |b: bool| Value::Int(i64::from(b));
        Ok(match n.op {
            Add => Value::Int(wrap63(a.int().wrapping_add(b.int()))),
            Sub => Value::Int(wrap63(a.int().wrapping_sub(b.int()))),
            Mul => Value::Int(wrap63(a.int().wrapping_mul(b.int()))),
            Div | Mod => {
                let d = b.int();
                if d == 0 {
                    return Err(self.raise(EXN_DIVISION_BY_ZERO, Vec::new(), n.pos));
                }
                let r = if n.op == Div {
                    a.int().wrapping_div(d)
                } else {
                    a.int().wrapping_rem(d)
                };
                Value::Int(wrap63(r))
            }
            Land => Value::Int(a.int() & b.int()),
            Lor => Value::Int(a.int() | b.int()),
            Lxor => Value::Int(a.int() ^ b.int()),
            // Shift counts outside 0..62 are unspecified in OCaml; these follow x86-64.
            Lsl => Value::Int(wrap63(((a.int() as u64) << (b.int() & 63)) as i64)),
            Lsr => Value::Int(wrap63(
                (((a.int() as u64) & (u64::MAX >> 1)) >> (b.int() & 63)) as i64,
            )),
            Asr => Value::Int(a.int() >> b.int().clamp(0, 63)),
            FAdd => Value::Float(a.float() + b.float()),
            FSub => Value::Float(a.float() - b.float()),
            FMul => Value::Float(a.float() * b.float()),
            FDiv => Value::Float(a.float() / b.float()),
            IntEq => bool_value(a.int() == b.int()),
            IntNe => bool_value(a.int() != b.int()),
            IntLt => bool_value(a.int() < b.int()),
            IntLe => bool_value(a.int() <= b.int()),
            IntGt => bool_value(a.int() > b.int()),
            IntGe => bool_value(a.int() >= b.int()),
            FloatEq => bool_value(a.float() == b.float()),
            FloatNe => bool_value(a.float() != b.float()),
            FloatLt => bool_value(a.float() < b.float()),
            FloatLe => bool_value(a.float() <= b.float()),
            FloatGt => bool_value(a.float() > b.float()),
            FloatGe => bool_value(a.float() >= b.float()),
            PhysEq => bool_value(physically_equal(&a, &b)),
            PhysNe => bool_value(!physically_equal(&a, &b)),
            IntCompare => Value::Int(a.int().cmp(&b.int()) as i64),
            FloatCompare => Value::Int(cmp_to_int(compare_floats(a.float(), b.float(), true))),
            PolyCompare => Value::Int(cmp_to_int(self.poly(&a, &b, true, n.pos)?)),
            PolyEq | PolyNe | PolyLt | PolyLe | PolyGt | PolyGe => {
                let c = self.poly(&a, &b, false, n.pos)?;
                bool_value(match n.op {
                    PolyEq => c == Cmp::Equal,
                    PolyNe => c != Cmp::Equal,
                    PolyLt => c == Cmp::Less,
                    PolyLe => matches!(c, Cmp::Less | Cmp::Equal),
                    PolyGt => c == Cmp::Greater,
                    _ => matches!(c, Cmp::Greater | Cmp::Equal),
                })
            }
        })
    }

    fn poly(&self, a: &Value, b: &Value, total: bool, pos: Pos) -> R<Cmp> {
        compare_values(a, b, total).map_err(|FunctionalValue| {
            let msg = Value::Str(Rc::new("compare: functional value".to_string()));
            self.raise(EXN_INVALID_ARGUMENT, vec![msg], pos)
        })
    }
}

fn cmp_to_int(c: Cmp) -> i64 {
    match c {
        Cmp::Less => -1,
        Cmp::Equal | Cmp::Unordered => 0,
        Cmp::Greater => 1,
    }
}
