//! The executable form of a program: the IR of [`crate::ir`] compiled once, at load time, into
//! a tree of Rust closures that the [`Machine`] calls.
//!
//! Why closures rather than walking the IR: a tree-walker pays, at every node, a dispatch on
//! the node's kind and moves each value through the generic result types of that dispatch;
//! here each node's closure is specialised when it is built — an integer operation on a
//! local and a constant reads them in place, a condition yields a `bool` without building a
//! value, a call of a known function of the right arity goes straight to its frame — so
//! running a construct is one indirect call doing exactly that construct's work. The counting
//! is the same, construct for construct, in the same order.
//!
//! Tail position is compiled in: a closure built for tail position leaves a tail call in
//! [`Machine::pending`] for the function's loop instead of calling (see [`crate::machine`]).
//! Data, `match`, `try` and `let rec` are compiled in [`crate::lower_data`], applications in
//! [`crate::lower_call`].

use crate::ast::Pos;
use crate::catalogue::Counter;
use crate::ir::*;
use crate::machine::{Machine, R};
use crate::value::*;

/// A compiled expression: evaluates it on the machine, counting its constructs.
pub(crate) type Ev = Box<dyn Fn(&mut Machine<'_>) -> R<Value> + Send + Sync>;
/// A compiled condition: the boolean itself, without a value.
pub(crate) type CondEv = Box<dyn Fn(&mut Machine<'_>) -> R<bool> + Send + Sync>;

/// Boxes a closure as an [`Ev`] (the annotation makes it generic over the machine's lifetime).
pub(crate) fn ev(f: impl Fn(&mut Machine<'_>) -> R<Value> + Send + Sync + 'static) -> Ev {
    Box::new(f)
}

fn cond_ev(f: impl Fn(&mut Machine<'_>) -> R<bool> + Send + Sync + 'static) -> CondEv {
    Box::new(f)
}

pub(crate) struct ExecFun {
    pub name: String,
    /// As native code names it (see [`crate::ir::FunCode::symbol`]).
    pub symbol: String,
    pub arity: u32,
    /// Slots of the frame: the parameters first, then every local the body binds.
    pub frame_size: u32,
    /// Compiled for tail position.
    pub body: Ev,
    pub pos: Pos,
    /// Entering it sets up a stack frame: `Frame`.
    pub framed: bool,
    /// Words of that frame (see [`crate::ir::FunCode::native_frame_words`]).
    pub native_frame_words: u32,
    /// Entering it, and each jump back of its self tail calls, polls: `LoopPoll`.
    pub loop_polls: bool,
    /// It calls itself: entering it starts an iteration of its loop.
    pub is_loop: bool,
    /// See [`crate::ir::FunCode::return_chain`].
    pub return_chain: Chain,
    /// It takes a tuple's components (see [`crate::ir::FunCode::tupled`]).
    pub tupled: bool,
    /// Entering it does nothing but set up the frame: no `Frame`, no poll, no loop; and its
    /// body never leaves a tail call. [`Machine::invoke`] runs such a function (`id`, most
    /// leaves) on a short path.
    pub plain: bool,
}

/// A `let rec` group: the slot and function of each member, and the captured values the
/// members share (none: the group is closed, i.e. static).
pub(crate) struct RecGroupCode {
    pub funs: Box<[(Slot, FunId)]>,
    pub captures: Box<[Ev]>,
    /// Words of the group's one closure block (see [`Lower::closure_words`]).
    pub words: u32,
}

/// A boxed float: header and the double.
pub(crate) const FLOAT_BOX_WORDS: u32 = 2;

pub(crate) enum ExecItem {
    Let(Binder, Ev, Option<Counter>),
    LetRec(RecGroupCode),
    Expr(Ev),
}

/// A compiled program (see [`Compiled`] for the fields it keeps).
pub(crate) struct Executable {
    pub funs: Vec<ExecFun>,
    /// Per branch site, the cycles its condition takes to compute: a misprediction is found
    /// only then, and the work done on the wrong path meanwhile is lost (see
    /// [`crate::branch_trace`]). 0 for sites other than an `if`'s.
    pub site_resolve: Vec<u32>,
    /// Per branch site, whether its test waits on the chain that binds its loop
    /// ([`crate::ir::IfChains::waits_on_chain`]): a mispredicted exit there is found only when
    /// the chain has run, so nothing after the loop overlaps it.
    pub site_waits_on_chain: Vec<bool>,
    /// The two sites of glibc's `fmod` loop, after the program's own: the test of a step's
    /// sign and the loop's test ([`crate::float_call::fmod_loop`]), whose outcomes follow the
    /// operands' bits and join the program's branches in the predictor model.
    pub fmod_sites: [u32; 2],
    pub statics: Vec<StaticValue>,
    pub items: Vec<ExecItem>,
    pub toplevel_frame: u32,
    pub prelude_items: usize,
    pub exception_names: Vec<String>,
}

impl std::fmt::Debug for Executable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executable")
            .field(
                "funs",
                &self.funs.iter().map(|f| &f.name).collect::<Vec<_>>(),
            )
            .field("items", &self.items.len())
            .finish_non_exhaustive()
    }
}

/// An operand read without a call when it is a local or a constant (most operands are).
pub(crate) enum Operand {
    Local(Slot),
    /// A local read for the last time: moved out of the frame.
    Take(Slot),
    Imm(i64),
    Code(Ev),
}

impl Operand {
    #[inline(always)]
    pub(crate) fn get(&self, m: &mut Machine<'_>) -> R<Value> {
        match self {
            Operand::Local(s) => Ok(m.local(*s)),
            Operand::Take(s) => Ok(m.take_local(*s)),
            Operand::Imm(i) => Ok(Value::Int(*i)),
            Operand::Code(e) => e(m),
        }
    }

    /// The operand as an integer (the type checker guarantees it is an immediate).
    #[inline(always)]
    pub(crate) fn int(&self, m: &mut Machine<'_>) -> R<i64> {
        match self {
            Operand::Local(s) | Operand::Take(s) => Ok(m.local_ref(*s).int()),
            Operand::Imm(i) => Ok(*i),
            Operand::Code(e) => Ok(e(m)?.into_int()),
        }
    }
}

/// Compiles a program's functions and top-level items.
pub(crate) fn program(c: Compiled) -> Executable {
    let lower = Lower {
        arities: c.funs.iter().map(|f| f.arity).collect(),
        sites: Default::default(),
        call_sites: Default::default(),
        resolve: Default::default(),
        waits_on_chain: Default::default(),
        lowering: Default::default(),
        leaves_calls: Default::default(),
        lowered_plain: std::cell::RefCell::new(vec![false; c.funs.len()]),
    };
    let funs = c
        .funs
        .into_iter()
        .enumerate()
        .map(|(fid, f)| {
            lower.lowering.set(fid as FunId);
            lower.leaves_calls.set(false);
            let body = lower.code(f.body, true);
            let plain = !(f.framed || f.loop_polls || f.is_loop || lower.leaves_calls.get());
            lower.lowered_plain.borrow_mut()[fid] = plain;
            ExecFun {
                body,
                plain,
                name: f.name,
                symbol: f.symbol,
                arity: f.arity,
                frame_size: f.frame_size,
                pos: f.pos,
                framed: f.framed,
                native_frame_words: f.native_frame_words,
                loop_polls: f.loop_polls,
                is_loop: f.is_loop,
                return_chain: f.return_chain,
                tupled: f.tupled,
            }
        })
        .collect();
    let items = c
        .items
        .into_iter()
        .map(|item| match item {
            TopItem::Let(binder, value, counter) => {
                ExecItem::Let(binder, lower.code(value, false), counter)
            }
            TopItem::LetRec(group) => ExecItem::LetRec(lower.rec_group(group)),
            TopItem::Expr(code) => ExecItem::Expr(lower.code(code, false)),
        })
        .collect();
    let fmod_sites = [lower.site(), lower.site()];
    Executable {
        funs,
        fmod_sites,
        site_resolve: lower.resolve.into_inner(),
        site_waits_on_chain: lower.waits_on_chain.into_inner(),
        statics: c.statics,
        items,
        toplevel_frame: c.toplevel_frame,
        prelude_items: c.prelude_items,
        exception_names: c.exception_names,
    }
}

/// The compiler from IR to closures.
pub(crate) struct Lower {
    /// Arity of every function, so that calls of a closed function can be resolved here.
    pub(crate) arities: Vec<u32>,
    /// Branch sites numbered so far: table jumps and `if`s (see [`crate::branch_trace`]).
    pub(crate) sites: std::cell::Cell<u32>,
    /// Call sites numbered so far (see [`crate::return_stack`]).
    pub(crate) call_sites: std::cell::Cell<u32>,
    /// Per site, the cycles its condition takes to resolve (see [`Executable::site_resolve`]).
    pub(crate) resolve: std::cell::RefCell<Vec<u32>>,
    /// Per site, whether its test waits on its loop's chain (see
    /// [`Executable::site_waits_on_chain`]).
    pub(crate) waits_on_chain: std::cell::RefCell<Vec<bool>>,
    /// The function being lowered, whose levels an `if` on a way back speaks for.
    pub(crate) lowering: std::cell::Cell<FunId>,
    /// Whether the body being lowered leaves a tail call for its function's loop.
    pub(crate) leaves_calls: std::cell::Cell<bool>,
    /// Per function, whether it is lowered already and plain (see [`ExecFun::plain`]): calls
    /// of it lowered afterwards take the short path straight away.
    pub(crate) lowered_plain: std::cell::RefCell<Vec<bool>>,
}

/// An integer operation that cannot fail, on two operands (right one first, as in OCaml).
macro_rules! int_op {
    ($a:ident, $b:ident, $counter:expr, |$x:ident, $y:ident| $result:expr) => {
        ev(move |m| {
            let $y = $b.int(m)?;
            let $x = $a.int(m)?;
            m.count($counter);
            Ok(Value::Int($result))
        })
    };
}

/// An integer comparison as a value: the compare, and the flag materialised.
macro_rules! int_flag {
    ($a:ident, $b:ident, $counter:expr, $cmp:tt) => {
        ev(move |m| {
            let y = $b.int(m)?;
            let x = $a.int(m)?;
            m.count($counter);
            m.count(Counter::CondValue);
            Ok(Value::Int(i64::from(x $cmp y)))
        })
    };
}

/// An integer comparison as a condition.
macro_rules! int_cmp {
    ($a:ident, $b:ident, $counter:expr, $cmp:tt) => {
        cond_ev(move |m| {
            let y = $b.int(m)?;
            let x = $a.int(m)?;
            m.count($counter);
            Ok(x $cmp y)
        })
    };
}

impl Lower {
    /// A new branch site.
    pub(crate) fn site(&self) -> u32 {
        self.resolving_site(0, false)
    }

    /// A new branch site whose condition takes `cycles` to resolve.
    pub(crate) fn resolving_site(&self, cycles: u32, waits_on_chain: bool) -> u32 {
        let site = self.sites.get();
        self.sites.set(site + 1);
        self.resolve.borrow_mut().push(cycles);
        self.waits_on_chain.borrow_mut().push(waits_on_chain);
        site
    }

    pub(crate) fn operand(&self, code: Code) -> Operand {
        match code {
            Code::Local(s) => Operand::Local(s),
            Code::TakeLocal(s) => Operand::Take(s),
            Code::Imm(i) => Operand::Imm(i),
            other => Operand::Code(self.code(other, false)),
        }
    }

    /// Compiles `code`; `tail` says whether it is in tail position of a function body.
    pub(crate) fn code(&self, code: Code, tail: bool) -> Ev {
        match code {
            Code::Imm(i) => ev(move |_| Ok(Value::Int(i))),
            Code::Local(s) => ev(move |m| Ok(m.local(s))),
            Code::TakeLocal(s) => ev(move |m| Ok(m.take_local(s))),
            Code::Env(i) => ev(move |m| Ok(m.env[i as usize].clone())),
            Code::Global(s) => ev(move |m| Ok(m.stack[s as usize].clone())),
            Code::Static(id) => ev(move |m| Ok(m.statics[id as usize].clone())),
            Code::Sibling(f) => ev(move |m| Ok(Value::fun(f, m.env.clone()))),
            Code::ClosedFun(f) => ev(move |m| Ok(m.closed[f as usize].clone())),
            Code::Op2(n) => self.op2(*n),
            Code::Op1(op, a) => {
                let a = self.operand(*a);
                ev(move |m| {
                    let v = a.get(m)?;
                    Ok(m.op1(op, v))
                })
            }
            Code::App(app) => self.app(*app, tail),
            Code::Release(release) => {
                let (slots, body) = *release;
                let body = self.code(body, tail);
                ev(move |m| {
                    for &slot in slots.iter() {
                        drop(m.take_local(slot));
                    }
                    body(m)
                })
            }
            Code::Combined(joins, inner) => {
                let inner = self.code(*inner, tail);
                ev(move |m| {
                    let v = inner(m)?;
                    m.count_n(Counter::AllocMerged, joins as usize);
                    Ok(v)
                })
            }
            Code::BoxFloat(inner) => {
                // Passed to a call or returned: the box dies young, unless a returned one goes
                // into a list (see `heap`).
                let inner = self.operand(*inner);
                ev(move |m| {
                    m.count(Counter::FloatBox);
                    let v = inner.get(m);
                    crate::heap::allocate_float_box();
                    v
                })
            }
            Code::If(b) => {
                let (c, t, e, chains) = *b;
                let (c, t, e) = (self.cond(c), self.code(t, tail), self.code(e, tail));
                let site = self.resolving_site(chains.resolve, chains.waits_on_chain);
                if let Some([through_then, through_else]) = chains.way_back {
                    let fid = self.lowering.get();
                    return ev(move |m| {
                        let taken = c(m)?;
                        if m.branch(site, taken) {
                            m.way_back_arm = Some((fid, through_then));
                            t(m)
                        } else {
                            m.way_back_arm = Some((fid, through_else));
                            e(m)
                        }
                    });
                }
                ev(move |m| {
                    let taken = c(m)?;
                    if m.branch(site, taken) {
                        t(m)
                    } else {
                        e(m)
                    }
                })
            }
            Code::Let(l) => self.let_(*l, tail),
            Code::Seq(b) => {
                let (a, b) = (self.code(b.0, false), self.code(b.1, tail));
                ev(move |m| {
                    a(m)?;
                    b(m)
                })
            }
            // A `&&` or `||` whose value is returned is `if a then b else false` in tail
            // position: the first operand's jump and the returns, no flag built.
            Code::And(b) => {
                let (a, b) = (self.cond(b.0), self.code(b.1, tail));
                let site = self.site();
                ev(move |m| {
                    if !tail {
                        m.count(Counter::BoolAnd);
                    }
                    let first = a(m)?;
                    if !m.branch(site, first) {
                        return Ok(Value::Int(0));
                    }
                    b(m)
                })
            }
            Code::Or(b) => {
                let (a, b) = (self.cond(b.0), self.code(b.1, tail));
                let site = self.site();
                ev(move |m| {
                    if !tail {
                        m.count(Counter::BoolOr);
                    }
                    let first = a(m)?;
                    if m.branch(site, first) {
                        return Ok(Value::Int(1));
                    }
                    b(m)
                })
            }
            Code::LetRec(b) => {
                let (group, body) = *b;
                let (group, body) = (self.rec_group(group), self.code(body, tail));
                ev(move |m| {
                    m.rec_group(&group)?;
                    body(m)
                })
            }
            Code::Match(mt) => self.match_(*mt, tail),
            Code::MatchTuple(mt) => self.match_tuple(*mt, tail),
            Code::Try(t) => self.try_(*t, tail),
            other @ (Code::Imp(_) | Code::Assign(..) | Code::For(_) | Code::While(_)) => {
                self.imperative(other)
            }
            other => self.construct(other),
        }
    }

    /// Compiles a condition of `if` (or of `&&`, `||`, a guard): comparisons of integers and
    /// the boolean operators yield the boolean directly.
    pub(crate) fn cond(&self, code: Code) -> CondEv {
        match code {
            Code::Op2(n)
                if matches!(
                    n.op,
                    Op2::IntEq | Op2::IntNe | Op2::IntLt | Op2::IntLe | Op2::IntGt | Op2::IntGe
                ) =>
            {
                let Op2Node { op, lhs, rhs, .. } = *n;
                let (a, b, counter) = (self.operand(lhs), self.operand(rhs), op.counter());
                match op {
                    Op2::IntEq => int_cmp!(a, b, counter, ==),
                    Op2::IntNe => int_cmp!(a, b, counter, !=),
                    Op2::IntLt => int_cmp!(a, b, counter, <),
                    Op2::IntLe => int_cmp!(a, b, counter, <=),
                    Op2::IntGt => int_cmp!(a, b, counter, >),
                    _ => int_cmp!(a, b, counter, >=),
                }
            }
            // Float and physical comparisons: a compare and a jump too, no flag.
            Code::Op2(n) if n.op.is_flag_comparison() => {
                let Op2Node { op, lhs, rhs, pos } = *n;
                let (a, b) = (self.operand(lhs), self.operand(rhs));
                cond_ev(move |m| {
                    let y = b.get(m)?;
                    let x = a.get(m)?;
                    Ok(m.op2(op, pos, x, y)?.into_int() != 0)
                })
            }
            // In a condition `not`, `&&` and `||` compile to their operands' own branches
            // (the jumps' targets swapped or chained): no instruction of their own, so they
            // are counted only as values.
            Code::Op1(Op1::Not, a) => {
                let a = self.cond(*a);
                cond_ev(move |m| Ok(!a(m)?))
            }
            // Each operand is a branch of its own in native code: the first one's outcome is
            // recorded here, the last one's where the condition is used.
            Code::And(b) => {
                let (a, b) = (self.cond(b.0), self.cond(b.1));
                let site = self.site();
                cond_ev(move |m| {
                    let first = a(m)?;
                    Ok(m.branch(site, first) && b(m)?)
                })
            }
            Code::Or(b) => {
                let (a, b) = (self.cond(b.0), self.cond(b.1));
                let site = self.site();
                cond_ev(move |m| {
                    let first = a(m)?;
                    Ok(m.branch(site, first) || b(m)?)
                })
            }
            // A boolean value: compared with `true`, then a jump.
            other => {
                let e = self.operand(other);
                cond_ev(move |m| {
                    let v = e.int(m)?;
                    m.count(Counter::BoolTest);
                    Ok(v != 0)
                })
            }
        }
    }

    fn op2(&self, n: Op2Node) -> Ev {
        let Op2Node { op, lhs, rhs, pos } = n;
        let (a, b, counter) = (self.operand(lhs), self.operand(rhs), op.counter());
        match op {
            Op2::Add => int_op!(a, b, counter, |x, y| wrap63(x.wrapping_add(y))),
            Op2::Sub => int_op!(a, b, counter, |x, y| wrap63(x.wrapping_sub(y))),
            Op2::Mul | Op2::MulConst => {
                int_op!(a, b, counter, |x, y| wrap63(x.wrapping_mul(y)))
            }
            Op2::IntEq => int_flag!(a, b, counter, ==),
            Op2::IntNe => int_flag!(a, b, counter, !=),
            Op2::IntLt => int_flag!(a, b, counter, <),
            Op2::IntLe => int_flag!(a, b, counter, <=),
            Op2::IntGt => int_flag!(a, b, counter, >),
            Op2::IntGe => int_flag!(a, b, counter, >=),
            _ if op.is_flag_comparison() => ev(move |m| {
                let y = b.get(m)?;
                let x = a.get(m)?;
                let flag = m.op2(op, pos, x, y)?;
                m.count(Counter::CondValue);
                Ok(flag)
            }),
            _ => ev(move |m| {
                let y = b.get(m)?;
                let x = a.get(m)?;
                m.op2(op, pos, x, y)
            }),
        }
    }

    fn let_(&self, l: Let, tail: bool) -> Ev {
        let Let {
            binder,
            value,
            counter,
            body,
            ..
        } = l;
        let (value, body) = (self.operand(value), self.code(body, tail));
        match (binder, counter) {
            (Binder::Slot(s), None) => ev(move |m| {
                let v = value.get(m)?;
                m.set_local(s, v);
                body(m)
            }),
            (Binder::Slot(s), Some(c)) => ev(move |m| {
                let v = value.get(m)?;
                m.count(c);
                m.set_local(s, v);
                body(m)
            }),
            (binder, counter) => ev(move |m| {
                let v = value.get(m)?;
                m.bind(&binder, v, counter)?;
                body(m)
            }),
        }
    }
}
