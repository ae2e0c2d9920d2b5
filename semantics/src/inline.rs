//! The calls ocamlopt replaces by the callee's body. Closure, 4.13's inliner without flambda,
//! inlines a known, closed function at every saturated call when its body (after its own calls
//! were inlined) is no larger than a threshold: `8 × -inline + its parameter count`. The
//! project compiles with `-inline 0`, so a program's own function is inlined when its body's
//! size is at most its arity — `let add a b = a + b` (size 2), `let get r = r.x` (1),
//! `let third (_, _, c) = c` called with the triple written out (0) — while `let sq x = x * x`
//! (2 > 1) stays a call. The Stdlib is built with the default threshold, 10 + arity, so
//! `List.hd` (10) and the wrappers `List.length` and `List.rev` (5) are inlined into the
//! program that calls them; `max` (14: a polymorphic comparison is a C call) is not.
//! `[@inline never]` keeps a call, `[@inline]` inlines whatever the size. Checked against
//! `ocamlopt -S` (the `inline` template and `semantics/tests/counts_inline.rs`).
//!
//! The size is Closure's `lambda_smaller` read on this IR: a variable 0, a constant 1, a field
//! read 1, arithmetic and comparisons 2, a conditional 2, a block `5 + fields`, a direct call
//! `4 + arguments`, an unknown one 6, a C call (polymorphic comparison) 12, a raise 4; a
//! closure or a recursive definition in the body forbids inlining. Forms this pass does not
//! copy (loops, handlers) count as too large: they exceed any threshold of the functions
//! people write small.
//!
//! An inlined call is the callee's body in the caller's frame, its parameters bound by `let`
//! to the arguments (evaluated right to left, as a call evaluates them): no call, no frame,
//! no return, no spill around it; the body's own constructs count where it runs.

use crate::ast::Inline;
use crate::ir::*;
use crate::types::{EXN_FAILURE, EXN_INVALID_ARGUMENT};

/// The Stdlib's `-inline` (the default, 10/8) times Closure's scale of 8.
const LIBRARY_THRESHOLD: usize = 10;

/// Inlines the saturated calls of small known functions in every function and top-level item.
pub(crate) fn inline_small_functions(compiled: &mut Compiled) {
    let mut pass = Pass {
        state: vec![State::Pending; compiled.funs.len()],
    };
    for fid in 0..compiled.funs.len() {
        pass.settle(&mut compiled.funs, fid as FunId);
    }
    let mut frame = compiled.toplevel_frame;
    for item in compiled.items.iter_mut() {
        match item {
            TopItem::Let(_, code, _) | TopItem::Expr(code) => {
                let mutable = assigned(code);
                pass.calls_in(code, &compiled.funs, &mut frame, &mutable)
            }
            TopItem::LetRec(_) => {}
        }
    }
    compiled.toplevel_frame = frame;
}

#[derive(Clone, Copy, PartialEq)]
enum State {
    Pending,
    /// Its body is being settled: a call reached from it is recursion.
    Settling,
    Settled {
        inlined: bool,
    },
}

struct Pass {
    state: Vec<State>,
}

impl Pass {
    /// Inlines the calls in `fid`'s body, its callees settled first (Closure sizes a body
    /// after inlining into it), then decides whether `fid` itself is inlined.
    fn settle(&mut self, funs: &mut [FunCode], fid: FunId) {
        if self.state[fid as usize] != State::Pending {
            return;
        }
        self.state[fid as usize] = State::Settling;
        let mut callees = Vec::new();
        collect_callees(&funs[fid as usize].body, &mut callees);
        for callee in callees {
            self.settle(funs, callee);
        }
        let mut body = std::mem::replace(&mut funs[fid as usize].body, Code::Imm(0));
        let mut frame = funs[fid as usize].frame_size;
        let mutable = assigned(&body);
        self.calls_in(&mut body, funs, &mut frame, &mutable);
        let fun = &mut funs[fid as usize];
        fun.body = body;
        fun.frame_size = frame;
        let recursive = calls(&fun.body, fid);
        let inlined = !recursive
            && match fun.inline {
                Inline::Never => false,
                Inline::Always => size(&fun.body).is_some(),
                Inline::Default => {
                    let threshold =
                        fun.arity as usize + if fun.library { LIBRARY_THRESHOLD } else { 0 };
                    size(&fun.body).is_some_and(|s| s <= threshold)
                }
            };
        self.state[fid as usize] = State::Settled { inlined };
    }

    /// Replaces the inlined calls within `code`; `frame` is the running frame's size, which
    /// each inlined body extends by its own; `mutable`, the frame's variables assigned.
    fn calls_in(&self, code: &mut Code, funs: &[FunCode], frame: &mut u32, mutable: &[Slot]) {
        code.for_each_child_mut(&mut |child| self.calls_in(child, funs, frame, mutable));
        let Code::App(app) = code else { return };
        let Code::ClosedFun(callee) = app.func else {
            return;
        };
        let fun = &funs[callee as usize];
        let inlined = self.state[callee as usize] == State::Settled { inlined: true };
        if !inlined || !app.known || app.args.len() != fun.arity as usize {
            return;
        }
        let base = *frame;
        // Variables and constants are substituted, as Closure's `bind_params` does; other
        // arguments are bound to the parameter's slot, and so is a variable that may be
        // assigned (a `ref` turned into one), which an argument evaluated after it could change.
        let substitutes: Vec<Option<Code>> = app
            .args
            .iter()
            .map(|arg| match arg {
                Code::Local(s) if mutable.contains(s) => None,
                _ => simple(arg),
            })
            .collect();
        let Some(mut body) = copy(
            &fun.body,
            &Copy {
                base,
                tail: app.tail,
                substitutes: &substitutes,
            },
        ) else {
            return;
        };
        *frame += fun.frame_size;
        let args = std::mem::take(&mut app.args);
        // The last argument is evaluated first: its binding is the outermost.
        for (i, arg) in args.into_vec().into_iter().enumerate() {
            if substitutes[i].is_some() {
                continue;
            }
            body = Code::Let(Box::new(Let {
                binder: Binder::Slot(base + i as Slot),
                value: arg,
                counter: None,
                body,
                float_var: false,
            }));
        }
        *code = body;
    }
}

/// The closed functions `code` calls by name, saturated or not.
fn collect_callees(code: &Code, out: &mut Vec<FunId>) {
    if let Code::App(app) = code {
        if let Code::ClosedFun(f) = app.func {
            out.push(f);
        }
    }
    code.for_each_child(&mut |child, _| collect_callees(child, out));
}

/// The variables `code` assigns.
fn assigned(code: &Code) -> Vec<Slot> {
    let mut slots = Vec::new();
    crate::loop_carried::collect_assigned(code, &mut slots);
    slots
}

/// Whether `code` calls function `fid`.
fn calls(code: &Code, fid: FunId) -> bool {
    let mut callees = Vec::new();
    collect_callees(code, &mut callees);
    callees.contains(&fid)
}

/// Closure's size of `code` (`lambda_smaller`), or `None` when it cannot be inlined or this
/// pass does not copy it.
fn size(code: &Code) -> Option<usize> {
    let mut total = 0usize;
    let own = match code {
        Code::Local(_) => 0,
        Code::Imm(_) | Code::Static(_) | Code::ClosedFun(_) => 1,
        // A field of the module's global block.
        Code::Global(_) => 2,
        Code::Let(l) => pat_size(&l.binder)?,
        Code::If(_) | Code::And(_) | Code::Or(_) => 2,
        Code::Seq(_) => 0,
        Code::App(app) => match app.func {
            Code::ClosedFun(_) if app.known => 4,
            _ => 6,
        },
        Code::Op1(op, _) => match op {
            Op1::Fst | Op1::Snd | Op1::Ignore => 1,
            Op1::Lnot => 3,
            // A `Pccall` that does not allocate: Closure sizes it 4 and one per argument.
            Op1::FSqrt | Op1::FloatCall(_) => 5,
            // Stdlib's `abs`, already inlined: a test, a branch and a negation.
            Op1::Abs => 7,
            _ => 2,
        },
        Code::Op2(node) => match node.op {
            Op2::PolyEq
            | Op2::PolyNe
            | Op2::PolyLt
            | Op2::PolyLe
            | Op2::PolyGt
            | Op2::PolyGe
            | Op2::PolyCompare => 12,
            Op2::FloatCall(_) => 6,
            _ => 2,
        },
        Code::Tuple(items) | Code::Block(_, items) => 5 + items.len(),
        // The block holds the exception's identity too, read from its global.
        Code::Exn(_, items) => 5 + items.len() + 2,
        Code::Cons(_) => 7,
        // `failwith s` and `invalid_arg s`, which this IR inlines: a call in native code.
        Code::Raise(operand, _) if raises_by_stdlib_call(operand) => {
            let Code::Exn(_, items) = &**operand else {
                unreachable!("checked")
            };
            return items
                .iter()
                .try_fold(4, |total, item| Some(total + size(item)?));
        }
        Code::Raise(..) => 4,
        Code::Assign(..) => 1,
        Code::Imp(node) => imp_size(node.op),
        // A trap, as a `try`'s, is never inlined.
        Code::Match(m) if !m.handlers.is_empty() => return None,
        Code::Match(m) => 2 + m.arms.iter().map(|a| arm_pat_size(&a.pat)).sum::<usize>(),
        Code::MatchTuple(m) => 2 * m.arms.len().saturating_sub(1),
        _ => return None,
    };
    total += own;
    let mut ok = true;
    code.for_each_child(&mut |child, _| match size(child) {
        Some(s) => total += s,
        None => ok = false,
    });
    ok.then_some(total)
}

/// Whether a raise is the Stdlib's `failwith` or `invalid_arg` (see [`crate::prims`]), which
/// ocamlopt calls: their bodies (12) exceed the Stdlib's threshold.
fn raises_by_stdlib_call(exception: &Code) -> bool {
    matches!(exception, Code::Exn(tag, items)
        if items.len() == 1 && [EXN_FAILURE, EXN_INVALID_ARGUMENT].contains(tag))
}

/// Closure's `prim_size` of the primitives behind records, references, arrays and strings.
fn imp_size(op: ImpOp) -> usize {
    match op {
        ImpOp::GetField { .. } => 1,
        ImpOp::SetField { store, .. } => match store {
            StoreKind::Plain => 1,
            StoreKind::Barrier => 4,
        },
        // `incr r`: `Poffsetref`.
        ImpOp::AddToField { .. } => 2,
        ImpOp::Make { .. } => 5,
        ImpOp::ArrayGet {
            checked, generic, ..
        } => match (checked, generic) {
            (true, true) => 18,
            (true, false) => 8,
            (false, true) => 12,
            (false, false) => 2,
        },
        ImpOp::ArraySet {
            checked, generic, ..
        } => match (checked, generic) {
            (true, true) => 22,
            (true, false) => 10,
            (false, true) => 16,
            (false, false) => 4,
        },
        ImpOp::ArrayLength => 2,
        ImpOp::ArrayMake | ImpOp::Arr(_) => 12,
        // `caml_format_int`, a `Pccall` that allocates: 10 and one per argument, beyond the
        // Stdlib's threshold, so `string_of_int` stays a call (as `-S` shows).
        ImpOp::Str(StrOp::FormatInt) => 12,
        ImpOp::Str(_) => 6,
    }
}

/// The field reads a destructuring `let` adds (one per component bound).
fn pat_size(binder: &Binder) -> Option<usize> {
    Some(match binder {
        Binder::Slot(_) => 0,
        Binder::Pattern { pat, .. } => arm_pat_size(pat),
    })
}

/// The field reads a pattern's bindings take.
fn arm_pat_size(pat: &Pat) -> usize {
    match pat {
        Pat::Any | Pat::Bind(_) | Pat::Imm(_) | Pat::Float(_) | Pat::Str(_) => 0,
        Pat::As(p, _) => arm_pat_size(p),
        Pat::Or(pair) => arm_pat_size(&pair.0) + arm_pat_size(&pair.1),
        Pat::Cons(pair) => field_size(&pair.0) + field_size(&pair.1),
        Pat::Tuple(items) | Pat::Block(_, items) | Pat::Exn(_, items) => {
            items.iter().map(field_size).sum()
        }
        Pat::Record(fields) => fields.iter().map(|(_, p)| field_size(p)).sum(),
    }
}

fn field_size(pat: &Pat) -> usize {
    match pat {
        Pat::Any => 0,
        p => 1 + arm_pat_size(p),
    }
}

/// An argument Closure substitutes for its parameter: a variable or a constant.
fn simple(code: &Code) -> Option<Code> {
    Some(match code {
        Code::Local(s) => Code::Local(*s),
        Code::Global(s) => Code::Global(*s),
        Code::Imm(i) => Code::Imm(*i),
        Code::Static(s) => Code::Static(*s),
        Code::ClosedFun(f) => Code::ClosedFun(*f),
        _ => return None,
    })
}

/// How a body is copied into its call site.
struct Copy<'a> {
    /// The caller's frame slot of the callee's slot 0.
    base: Slot,
    /// Whether the call was in tail position: the body's tail calls stay tail calls only then.
    tail: bool,
    /// Per parameter, the argument substituted for it, if simple.
    substitutes: &'a [Option<Code>],
}

/// A copy of an inlinable body into its call site (see [`Copy`]). `None` for a form [`size`]
/// rejects.
fn copy(code: &Code, site: &Copy) -> Option<Code> {
    let (base, tail) = (site.base, site.tail);
    let c = |code: &Code| copy(code, site);
    let all = |codes: &[Code]| codes.iter().map(c).collect::<Option<Box<[Code]>>>();
    let pair = |p: &(Code, Code)| Some(Box::new((c(&p.0)?, c(&p.1)?)));
    let guard = |g: &Option<Code>| match g {
        None => Some(None),
        Some(g) => c(g).map(Some),
    };
    Some(match code {
        Code::Imm(i) => Code::Imm(*i),
        Code::Static(s) => Code::Static(*s),
        Code::Local(s) => match site.substitutes.get(*s as usize) {
            Some(Some(argument)) => simple(argument)?,
            _ => Code::Local(s + base),
        },
        Code::Global(s) => Code::Global(*s),
        Code::ClosedFun(f) => Code::ClosedFun(*f),
        Code::Let(l) => Code::Let(Box::new(Let {
            binder: match &l.binder {
                Binder::Slot(s) => Binder::Slot(s + base),
                Binder::Pattern {
                    pat,
                    refutable,
                    pos,
                } => Binder::Pattern {
                    pat: copy_pat(pat, base),
                    refutable: *refutable,
                    pos: *pos,
                },
            },
            value: c(&l.value)?,
            counter: l.counter,
            body: c(&l.body)?,
            float_var: l.float_var,
        })),
        Code::If(b) => Code::If(Box::new((c(&b.0)?, c(&b.1)?, c(&b.2)?, b.3))),
        Code::Seq(p) => Code::Seq(pair(p)?),
        Code::And(p) => Code::And(pair(p)?),
        Code::Or(p) => Code::Or(pair(p)?),
        Code::Cons(p) => Code::Cons(pair(p)?),
        Code::App(app) => Code::App(Box::new(App {
            func: c(&app.func)?,
            args: all(&app.args)?,
            tail: app.tail && tail,
            known: app.known,
            kept_live: 0,
            kept_slots: Box::new([]),
            chain: Chain::default(),
            descends: false,
            closes_loop: None,
        })),
        Code::Op1(op, operand) => Code::Op1(*op, Box::new(c(operand)?)),
        Code::Op2(node) => Code::Op2(Box::new(Op2Node {
            op: node.op,
            lhs: c(&node.lhs)?,
            rhs: c(&node.rhs)?,
            pos: node.pos,
        })),
        Code::Tuple(items) => Code::Tuple(all(items)?),
        Code::Block(tag, items) => Code::Block(*tag, all(items)?),
        Code::Exn(tag, items) => Code::Exn(*tag, all(items)?),
        Code::Raise(operand, pos) => Code::Raise(Box::new(c(operand)?), *pos),
        Code::Imp(node) => Code::Imp(Box::new(ImpNode {
            op: node.op,
            args: all(&node.args)?,
            pos: node.pos,
        })),
        Code::Assign(slot, value) => Code::Assign(slot + base, Box::new(c(value)?)),
        // A trap, as a `try`'s, is never inlined (see `size`).
        Code::Match(m) if !m.handlers.is_empty() => return None,
        Code::Match(m) => Code::Match(Box::new(Match {
            scrutinee: c(&m.scrutinee)?,
            arms: m
                .arms
                .iter()
                .map(|arm| {
                    Some(Arm {
                        pat: copy_pat(&arm.pat, base),
                        guard: guard(&arm.guard)?,
                        body: c(&arm.body)?,
                    })
                })
                .collect::<Option<_>>()?,
            handlers: Box::new([]),
            pos: m.pos,
            last_untested: m.last_untested,
            resolve: m.resolve,
        })),
        Code::MatchTuple(m) => Code::MatchTuple(Box::new(MatchTuple {
            components: all(&m.components)?,
            slots: m.slots.iter().map(|s| s + base).collect(),
            arms: m
                .arms
                .iter()
                .map(|arm| {
                    Some(TupleArm {
                        pat: match &arm.pat {
                            TupleArmPat::Components(alternatives) => TupleArmPat::Components(
                                alternatives
                                    .iter()
                                    .map(|pats| pats.iter().map(|p| copy_pat(p, base)).collect())
                                    .collect(),
                            ),
                            TupleArmPat::Whole(p) => TupleArmPat::Whole(copy_pat(p, base)),
                        },
                        guard: guard(&arm.guard)?,
                        body: c(&arm.body)?,
                    })
                })
                .collect::<Option<_>>()?,
            pos: m.pos,
            last_untested: m.last_untested,
        })),
        _ => return None,
    })
}

fn copy_pat(pat: &Pat, base: Slot) -> Pat {
    let all = |items: &[Pat]| items.iter().map(|p| copy_pat(p, base)).collect();
    match pat {
        Pat::Any => Pat::Any,
        Pat::Bind(s) => Pat::Bind(s + base),
        Pat::Imm(i) => Pat::Imm(*i),
        Pat::Float(x) => Pat::Float(*x),
        Pat::Str(s) => Pat::Str(s.clone()),
        Pat::Cons(pair) => Pat::Cons(Box::new((copy_pat(&pair.0, base), copy_pat(&pair.1, base)))),
        Pat::Tuple(items) => Pat::Tuple(all(items)),
        Pat::Block(tag, items) => Pat::Block(*tag, all(items)),
        Pat::Exn(tag, items) => Pat::Exn(*tag, all(items)),
        Pat::Or(pair) => Pat::Or(Box::new((copy_pat(&pair.0, base), copy_pat(&pair.1, base)))),
        Pat::As(p, s) => Pat::As(Box::new(copy_pat(p, base)), s + base),
        Pat::Record(fields) => Pat::Record(
            fields
                .iter()
                .map(|(i, p)| (*i, copy_pat(p, base)))
                .collect(),
        ),
    }
}
