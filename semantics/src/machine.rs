//! The cost-semantics machine: the state the compiled closures of [`crate::lower`] run on,
//! and the calling convention (`V ⊢ e ⇓ v | counts`, counting every construct as it runs).
//!
//! Frames live on one value stack: a call pushes its arguments, then the callee's locals, and
//! pops them on return, so no environment is ever copied and variables are plain indexed
//! loads. A tail call does not call: the closure in tail position leaves a [`PendingCall`]
//! in the machine, and the function's loop in [`Machine::invoke`] makes it in place of the
//! caller's frame (a trampoline), so tail-recursive programs run in constant Rust stack
//! however long they loop. Non-tail recursion uses the Rust stack of the evaluation thread
//! (which has a large stack, see [`crate::program`]); before that stack runs out, the
//! interpreter stops with "recursion too deep".
//!
//! Pattern matching, data and the less common operations live in [`crate::machine_ops`].

mod driver;
mod frame_slots;
mod loop_levels;
mod native_stack;
mod plain_call;
mod spare_stack;
mod stack_prefetch;
mod statics;

use crate::ast::Pos;
use crate::catalogue::{Counter, COUNTER_COUNT};
use crate::ir::*;
use crate::lower::Executable;
use crate::return_stack::{CallSite, NO_SITE};
use crate::value::*;
use std::rc::Rc;

/// Why evaluation stopped early.
pub(crate) enum Unwind {
    /// An OCaml exception, raised at `pos` (catchable by `try`).
    Exn { value: Value, pos: Pos },
    /// An interpreter limit (not an OCaml exception): recursion too deep.
    Fatal { pos: Pos, message: String },
}

/// Evaluation was interrupted: the [`Unwind`] is in [`Machine::unwind`]. Keeping the error
/// out of the result type keeps `R<Value>` a pair of registers (see [`Value`]).
#[derive(Debug)]
pub(crate) struct Thrown;

pub(crate) type R<T> = Result<T, Thrown>;

/// A call in tail position, left for the enclosing function's loop to make in place of
/// returning; its arguments are the `nargs` values on top of the stack. Its fields are set
/// and read one by one: copied whole, it would be written in pieces and read back at once,
/// which stalls (see [`Value`]).
pub(crate) struct PendingCall {
    pub kind: CalleeKind,
    /// The function, for a callee named statically.
    pub fun: FunId,
    /// The function value, for a callee that is not (`UNIT` otherwise).
    pub value: Value,
    pub nargs: usize,
    pub known: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CalleeKind {
    /// No call is pending.
    None,
    Closed,
    Sibling,
    Value,
}

/// The function of a call: a closed function named statically (no value needs to be built),
/// or a function value.
pub(crate) enum Callee {
    Closed(FunId),
    /// A member of the running closure's recursive group: it runs in the same environment.
    Sibling(FunId),
    Value(Value),
}

/// A call of the running function by itself, on its way to entering it again.
#[derive(Clone, Copy)]
pub(crate) struct SelfCall {
    pub fid: FunId,
    /// The chain the loop it closes carries (see [`crate::issue`]).
    pub chain: Chain,
    /// One level down a linear recursion (see [`crate::ir::App::descends`]).
    pub descends: bool,
}

pub(crate) struct Machine<'p> {
    pub(crate) prog: &'p Executable,
    pub(crate) file: Value,
    pub(crate) stack: Vec<Value>,
    pub(crate) base: usize,
    /// Environment of the running closure (closed functions leave it untouched: they never
    /// read it).
    pub(crate) env: Rc<Vec<Value>>,
    pub(crate) statics: Vec<Value>,
    /// The value of each function as a static closure (used for the closed ones only).
    pub(crate) closed: Vec<Value>,
    pub(crate) counts: [u64; COUNTER_COUNT],
    /// Instructions issued so far, by [`crate::issue`]'s table: loops read it to tell whether
    /// their chain binds and what their calls shadow.
    pub(crate) issued: u64,
    /// The other clocks of [`crate::issue::IterationMark`], moved as `counts` are
    /// ([`Machine::tick_clocks`]) and never reset: calls made, control transfers'
    /// instructions, the divider's operations and its busy cycles.
    pub(crate) calls: u64,
    pub(crate) control: u64,
    pub(crate) divisions: u64,
    pub(crate) divider_busy: u64,
    /// Per function, where its loop stands (see [`crate::issue::LoopState`]).
    pub(crate) loops: Vec<crate::issue::LoopState>,
    /// Calls and other instructions the loop iterations that ended so far accounted for.
    pub(crate) iterated: crate::issue::Iterated,
    /// A self call on its way: it ends an iteration when it enters the function.
    pub(crate) self_call: Option<SelfCall>,
    /// The running frame's slots stored in it since they were last written (bit per slot):
    /// see [`Machine::spill_around_call`].
    pub(crate) stored: u64,
    /// The way-back chain of the level running, as the last `if` it ran on its way back
    /// says (see [`crate::ir::IfChains::way_back`]), with the function it is a level of.
    pub(crate) way_back_arm: Option<(FunId, Chain)>,
    /// The callers' `way_back_arm`s, one per level of a linear recursion running: kept here,
    /// not in [`Machine::invoke`]'s frame, which every level of a deep recursion pushes
    /// (a chain is 28 bytes; a fresh frame's every line is a cache miss).
    pub(crate) callers_arms: Vec<Option<(FunId, Chain)>>,
    /// The native frames' cache lines (`FarStackWord`).
    pub(crate) native_stack: native_stack::NativeStack,
    /// Chain cycles counted beyond the whole ones, in `ISSUE_WIDTH`ths of a cycle.
    pub(crate) chain_fraction: u64,
    /// Quarter-cycles of the divider's not yet counted as a whole `DividerCycle`.
    pub(crate) divider_fraction: u64,
    /// Sixths of an `AllocWriteCycle` not yet a whole cycle.
    pub(crate) alloc_write_fraction: u64,
    /// Sixths of a cycle of `AllocWriteCycle` counted so far: a clock, so that an outer
    /// iteration weighs its words against the time its inner loops already waited on theirs.
    pub(crate) alloc_waited: u64,
    /// The expected `CamlModifyYoung` so far less those counted ([`Machine::caml_modify`]).
    pub(crate) young_modify_excess: f64,
    /// Set by a closure in tail position instead of calling (see [`PendingCall`]); only ever
    /// set on the way out of a function body, and consumed by its loop.
    pub(crate) pending: PendingCall,
    /// What interrupted evaluation, while a [`Thrown`] propagates.
    unwind: Option<Unwind>,
    /// Lowest stack address recursion may reach (the evaluation thread's stack grows down).
    stack_limit: usize,
    /// The run's branches, for the model predictors (`JumpMiss`, `BranchMiss`).
    pub(crate) branches: crate::branch_trace::BranchTrace,
    /// The model of the processor's return-address stack (`ReturnMiss`).
    returns: crate::return_stack::ReturnStack,
    /// Counts per function, when asked for ([`crate::by_function`]).
    pub(crate) attribution: Option<Box<crate::by_function::Attribution>>,
}

#[inline(always)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

impl<'p> Machine<'p> {
    /// A machine for `prog`; `stack_budget` is how many bytes of the current thread's stack
    /// recursion may use.
    pub(crate) fn new(prog: &'p Executable, file: &str, stack_budget: usize) -> Self {
        let empty_env = Rc::new(Vec::new());
        Machine {
            prog,
            file: StrBlock::constant(file),
            stack: spare_stack::take(),
            base: 0,
            env: empty_env.clone(),
            statics: prog.statics.iter().map(statics::materialize).collect(),
            closed: (0..prog.funs.len() as FunId)
                .map(|fid| Value::fun(fid, empty_env.clone()))
                .collect(),
            counts: [0; COUNTER_COUNT],
            issued: 0,
            calls: 0,
            control: 0,
            divisions: 0,
            divider_busy: 0,
            loops: vec![Default::default(); prog.funs.len()],
            iterated: Default::default(),
            self_call: None,
            stored: 0,
            way_back_arm: None,
            callers_arms: Vec::new(),
            native_stack: Default::default(),
            chain_fraction: 0,
            divider_fraction: 0,
            alloc_write_fraction: 0,
            alloc_waited: 0,
            young_modify_excess: 0.0,
            pending: PendingCall {
                kind: CalleeKind::None,
                fun: 0,
                value: UNIT,
                nargs: 0,
                known: false,
            },
            unwind: None,
            stack_limit: stack_address().saturating_sub(stack_budget),
            branches: Default::default(),
            returns: Default::default(),
            attribution: None,
        }
    }

    #[inline(always)]
    pub(crate) fn count(&mut self, c: Counter) {
        self.counts[c as usize] += 1;
        self.issued += crate::issue::INSTRUCTIONS[c as usize] as u64;
        self.tick_clocks(c, 1);
        if crate::return_stack::calls_the_runtime(c) {
            self.returns.leaf_call();
        }
    }

    #[inline(always)]
    pub(crate) fn count_n(&mut self, c: Counter, n: usize) {
        self.counts[c as usize] += n as u64;
        self.issued += crate::issue::INSTRUCTIONS[c as usize] as u64 * n as u64;
        self.tick_clocks(c, n as u64);
    }

    /// Interrupts evaluation with `unwind`.
    #[cold]
    pub(crate) fn throw(&mut self, unwind: Unwind) -> Thrown {
        self.unwind = Some(unwind);
        Thrown
    }

    /// What interrupted evaluation (after a [`Thrown`]).
    pub(crate) fn take_unwind(&mut self) -> Unwind {
        self.unwind
            .take()
            .expect("a Thrown comes with its unwind in the machine")
    }

    pub(crate) fn callee_value(&self, callee: Callee) -> Value {
        match callee {
            Callee::Closed(fid) => self.closed[fid as usize].clone(),
            Callee::Sibling(fid) => Value::fun(fid, self.env.clone()),
            Callee::Value(v) => v,
        }
    }

    pub(crate) fn bind(
        &mut self,
        binder: &Binder,
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
        site: CallSite,
    ) -> R<Value> {
        let app = if tail {
            Counter::TailApp
        } else {
            Counter::FunApp
        };
        // A closure or a partial application, reached through its code pointer.
        if !known && n == 1 {
            self.count(crate::machine_ops::through_code_pointer(tail));
        }
        match f {
            Value::Fun(f) => {
                let (env, fid) = (f.env.clone(), f.fun);
                let arity = self.prog.funs[fid as usize].arity as usize;
                // One argument through a tupled entry is no `caml_applyN`, whatever the arity.
                let checked_arity = !known && n >= 2;
                let n = if self.prog.funs[fid as usize].tupled && n >= 1 {
                    // The closure's entry (`caml_tuplifyN`): the fields loaded, then a jump.
                    self.untuple(argbase, arity);
                    self.count(Counter::TailApp);
                    self.count(Counter::IndirectJump);
                    n - 1 + arity
                } else {
                    n
                };
                match n.cmp(&arity) {
                    std::cmp::Ordering::Equal => {
                        self.count(app);
                        if checked_arity {
                            self.count(Counter::ApplyN);
                        }
                        if tail {
                            self.invoke(Some(env), fid, argbase)
                        } else {
                            self.invoke_call(Some(env), fid, argbase, site)
                        }
                    }
                    std::cmp::Ordering::Less => {
                        // A known function's partial application is built inline; an unknown
                        // one goes through a call to caml_curryN, which allocates it.
                        if !known {
                            self.count(app);
                        }
                        Ok(self.partial(env, fid, Vec::new(), argbase, n, known))
                    }
                    std::cmp::Ordering::Greater => {
                        self.count(Counter::FunApp);
                        self.over_apply(env, fid, argbase, n, tail, site)
                    }
                }
            }
            Value::Partial(p) => {
                let arity = self.prog.funs[p.fun as usize].arity as usize;
                let total = p.args.len() + n;
                if total < arity {
                    self.count(app);
                    let args = p.args.clone();
                    return Ok(self.partial(p.env.clone(), p.fun, args, argbase, n, false));
                }
                // The partial application's code forwards to the function with a jump.
                self.count(if total == arity { app } else { Counter::FunApp });
                if total == arity && n >= 2 {
                    self.count(Counter::ApplyN);
                }
                self.count(Counter::TailApp);
                if p.curried {
                    self.count(Counter::IndirectJump);
                }
                self.stack.splice(argbase..argbase, p.args.iter().cloned());
                if total == arity && tail {
                    self.invoke(Some(p.env.clone()), p.fun, argbase)
                } else if total == arity {
                    self.invoke_call(Some(p.env.clone()), p.fun, argbase, site)
                } else {
                    self.over_apply(p.env.clone(), p.fun, argbase, total, tail, site)
                }
            }
            other => unreachable!("the type checker only lets functions be applied, not {other:?}"),
        }
    }

    /// A native call of `fid` (a FunApp) from `site`: its return address written into the
    /// ring, and `ReturnMiss` counted when the return is mispredicted. A raise leaves by a
    /// jump, not a return, and moves the ring's top neither way.
    #[inline(always)]
    pub(crate) fn invoke_call(
        &mut self,
        env: Option<Rc<Vec<Value>>>,
        fid: FunId,
        argbase: usize,
        site: CallSite,
    ) -> R<Value> {
        self.returns.call(site);
        let result = if self.prog.funs[fid as usize].plain && self.attribution.is_none() {
            self.invoke_plain(env, fid, argbase)
        } else {
            self.invoke(env, fid, argbase)
        };
        if result.is_ok() && self.returns.ret(site) {
            self.count(Counter::ReturnMiss);
        }
        result
    }

    /// Runs function `fid` on the arguments at `stack[argbase..]`, looping on its tail calls.
    /// `env` is the closure's environment (`None` for a statically closed function).
    pub(crate) fn invoke(
        &mut self,
        env: Option<Rc<Vec<Value>>>,
        mut fid: FunId,
        argbase: usize,
    ) -> R<Value> {
        let sp = stack_address();
        if sp < self.stack_limit {
            return Err(self.too_deep(fid));
        }
        stack_prefetch::deeper_frames(sp);
        let prog = self.prog;
        let saved_base = self.base;
        let caller = self.attributed_function();
        // Closed functions never read the environment: keep the caller's in place, and save
        // it only when switching to a closure's.
        let mut saved_env = match env {
            Some(env) if !env.is_empty() => Some(std::mem::replace(&mut self.env, env)),
            _ => None,
        };
        // A tail call to the running function jumps past its prologue: only entering
        // another function sets up a frame.
        let mut entered = None;
        // Whether the function running at this level has a native frame on the stack now,
        // and its words.
        let mut framed = false;
        let mut frame_words = 0;
        let mut frame_mark = native_stack::DeepestMark::default();
        // Entered one level down a linear recursion: the function (its way back's chain is
        // its `return_chain`); the caller's arm is then on `callers_arms`.
        let mut way_back: Option<FunId> = None;
        let saved_stored = self.stored;
        // The loop whose instance began at this level, which ends when the level does.
        let mut instance_of: Option<FunId> = None;
        let result = loop {
            // Entered or entered again with new arguments: nothing of this frame is stored.
            self.stored = 0;
            let f = &prog.funs[fid as usize];
            let fresh = entered != Some(fid);
            if caller.is_some() {
                self.attribute_to(Some(fid));
            }
            if fresh && f.framed {
                self.count(Counter::Frame);
            }
            if f.is_loop && self.loop_head(fid, fresh, &mut way_back) {
                instance_of = Some(fid);
            }
            if f.loop_polls {
                self.count(Counter::LoopPoll);
            }
            if f.framed != framed {
                framed = f.framed;
                if framed {
                    crate::heap::frame_entered();
                } else {
                    crate::heap::frame_left();
                }
            }
            if f.native_frame_words != frame_words {
                self.native_stack.pop(frame_words, true, frame_mark);
                frame_words = f.native_frame_words;
                frame_mark = self.native_stack.push(frame_words);
            }
            entered = Some(fid);
            self.base = argbase;
            self.grow_frame(argbase + f.frame_size as usize);
            match (f.body)(self) {
                Ok(v) => {
                    if self.pending.kind == CalleeKind::None {
                        break Ok(v);
                    }
                    match self.tail_call(fid, argbase, &mut saved_env) {
                        Ok(next) => fid = next,
                        Err(result) => break result,
                    }
                }
                Err(e) => break Err(e),
            }
        };
        if let Some(fid) = way_back {
            self.level_returned(fid, result.is_ok());
        }
        if let Some(fid) = instance_of {
            self.loop_left(fid);
        }
        if framed {
            crate::heap::frame_left();
        }
        // A raise jumps to its handler without reading the frames between.
        self.native_stack
            .pop(frame_words, result.is_ok(), frame_mark);
        self.pop_to(argbase);
        self.base = saved_base;
        self.stored = saved_stored;
        if let Some(env) = saved_env {
            self.env = env;
        }
        if let Some(caller) = caller {
            self.attribute_to(caller);
        }
        stack_prefetch::shallower_frames(stack_address());
        result
    }

    /// Leaves a call for the running function's loop (see [`PendingCall`]); a callee that
    /// is a value must be in `pending.value` already.
    #[inline(always)]
    pub(crate) fn leave_call(&mut self, kind: CalleeKind, fun: FunId, nargs: usize, known: bool) {
        let p = &mut self.pending;
        p.kind = kind;
        p.fun = fun;
        p.nargs = nargs;
        p.known = known;
    }

    /// The pending tail call of `running` from the frame at `argbase`: moves the arguments
    /// into the frame and either returns the function to loop into (`Ok`), or makes the call
    /// that cannot loop (partial or over-application) and returns its result (`Err`).
    #[inline(never)]
    fn tail_call(
        &mut self,
        running: FunId,
        argbase: usize,
        saved_env: &mut Option<Rc<Vec<Value>>>,
    ) -> Result<FunId, R<Value>> {
        let p = &mut self.pending;
        let (nargs, known, fun) = (p.nargs, p.known, p.fun);
        // The commonest tail call, a loop's jump back: a function named statically, given as
        // many arguments as it takes. No callee value is built, matched and dropped for it.
        if matches!(p.kind, CalleeKind::Closed | CalleeKind::Sibling)
            && self.prog.funs[fun as usize].arity as usize == nargs
        {
            p.kind = CalleeKind::None;
            self.move_arguments(argbase, nargs);
            self.count(if known && fun == running {
                Counter::SelfTailApp
            } else {
                Counter::TailApp
            });
            return Ok(fun);
        }
        let callee = match std::mem::replace(&mut p.kind, CalleeKind::None) {
            CalleeKind::Closed => Callee::Closed(fun),
            CalleeKind::Sibling => Callee::Sibling(fun),
            _ => Callee::Value(std::mem::replace(&mut p.value, UNIT)),
        };
        self.move_arguments(argbase, nargs);
        let next = match &callee {
            Callee::Closed(next) | Callee::Sibling(next) => Some(*next),
            Callee::Value(Value::Fun(f)) => Some(f.fun),
            Callee::Value(_) => None,
        };
        match next {
            Some(next) if self.prog.funs[next as usize].arity as usize == nargs => {
                // ocamlopt turns a known function's saturated tail call of itself into a jump
                // back to its loop head; any other tail call leaves through the epilogue.
                self.count(if known && next == running {
                    Counter::SelfTailApp
                } else {
                    Counter::TailApp
                });
                if !known && matches!(callee, Callee::Value(_)) {
                    self.count(if nargs >= 2 {
                        Counter::ApplyN
                    } else {
                        Counter::IndirectJump
                    });
                }
                if let Callee::Value(Value::Fun(f)) = callee {
                    if !f.env.is_empty() && !Rc::ptr_eq(&f.env, &self.env) {
                        let previous = std::mem::replace(&mut self.env, f.env.clone());
                        saved_env.get_or_insert(previous);
                    }
                }
                Ok(next)
            }
            _ => {
                let f = self.callee_value(callee);
                Err(self.apply(f, argbase, nargs, true, known, NO_SITE))
            }
        }
    }

    /// Pops the stack down to `len`; immediates need no drop call.
    #[inline(always)]
    pub(crate) fn pop_to(&mut self, len: usize) {
        while self.stack.len() > len {
            if let Some(v) = self.stack.pop() {
                v.release();
            }
        }
    }
}
