//! The machine's out-of-line operations: pattern matching, `let rec` groups, the errors it
//! throws itself, partial and over-applications, and the less common primitive operations (the compiled closures of [`crate::lower`] call them).

use crate::ast::Pos;
use crate::catalogue::Counter;
use crate::heap::Born;
use crate::ir::*;
use crate::lower::RecGroupCode;
use crate::machine::{Machine, Thrown, Unwind, R};
use crate::return_stack::{over_application_site, CallSite};
use crate::types::{EXN_DIVISION_BY_ZERO, EXN_INVALID_ARGUMENT, EXN_MATCH_FAILURE};
use crate::value::*;
use std::rc::Rc;

impl Machine<'_> {
    /// Raises the exception `id` with `args`.
    #[cold]
    pub(crate) fn raise(&mut self, id: u32, args: Vec<Value>, pos: Pos) -> Thrown {
        // The runtime's exceptions (Match_failure, Division_by_zero) are rare enough not to be
        // stamped.
        let value = Value::Exn(Rc::new(ExnValue {
            id,
            args: args.into(),
            born: Born::untracked(),
        }));
        self.throw(Unwind::Exn { value, pos })
    }

    /// Replaces the tuple at `stack[argbase]` by its `arity` fields, read as a tupled
    /// function's entry reads them (`TupleMatch` each).
    pub(crate) fn untuple(&mut self, argbase: usize, arity: usize) {
        let fields: Vec<Value> = match &self.stack[argbase] {
            Value::Block(tuple) => {
                tuple.touch();
                tuple.fields.to_vec()
            }
            other => unreachable!(
                "the type checker only passes tuples to tupled functions, not {other:?}"
            ),
        };
        debug_assert_eq!(fields.len(), arity);
        self.count_n(Counter::TupleMatch, arity);
        let tuple = std::mem::replace(&mut self.stack[argbase], UNIT);
        tuple.release();
        self.stack.splice(argbase..=argbase, fields);
    }

    /// A partial application of `fun` (which already holds `args`) to `n` more arguments.
    pub(crate) fn partial(
        &mut self,
        env: Rc<Vec<Value>>,
        fun: FunId,
        mut args: Vec<Value>,
        argbase: usize,
        n: usize,
        known: bool,
    ) -> Value {
        self.count(Counter::FunDef);
        self.count_n(Counter::Closure, n + 1);
        let arity = self.prog.funs[fun as usize].arity as usize;
        let words = partial_application_words(arity, args.len(), n, known);
        args.extend(self.stack.drain(argbase..argbase + n));
        Value::Partial(Rc::new(Partial {
            env,
            fun,
            args,
            curried: !known,
            born: Born::new(words),
        }))
    }

    /// Calls a function with more arguments than its arity: the saturated call, then the
    /// result applied to the rest.
    pub(crate) fn over_apply(
        &mut self,
        env: Rc<Vec<Value>>,
        fid: FunId,
        argbase: usize,
        n: usize,
        tail: bool,
        site: CallSite,
    ) -> R<Value> {
        let arity = self.prog.funs[fid as usize].arity as usize;
        let extra: Vec<Value> = self.stack.drain(argbase + arity..argbase + n).collect();
        // `caml_applyN` calls the function, then jumps to the result's code, which returns to
        // the caller.
        let result = self.invoke_call(Some(env), fid, argbase, over_application_site(arity))?;
        let m = extra.len();
        self.stack.extend(extra);
        self.apply(result, argbase, m, tail, false, site)
    }

    #[cold]
    pub(crate) fn match_failure(&mut self, pos: Pos) -> Thrown {
        let location = Value::Block(Rc::new(Block {
            tag: 0,
            fields: Box::new([
                self.file.clone(),
                Value::Int(i64::from(pos.line)),
                Value::Int(i64::from(pos.col) - 1),
            ]),
            born: Born::untracked(),
        }));
        self.raise(EXN_MATCH_FAILURE, vec![location], pos)
    }

    /// Stops the run with the interpreter's own error at `pos` (not an OCaml exception).
    #[cold]
    pub(crate) fn fatal(&mut self, pos: Pos, message: String) -> Thrown {
        self.throw(Unwind::Fatal { pos, message })
    }

    #[cold]
    pub(crate) fn too_deep(&mut self, fid: FunId) -> Thrown {
        let f = &self.prog.funs[fid as usize];
        let message = format!(
            "recursion too deep: nested non-tail calls (the last into `{}`) exhaust the interpreter's {} MiB stack",
            f.name,
            crate::worker::EVAL_STACK >> 20
        );
        let pos = f.pos;
        self.throw(Unwind::Fatal { pos, message })
    }

    #[inline(never)]
    pub(crate) fn rec_group(&mut self, g: &RecGroupCode) -> R<()> {
        self.count_n(Counter::LetRec, g.funs.len());
        if g.captures.is_empty() {
            // A closed group is static data: its functions' values already exist.
            for &(slot, fid) in g.funs.iter() {
                let f = self.closed[fid as usize].clone();
                self.set_local(slot, f);
            }
            return Ok(());
        }
        self.count_n(Counter::FunDef, g.funs.len());
        self.count_n(Counter::Closure, g.captures.len());
        crate::heap::allocate_short_lived(g.words);
        let values = g.captures.iter().map(|c| c(self)).collect::<R<Vec<_>>>()?;
        let env = Rc::new(values);
        for &(slot, fid) in g.funs.iter() {
            self.set_local(slot, Value::fun(fid, env.clone()));
        }
        Ok(())
    }

    /// A `let` (or parameter) with a pattern other than a name.
    pub(crate) fn bind_pattern(
        &mut self,
        pat: &Pat,
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
    pub(crate) fn matches(&mut self, pat: &Pat, v: &Value) -> bool {
        match pat {
            Pat::Any => true,
            Pat::Bind(s) => {
                self.set_local(*s, v.clone());
                true
            }
            Pat::Imm(i) => matches!(v, Value::Int(x) if x == i),
            Pat::Float(f) => matches!(v, Value::Float(x) if x.get() == *f),
            Pat::Str(s) => matches!(v, Value::Str(x) if **x.bytes.borrow() == *s.as_bytes()),
            Pat::Cons(b) => match v {
                Value::Cons(c) => {
                    // `_ :: _` tests only that the value is a pointer: no memory is read.
                    if !matches!(&**b, (Pat::Any, Pat::Any)) {
                        c.born.touch(crate::heap::CONS_WORDS);
                    }
                    self.matches_field(&b.0, &c.head) && self.matches_field(&b.1, &c.tail)
                }
                _ => false,
            },
            Pat::Tuple(ps) => {
                // A wildcard field is never loaded.
                let read = ps.iter().filter(|p| !matches!(p, Pat::Any)).count();
                self.count_n(Counter::TupleMatch, read);
                match v {
                    Value::Block(b) => {
                        b.touch();
                        ps.iter()
                            .zip(b.fields.iter())
                            .all(|(p, f)| self.matches_field(p, f))
                    }
                    _ => false,
                }
            }
            Pat::Block(tag, ps) => match v {
                // The tag is read from the header whether or not it matches.
                Value::Block(b) if b.touch() == *tag => ps
                    .iter()
                    .zip(b.fields.iter())
                    .all(|(p, f)| self.matches_field(p, f)),
                // A constructor's mutable inline record.
                Value::Mut(b) if b.tag == *tag => {
                    b.touch_fields();
                    let fields = b.fields.borrow();
                    ps.iter()
                        .zip(fields.iter())
                        .all(|(p, f)| self.matches_field(p, f))
                }
                _ => false,
            },
            Pat::Exn(id, ps) => match v {
                Value::Exn(e) if e.id == *id => ps
                    .iter()
                    .zip(e.args.iter())
                    .all(|(p, f)| self.matches_field(p, f)),
                _ => false,
            },
            Pat::Or(b) => self.matches(&b.0, v) || self.matches(&b.1, v),
            Pat::Record(items) => {
                self.count_n(Counter::TupleMatch, items.len());
                match v {
                    Value::Mut(b) => {
                        b.touch_fields();
                        let fields = b.fields.borrow();
                        items
                            .iter()
                            .all(|(i, p)| self.matches_field(p, &fields[*i as usize]))
                    }
                    _ => false,
                }
            }
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

    /// [`Self::matches`] on a field: its commonest patterns (a variable, a wildcard) decided
    /// here, without the recursive call, whose frame costs more than the binding itself.
    #[inline(always)]
    fn matches_field(&mut self, pat: &Pat, v: &Value) -> bool {
        match pat {
            Pat::Any => true,
            Pat::Bind(s) => {
                self.set_local(*s, v.clone());
                true
            }
            _ => self.matches(pat, v),
        }
    }

    /// glibc's `fmod` loop on `x` and `y` ([`crate::float_call::fmod_loop`]): a
    /// `FloatFmodBit` per step, and its two branches — the test of the difference's sign and
    /// the loop's own — recorded as the program's are, for the predictor model to replay. The
    /// sign follows the quotient's bits, so a long run of varied quotients misses about half
    /// of them, as the processor does (a loop of calls at quotients to 300 ran at 13.5 ns a
    /// call over 1000 calls, whose signs the processor learns, and at 44 over 20 000), and
    /// the loop's test misses where the number of steps changes.
    fn run_fmod_loop(&mut self, x: f64, y: f64) {
        let [sign_site, loop_site] = self.prog.fmod_sites;
        let branches = &mut self.branches;
        let ran = crate::float_call::fmod_loop(x, y, |negative| {
            branches.branch(loop_site, true);
            branches.branch(sign_site, negative);
        });
        if let Some((steps, ran_out)) = ran {
            if ran_out {
                self.branches.branch(loop_site, false);
            }
            self.count_n(Counter::FloatFmodBit, steps as usize);
        }
    }

    pub(crate) fn op1(&mut self, op: Op1, v: Value) -> Value {
        if let Some(c) = op.counter() {
            self.count(c);
        }
        match op {
            Op1::Not => Value::Int(1 - v.int()),
            Op1::Neg => Value::Int(wrap63(v.int().wrapping_neg())),
            Op1::FNeg => Value::of_float(-v.float()),
            Op1::Fst => v.tuple_field(0),
            Op1::Snd => v.tuple_field(1),
            Op1::FloatOfInt => Value::of_float(v.int() as f64),
            Op1::IntOfFloat => Value::Int(wrap63(v.float() as i64)),
            Op1::Succ => Value::Int(wrap63(v.int().wrapping_add(1))),
            Op1::Pred => Value::Int(wrap63(v.int().wrapping_sub(1))),
            Op1::Abs if v.int() < 0 => {
                self.count(Counter::IntUMinus);
                Value::Int(wrap63(v.int().wrapping_neg()))
            }
            Op1::Abs => v,
            Op1::FSqrt => Value::of_float(v.float().sqrt()),
            Op1::FAbs => Value::of_float(v.float().abs()),
            Op1::Lnot => Value::Int(!v.int()),
            Op1::FloatCall(call) if call.returns_float() => {
                Value::of_float(call.eval(v.float(), 0.0))
            }
            Op1::FloatCall(call) => Value::Int(call.eval(v.float(), 0.0) as i64),
            Op1::Ignore => UNIT,
        }
    }

    #[inline(never)]
    pub(crate) fn op2(&mut self, op: Op2, pos: Pos, a: Value, b: Value) -> R<Value> {
        use Op2::*;
        self.count(op.counter());
        let bool_value = |b: bool| Value::Int(i64::from(b));
        Ok(match op {
            Add => Value::Int(wrap63(a.int().wrapping_add(b.int()))),
            Sub => Value::Int(wrap63(a.int().wrapping_sub(b.int()))),
            Mul | MulConst => Value::Int(wrap63(a.int().wrapping_mul(b.int()))),
            // A constant divisor is never 0 here: `/ 0` and `mod 0` stay Div and Mod.
            Div
            | Mod
            | DivPow2
            | DivConst
            | ModPow2
            | ModConst
            | DivReused { .. }
            | ModReused { .. } => {
                let d = b.int();
                if d == 0 {
                    return Err(self.raise(EXN_DIVISION_BY_ZERO, Vec::new(), pos));
                }
                let r = if matches!(op, Div | DivPow2 | DivConst | DivReused { .. }) {
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
            FAdd => Value::of_float(a.float() + b.float()),
            FSub => Value::of_float(a.float() - b.float()),
            FMul => Value::of_float(a.float() * b.float()),
            FDiv => Value::of_float(a.float() / b.float()),
            FloatCall(call) => {
                let (x, y) = (a.float(), b.float());
                if call == crate::float_call::FloatCall::Fmod {
                    self.run_fmod_loop(x, y);
                }
                Value::of_float(call.eval(x, y))
            }
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
            PolyCompare => Value::Int(cmp_to_int(self.poly(&a, &b, true, pos)?)),
            PolyEq | PolyNe | PolyLt | PolyLe | PolyGt | PolyGe => {
                let c = self.poly(&a, &b, false, pos)?;
                bool_value(match op {
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

    /// A structural comparison through the runtime: `PolyCompare` is counted by the caller,
    /// `PolyCompareStep` here, once per pair of values the runtime's walk examines, and
    /// `PolyCompareBlock` once per pair of blocks among them.
    fn poly(&mut self, a: &Value, b: &Value, total: bool, pos: Pos) -> R<Cmp> {
        let mut steps = CompareSteps::default();
        let result = compare_values(a, b, total, &mut steps);
        self.count_n(Counter::PolyCompareStep, steps.pairs as usize);
        self.count_n(Counter::PolyCompareBlock, steps.blocks as usize);
        result.map_err(|FunctionalValue| {
            let msg = StrBlock::constant("compare: functional value");
            self.raise(EXN_INVALID_ARGUMENT, vec![msg], pos)
        })
    }
}

/// The transfer through a function value's code pointer that an application of an unknown
/// function to one argument makes: `call *` (`IndirectCall`), or `jmp *` in tail position.
pub(crate) fn through_code_pointer(tail: bool) -> Counter {
    if tail {
        Counter::IndirectJump
    } else {
        Counter::IndirectCall
    }
}

fn cmp_to_int(c: Cmp) -> i64 {
    match c {
        Cmp::Less => -1,
        Cmp::Equal | Cmp::Unordered => 0,
        Cmp::Greater => 1,
    }
}

/// Words a partial application allocates, as ocamlopt 4.13 builds it. A known function's is
/// one closure `fun rest -> f args rest` (closure conversion): header, code pointer, closure
/// info, the full-application pointer when `rest` is more than one argument, the `n`
/// arguments and `f`. An unknown function's goes through `caml_curryN`, one block per argument
/// received: header, code, info, the `_app` pointer while more than one argument is still
/// missing, the argument and the previous closure.
pub(crate) fn partial_application_words(arity: usize, held: usize, n: usize, known: bool) -> u32 {
    let code_words = |missing: usize| crate::heap::closure_code_words(missing as u32);
    if known {
        1 + code_words(arity - n) + n as u32 + 1
    } else {
        (held + 1..=held + n)
            .map(|received| 1 + code_words(arity - received) + 2)
            .sum()
    }
}
