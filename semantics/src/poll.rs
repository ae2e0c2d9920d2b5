//! Whether a function's self tail calls close a loop that polls. ocamlopt 4.13 (Debian's
//! build, amd64) compiles a known function's tail call of itself as a jump back to the head
//! of its body, and puts a poll of the minor heap's limit there (`cmp (%r14), %r15`, `jbe`
//! to `caml_call_gc`) so that a signal or a collection cannot wait forever on a loop — unless
//! every way round the loop allocates, since an allocation already compares the same limit.
//! `length`'s walk polls; `build n acc = … build (n - 1) (n :: acc)` does not. A call of
//! another function is no poll: `loop (f n)` polls. The poll is what `LoopPoll` counts.

use crate::ir::*;

/// Marks the functions whose loop head polls.
pub(crate) fn mark_loop_polls(compiled: &mut Compiled) {
    for (fid, fun) in compiled.funs.iter_mut().enumerate() {
        fun.loop_polls = walk(&fun.body, fid as FunId, false).unpolled;
    }
}

/// Whether a `for` or `while` loop made of `parts` (its test and body, in order) polls at its
/// back edge: as at a self tail call's loop head, unless every way round allocates. Read off
/// Debian's 4.13.1 (`cmp (%r14), %r15`, `ja` back to the head, else `caml_call_gc`): a `for`
/// polls after the exit test of each iteration but the last, a `while` after each run of its
/// body; a call in the body does not spare it, nor does an inner loop.
pub(crate) fn loop_polls(parts: &[&Code]) -> bool {
    !sequence(parts.iter().copied(), FunId::MAX, false).allocated
}

/// What running a piece of code tells about the loop of function `own`.
#[derive(Clone, Copy)]
struct Flow {
    /// Every path through the code has allocated (or had allocated before it).
    allocated: bool,
    /// Some path reaches a self tail call without having allocated since the loop's head.
    unpolled: bool,
}

/// Whether `code` allocates a block in the minor heap itself (its operands aside): the
/// allocations ocamlopt emits inline, each of which tests the heap's limit.
fn allocates_here(code: &Code) -> bool {
    match code {
        Code::Tuple(_)
        | Code::Cons(_)
        | Code::Block(..)
        | Code::Exn(..)
        | Code::MakeClosure(_)
        | Code::BoxFloat(_) => true,
        Code::List(list) => !list.0.is_empty(),
        Code::Imp(node) => matches!(node.op, ImpOp::Make { .. }),
        Code::LetRec(group) => !group.0.captures.is_empty(),
        _ => false,
    }
}

fn is_self_tail_call(app: &App, own: FunId) -> bool {
    app.tail && app.known && matches!(app.func, Code::ClosedFun(f) | Code::Sibling(f) if f == own)
}

/// Runs `codes` one after the other, as operands are: each sees what the previous allocated.
fn sequence<'a>(codes: impl Iterator<Item = &'a Code>, own: FunId, allocated: bool) -> Flow {
    let mut flow = Flow {
        allocated,
        unpolled: false,
    };
    for code in codes {
        let next = walk(code, own, flow.allocated);
        flow = Flow {
            allocated: next.allocated,
            unpolled: flow.unpolled || next.unpolled,
        };
    }
    flow
}

/// Branches that start from `allocated` and join: the join has allocated only if every
/// branch has.
fn branches<'a>(arms: impl Iterator<Item = &'a Code>, own: FunId, allocated: bool) -> Flow {
    let mut flow = Flow {
        allocated: true,
        unpolled: false,
    };
    let mut any = false;
    for arm in arms {
        any = true;
        let next = walk(arm, own, allocated);
        flow.allocated &= next.allocated;
        flow.unpolled |= next.unpolled;
    }
    flow.allocated &= any || allocated;
    flow
}

fn walk(code: &Code, own: FunId, allocated: bool) -> Flow {
    match code {
        Code::App(app) => {
            let args = sequence(
                app.args.iter().chain(std::iter::once(&app.func)),
                own,
                allocated,
            );
            Flow {
                allocated: args.allocated,
                unpolled: args.unpolled || (is_self_tail_call(app, own) && !args.allocated),
            }
        }
        Code::If(b) => {
            let cond = walk(&b.0, own, allocated);
            let arms = branches([&b.1, &b.2].into_iter(), own, cond.allocated);
            Flow {
                allocated: arms.allocated,
                unpolled: cond.unpolled || arms.unpolled,
            }
        }
        // The second operand may not run.
        Code::And(pair) | Code::Or(pair) => {
            let first = walk(&pair.0, own, allocated);
            let second = walk(&pair.1, own, first.allocated);
            Flow {
                allocated: first.allocated,
                unpolled: first.unpolled || second.unpolled,
            }
        }
        Code::Match(m) => {
            let scrutinee = walk(&m.scrutinee, own, allocated);
            let arms = guarded_arms(
                m.arms.iter().map(|a| (a.guard.as_ref(), &a.body)),
                own,
                scrutinee.allocated,
            );
            if m.handlers.is_empty() {
                return Flow {
                    allocated: arms.allocated,
                    unpolled: scrutinee.unpolled || arms.unpolled,
                };
            }
            // A handler runs when the scrutinee raised, maybe before it allocated.
            let handlers = guarded_arms(
                m.handlers.iter().map(|a| (a.guard.as_ref(), &a.body)),
                own,
                allocated,
            );
            Flow {
                allocated: arms.allocated && handlers.allocated,
                unpolled: scrutinee.unpolled || arms.unpolled || handlers.unpolled,
            }
        }
        Code::MatchTuple(m) => {
            let components = sequence(m.components.iter(), own, allocated);
            let arms = guarded_arms(
                m.arms.iter().map(|a| (a.guard.as_ref(), &a.body)),
                own,
                components.allocated,
            );
            Flow {
                allocated: arms.allocated,
                unpolled: components.unpolled || arms.unpolled,
            }
        }
        // Nothing in a `try` body is a tail call; a handler runs only when something raised.
        Code::Try(t) => {
            let body = walk(&t.body, own, allocated);
            let arms = guarded_arms(
                t.arms.iter().map(|a| (a.guard.as_ref(), &a.body)),
                own,
                allocated,
            );
            Flow {
                allocated,
                unpolled: body.unpolled || arms.unpolled,
            }
        }
        // A loop's body may run no time: it allocates for what follows only through its bounds
        // or condition (which run at least once).
        Code::For(f) => {
            let bounds = sequence([&f.from, &f.until].into_iter(), own, allocated);
            let body = walk(&f.body, own, bounds.allocated);
            Flow {
                allocated: bounds.allocated,
                unpolled: bounds.unpolled || body.unpolled,
            }
        }
        Code::While(w) => {
            let cond = walk(&w.0, own, allocated);
            let body = walk(&w.1, own, cond.allocated);
            Flow {
                allocated: cond.allocated,
                unpolled: cond.unpolled || body.unpolled,
            }
        }
        // Captured values are loaded where the closure is built; the functions' bodies are
        // other functions.
        _ => {
            let mut children = Vec::new();
            code.for_each_child(&mut |child, _| children.push(child));
            let operands = sequence(children.into_iter(), own, allocated);
            Flow {
                allocated: operands.allocated || allocates_here(code),
                unpolled: operands.unpolled,
            }
        }
    }
}

/// Arms tried in order: a guard runs when its pattern matched, and its arm's body when it
/// held; the join has allocated only if every body has.
fn guarded_arms<'a>(
    arms: impl Iterator<Item = (Option<&'a Code>, &'a Code)>,
    own: FunId,
    allocated: bool,
) -> Flow {
    let mut flow = Flow {
        allocated: true,
        unpolled: false,
    };
    let mut any = false;
    for (guard, body) in arms {
        any = true;
        let before = match guard {
            Some(g) => {
                let g = walk(g, own, allocated);
                flow.unpolled |= g.unpolled;
                g.allocated
            }
            None => allocated,
        };
        let body = walk(body, own, before);
        flow.allocated &= body.allocated;
        flow.unpolled |= body.unpolled;
    }
    flow.allocated &= any || allocated;
    flow
}
