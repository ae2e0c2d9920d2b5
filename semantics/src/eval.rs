//! The cost-semantics interpreter: a big-step evaluator over the compiled IR that counts every
//! construct as it runs (`V ⊢ e ⇓ v | counts`).
//!
//! Frames live on one value stack: a call pushes its arguments, then the callee's locals, and
//! pops them on return, so no environment is ever copied and variables are plain indexed
//! loads. A tail call reuses its caller's frame in a loop (a trampoline), so tail-recursive
//! programs run in constant Rust stack however long they loop. Non-tail recursion uses the
//! Rust stack of the evaluation thread (which has a large stack, see [`crate::program`]);
//! before that stack runs out, the interpreter stops with "recursion too deep".
//!
//! The hot paths (variable loads, integer operations, calls) are handled inline; allocation,
//! pattern matching and the other operations live in [`crate::eval_data`], out of the hot
//! functions' stack frames, which keeps each level of OCaml recursion small on the Rust stack.

use crate::ast::Pos;
use crate::catalogue::{Counter, COUNTER_COUNT};
use crate::ir::*;
use crate::types::EXN_MATCH_FAILURE;
use crate::value::*;
use std::rc::Rc;

/// Why evaluation stopped early.
pub(crate) enum Unwind {
    /// An OCaml exception, raised at `pos` (catchable by `try`).
    Exn { value: Value, pos: Pos },
    /// An interpreter limit (not an OCaml exception): recursion too deep.
    Fatal { pos: Pos, message: String },
}

pub(crate) type R<T> = Result<T, Box<Unwind>>;

/// The result of evaluating an expression in tail position: a value, or a call for the
/// enclosing function's trampoline to make in place of returning (its arguments are the
/// `nargs` values on top of the stack).
pub(crate) enum Tail {
    Value(Value),
    Call {
        callee: Callee,
        nargs: usize,
        known: bool,
    },
}

/// The function of a call: a closed function named statically (no value needs to be built),
/// or a function value.
pub(crate) enum Callee {
    Closed(FunId),
    Value(Value),
}

pub(crate) struct Machine<'p> {
    pub(crate) prog: &'p Compiled,
    pub(crate) file: Rc<String>,
    pub(crate) stack: Vec<Value>,
    pub(crate) base: usize,
    /// Environment of the running closure (closed functions leave it untouched: they never
    /// read it).
    pub(crate) env: Rc<Vec<Value>>,
    pub(crate) empty_env: Rc<Vec<Value>>,
    pub(crate) statics: Vec<Value>,
    pub(crate) counts: [u64; COUNTER_COUNT],
    /// Lowest stack address recursion may reach (the evaluation thread's stack grows down).
    stack_limit: usize,
}

#[inline(always)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

fn materialize(v: &StaticValue) -> Value {
    match v {
        StaticValue::Imm(i) => Value::Int(*i),
        StaticValue::Float(f) => Value::Float(*f),
        StaticValue::Str(s) => Value::Str(Rc::new(s.to_string())),
        StaticValue::Block { tag, fields } => Value::Block(Rc::new(Block {
            tag: *tag,
            fields: fields.iter().map(materialize).collect(),
        })),
        StaticValue::List(items) => items.iter().rev().fold(Value::Int(0), |tail, h| {
            Value::Cons(Rc::new(ConsCell {
                head: materialize(h),
                tail,
            }))
        }),
        StaticValue::Exn(id) => Value::Exn(Rc::new(ExnValue {
            id: *id,
            args: Box::new([]),
        })),
    }
}

impl<'p> Machine<'p> {
    /// A machine for `prog`; `stack_budget` is how many bytes of the current thread's stack
    /// recursion may use.
    pub(crate) fn new(prog: &'p Compiled, file: &str, stack_budget: usize) -> Self {
        let empty_env = Rc::new(Vec::new());
        Machine {
            prog,
            file: Rc::new(file.to_string()),
            stack: Vec::with_capacity(1 << 16),
            base: 0,
            env: empty_env.clone(),
            empty_env,
            statics: prog.statics.iter().map(materialize).collect(),
            counts: [0; COUNTER_COUNT],
            stack_limit: stack_address().saturating_sub(stack_budget),
        }
    }

    #[inline(always)]
    pub(crate) fn count(&mut self, c: Counter) {
        self.counts[c as usize] += 1;
    }

    #[inline(always)]
    pub(crate) fn count_n(&mut self, c: Counter, n: usize) {
        self.counts[c as usize] += n as u64;
    }

    #[inline(always)]
    pub(crate) fn set_local(&mut self, slot: Slot, v: Value) {
        let i = self.base + slot as usize;
        self.stack[i] = v;
    }

    #[inline(always)]
    pub(crate) fn local(&self, slot: Slot) -> Value {
        self.stack[self.base + slot as usize].clone()
    }

    pub(crate) fn raise(&self, id: u32, args: Vec<Value>, pos: Pos) -> Box<Unwind> {
        let value = Value::Exn(Rc::new(ExnValue {
            id,
            args: args.into(),
        }));
        Box::new(Unwind::Exn { value, pos })
    }

    pub(crate) fn match_failure(&self, pos: Pos) -> Box<Unwind> {
        let location = Value::Block(Rc::new(Block {
            tag: 0,
            fields: Box::new([
                Value::Str(self.file.clone()),
                Value::Int(i64::from(pos.line)),
                Value::Int(i64::from(pos.col) - 1),
            ]),
        }));
        self.raise(EXN_MATCH_FAILURE, vec![location], pos)
    }

    /// Sets up the top-level frame (globals) at the bottom of the stack.
    pub(crate) fn enter_toplevel(&mut self) {
        self.stack.clear();
        self.stack.resize(self.prog.toplevel_frame as usize, UNIT);
        self.base = 0;
    }

    pub(crate) fn global(&self, slot: Slot) -> Value {
        self.stack[slot as usize].clone()
    }

    pub(crate) fn run_item(&mut self, item: &'p TopItem) -> R<Option<Value>> {
        match item {
            TopItem::Let(binder, value, counter) => {
                let v = self.eval(value)?;
                self.bind(binder, v, *counter)?;
                Ok(None)
            }
            TopItem::LetRec(group) => {
                self.rec_group(group)?;
                Ok(None)
            }
            TopItem::Expr(code) => self.eval(code).map(Some),
        }
    }

    /// Applies `f` to `args` as the driver does (`input size`, `run x`): the call itself is
    /// the driver's and is not counted (its cost is in `Base`), only what runs inside it.
    pub(crate) fn call_from_driver(&mut self, f: Value, args: Vec<Value>) -> R<Value> {
        let argbase = self.stack.len();
        let n = args.len();
        self.stack.extend(args);
        match f {
            Value::Fun(env, fid) if self.prog.funs[fid as usize].arity as usize == n => {
                self.invoke(Some(env), fid, argbase)
            }
            other => self.apply(other, argbase, n, false, false),
        }
    }

    /// Evaluates `code`, with variable loads and constants handled without a call.
    #[inline(always)]
    pub(crate) fn eval_fast(&mut self, code: &'p Code) -> R<Value> {
        match code {
            Code::Local(s) => Ok(self.local(*s)),
            Code::Imm(i) => Ok(Value::Int(*i)),
            _ => self.eval(code),
        }
    }

    /// Evaluates arguments right to left onto the stack; returns where they start.
    #[inline(always)]
    fn push_args(&mut self, args: &'p [Code]) -> R<usize> {
        let argbase = self.stack.len();
        // Every evaluation leaves the stack as it found it, so each value can be pushed as
        // soon as it is computed; the right-to-left order is then undone by a reversal.
        for a in args.iter().rev() {
            let v = self.eval_fast(a)?;
            self.stack.push(v);
        }
        if args.len() > 1 {
            self.stack[argbase..].reverse();
        }
        Ok(argbase)
    }

    /// The callee of an application: statically closed functions need no value.
    #[inline(always)]
    fn callee(&mut self, func: &'p Code) -> R<Callee> {
        match func {
            Code::ClosedFun(fid) => Ok(Callee::Closed(*fid)),
            other => Ok(Callee::Value(self.eval_fast(other)?)),
        }
    }

    fn callee_value(&self, callee: Callee) -> Value {
        match callee {
            Callee::Closed(fid) => Value::Fun(self.empty_env.clone(), fid),
            Callee::Value(v) => v,
        }
    }

    pub(crate) fn eval(&mut self, code: &'p Code) -> R<Value> {
        match code {
            Code::Imm(i) => Ok(Value::Int(*i)),
            Code::Local(s) => Ok(self.local(*s)),
            Code::Env(i) => Ok(self.env[*i as usize].clone()),
            Code::Global(s) => Ok(self.stack[*s as usize].clone()),
            Code::Static(id) => Ok(self.statics[*id as usize].clone()),
            Code::Sibling(f) => Ok(Value::Fun(self.env.clone(), *f)),
            Code::ClosedFun(f) => Ok(Value::Fun(self.empty_env.clone(), *f)),
            Code::Op2(n) => {
                let b = self.eval_fast(&n.rhs)?;
                let a = self.eval_fast(&n.lhs)?;
                // The commonest integer operations inline; the rest out of line.
                if let (Value::Int(x), Value::Int(y)) = (&a, &b) {
                    let (x, y) = (*x, *y);
                    let result = match n.op {
                        Op2::Add => Some(Value::Int(wrap63(x.wrapping_add(y)))),
                        Op2::Sub => Some(Value::Int(wrap63(x.wrapping_sub(y)))),
                        Op2::IntEq => Some(Value::Int(i64::from(x == y))),
                        Op2::IntLt => Some(Value::Int(i64::from(x < y))),
                        Op2::IntGt => Some(Value::Int(i64::from(x > y))),
                        _ => None,
                    };
                    if let Some(v) = result {
                        self.count(n.op.counter());
                        return Ok(v);
                    }
                }
                self.op2(n, a, b)
            }
            Code::Op1(op, a) => {
                let v = self.eval_fast(a)?;
                Ok(self.op1(*op, v))
            }
            Code::App(app) if !app.tail => {
                let argbase = self.push_args(&app.args)?;
                let n = app.args.len();
                if let Code::ClosedFun(fid) = app.func {
                    if self.prog.funs[fid as usize].arity as usize == n {
                        self.count(Counter::FunApp);
                        return self.invoke(None, fid, argbase);
                    }
                }
                let f = self.eval_fast(&app.func)?;
                self.apply(f, argbase, n, false, app.known)
            }
            Code::MakeClosure(_)
            | Code::Tuple(_)
            | Code::Cons(_)
            | Code::List(_)
            | Code::Block(..)
            | Code::Exn(..)
            | Code::Raise(..) => self.construct(code),
            _ => self.eval_control(code),
        }
    }

    /// Evaluates `code` in tail position: control flow passes tail position on to its
    /// branches (iteratively: nested `if`/`let`/`match` use no Rust stack), and a tail-tagged
    /// application becomes a [`Tail::Call`]. Inlined into the call loop of [`Self::invoke`].
    #[inline(always)]
    pub(crate) fn eval_tail(&mut self, mut code: &'p Code) -> R<Tail> {
        loop {
            match code {
                Code::Local(s) => return Ok(Tail::Value(self.local(*s))),
                Code::Imm(i) => return Ok(Tail::Value(Value::Int(*i))),
                Code::App(app) if app.tail => {
                    self.push_args(&app.args)?;
                    let callee = self.callee(&app.func)?;
                    return Ok(Tail::Call {
                        callee,
                        nargs: app.args.len(),
                        known: app.known,
                    });
                }
                Code::If(b) => {
                    let c = self.eval_fast(&b.0)?.bool();
                    code = if c { &b.1 } else { &b.2 };
                }
                Code::Let(l) => {
                    let v = self.eval_fast(&l.value)?;
                    self.bind(&l.binder, v, l.counter)?;
                    code = &l.body;
                }
                Code::Seq(b) => {
                    self.eval(&b.0)?;
                    code = &b.1;
                }
                Code::And(b) => {
                    self.count(Counter::BoolAnd);
                    if !self.eval_fast(&b.0)?.bool() {
                        return Ok(Tail::Value(Value::Int(0)));
                    }
                    code = &b.1;
                }
                Code::Or(b) => {
                    self.count(Counter::BoolOr);
                    if self.eval_fast(&b.0)?.bool() {
                        return Ok(Tail::Value(Value::Int(1)));
                    }
                    code = &b.1;
                }
                Code::Match(m) => code = self.select_arm(m)?,
                Code::MatchTuple(m) => code = self.select_tuple_arm(m)?,
                Code::Try(t) => return self.eval_try(t),
                Code::LetRec(b) => {
                    self.rec_group(&b.0)?;
                    code = &b.1;
                }
                _ => return Ok(Tail::Value(self.eval(code)?)),
            }
        }
    }

    /// Control flow met outside tail position (kept out of [`Self::eval`]'s frame).
    #[inline(never)]
    fn eval_control(&mut self, code: &'p Code) -> R<Value> {
        match self.eval_tail(code)? {
            Tail::Value(v) => Ok(v),
            // Only reachable for a tail-tagged call outside a function body, which the tail
            // pass never produces; calling it is still the right meaning.
            Tail::Call {
                callee,
                nargs,
                known,
            } => {
                let argbase = self.stack.len() - nargs;
                let f = self.callee_value(callee);
                self.apply(f, argbase, nargs, true, known)
            }
        }
    }

    pub(crate) fn bind(
        &mut self,
        binder: &'p Binder,
        value: Value,
        counter: Option<Counter>,
    ) -> R<()> {
        if let Some(c) = counter {
            self.count(c);
        }
        match binder {
            Binder::Slot(s) => {
                self.set_local(*s, value);
                Ok(())
            }
            Binder::Pattern {
                pat,
                refutable,
                pos,
            } => self.bind_pattern(pat, *refutable, *pos, value),
        }
    }

    /// Applies `f` to the `n` values at `stack[argbase..]` (which it consumes), counting the
    /// application as native code performs it (see the catalogue's FunApp/FunDef rules).
    pub(crate) fn apply(
        &mut self,
        f: Value,
        argbase: usize,
        n: usize,
        tail: bool,
        known: bool,
    ) -> R<Value> {
        let app = if tail {
            Counter::TailApp
        } else {
            Counter::FunApp
        };
        match f {
            Value::Fun(env, fid) => {
                let arity = self.prog.funs[fid as usize].arity as usize;
                match n.cmp(&arity) {
                    std::cmp::Ordering::Equal => {
                        self.count(app);
                        self.invoke(Some(env), fid, argbase)
                    }
                    std::cmp::Ordering::Less => {
                        // A known function's partial application is built inline; an unknown
                        // one goes through a call to caml_curryN, which allocates it.
                        if !known {
                            self.count(app);
                        }
                        Ok(self.partial(env, fid, Vec::new(), argbase, n))
                    }
                    std::cmp::Ordering::Greater => {
                        self.count(Counter::FunApp);
                        self.over_apply(env, fid, argbase, arity, n, tail)
                    }
                }
            }
            Value::Partial(p) => {
                let arity = self.prog.funs[p.fun as usize].arity as usize;
                let total = p.args.len() + n;
                if total < arity {
                    self.count(app);
                    return Ok(self.partial(p.env.clone(), p.fun, p.args.clone(), argbase, n));
                }
                // The partial application's code forwards to the function with a jump.
                self.count(if total == arity { app } else { Counter::FunApp });
                self.count(Counter::TailApp);
                self.stack.splice(argbase..argbase, p.args.iter().cloned());
                if total == arity {
                    self.invoke(Some(p.env.clone()), p.fun, argbase)
                } else {
                    self.over_apply(p.env.clone(), p.fun, argbase, arity, total, tail)
                }
            }
            other => unreachable!("the type checker only lets functions be applied, not {other:?}"),
        }
    }

    fn partial(
        &mut self,
        env: Rc<Vec<Value>>,
        fun: FunId,
        mut args: Vec<Value>,
        argbase: usize,
        n: usize,
    ) -> Value {
        self.count(Counter::FunDef);
        self.count_n(Counter::Closure, n + 1);
        args.extend(self.stack.drain(argbase..argbase + n));
        Value::Partial(Rc::new(Partial { env, fun, args }))
    }

    /// Calls a function with more arguments than its arity: the saturated call, then the
    /// result applied to the rest.
    fn over_apply(
        &mut self,
        env: Rc<Vec<Value>>,
        fid: FunId,
        argbase: usize,
        arity: usize,
        n: usize,
        tail: bool,
    ) -> R<Value> {
        let extra: Vec<Value> = self.stack.drain(argbase + arity..argbase + n).collect();
        let result = self.invoke(Some(env), fid, argbase)?;
        let m = extra.len();
        self.stack.extend(extra);
        self.apply(result, argbase, m, tail, false)
    }

    /// Runs function `fid` on the arguments at `stack[argbase..]`, looping on its tail calls.
    /// `env` is the closure's environment (`None` for a statically closed function).
    fn invoke(&mut self, env: Option<Rc<Vec<Value>>>, mut fid: FunId, argbase: usize) -> R<Value> {
        if stack_address() < self.stack_limit {
            return Err(self.too_deep(fid));
        }
        let prog = self.prog;
        let saved_base = self.base;
        // Closed functions never read the environment: keep the caller's in place, and save
        // it only when switching to a closure's.
        let mut saved_env = match env {
            Some(env) if !env.is_empty() => Some(std::mem::replace(&mut self.env, env)),
            _ => None,
        };
        let result = loop {
            let f = &prog.funs[fid as usize];
            self.base = argbase;
            let frame_end = argbase + f.frame_size as usize;
            if self.stack.len() < frame_end {
                self.stack.resize(frame_end, UNIT);
            }
            match self.eval_tail(&f.body) {
                Ok(Tail::Value(v)) => break Ok(v),
                Ok(Tail::Call {
                    callee,
                    nargs,
                    known,
                }) => match self.tail_call(callee, nargs, known, argbase, &mut saved_env) {
                    Ok(next) => fid = next,
                    Err(result) => break result,
                },
                Err(e) => break Err(e),
            }
        };
        self.pop_to(argbase);
        self.base = saved_base;
        if let Some(env) = saved_env {
            self.env = env;
        }
        result
    }

    /// A tail call from the frame at `argbase`: moves the arguments into the frame and either
    /// returns the function to loop into (`Ok`), or makes the call that cannot loop
    /// (partial or over-application) and returns its result (`Err`).
    #[inline(never)]
    fn tail_call(
        &mut self,
        callee: Callee,
        nargs: usize,
        known: bool,
        argbase: usize,
        saved_env: &mut Option<Rc<Vec<Value>>>,
    ) -> Result<FunId, R<Value>> {
        let src = self.stack.len() - nargs;
        for i in 0..nargs {
            self.stack.swap(argbase + i, src + i);
        }
        self.pop_to(argbase + nargs);
        let next = match &callee {
            Callee::Closed(next) | Callee::Value(Value::Fun(_, next)) => Some(*next),
            Callee::Value(_) => None,
        };
        match next {
            Some(next) if self.prog.funs[next as usize].arity as usize == nargs => {
                self.count(Counter::TailApp);
                if let Callee::Value(Value::Fun(next_env, _)) = callee {
                    if !next_env.is_empty() && !Rc::ptr_eq(&next_env, &self.env) {
                        let previous = std::mem::replace(&mut self.env, next_env);
                        saved_env.get_or_insert(previous);
                    }
                }
                Ok(next)
            }
            _ => {
                let f = self.callee_value(callee);
                Err(self.apply(f, argbase, nargs, true, known))
            }
        }
    }

    /// Pops the stack down to `len`; immediates need no drop call.
    #[inline(always)]
    fn pop_to(&mut self, len: usize) {
        while self.stack.len() > len {
            match self.stack.pop() {
                Some(Value::Int(_) | Value::Float(_)) | None => {}
                Some(other) => drop(other),
            }
        }
    }

    #[cold]
    fn too_deep(&self, fid: FunId) -> Box<Unwind> {
        let f = &self.prog.funs[fid as usize];
        let message = format!(
            "recursion too deep: nested non-tail calls (the last into `{}`) exhaust the interpreter's {} MiB stack",
            f.name,
            crate::worker::EVAL_STACK >> 20
        );
        Box::new(Unwind::Fatal {
            pos: f.pos,
            message,
        })
    }
}
