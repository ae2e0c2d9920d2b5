//! Compiling applications (see [`crate::lower`]): a call of a known function straight to its
//! frame, any other through [`Machine::apply`], a tail call left for the function's loop, and
//! the end of a loop's iteration where a self call enters the function again.

use crate::catalogue::Counter;
use crate::ir::*;
use crate::lower::{ev, Ev, Lower, Operand};
use crate::machine::{CalleeKind, Machine, SelfCall, R};
use crate::return_stack::CallSite;
use crate::value::UNIT;

/// Evaluates `args` right to left (OCaml's order) onto the stack; returns where they start.
#[inline(always)]
fn push_args(m: &mut Machine<'_>, args: &[Operand]) -> R<usize> {
    let argbase = m.stack.len();
    // Most calls pass one argument (`fapp`'s five an iteration): no loop, nothing to reverse.
    if let [arg] = args {
        let v = arg.get(m)?;
        m.stack.push(v);
        return Ok(argbase);
    }
    // Every evaluation leaves the stack as it found it, so each value can be pushed as soon
    // as it is computed; the right-to-left order is then undone by a reversal.
    for a in args.iter().rev() {
        let v = a.get(m)?;
        m.stack.push(v);
    }
    if args.len() > 1 {
        m.stack[argbase..].reverse();
    }
    Ok(argbase)
}

impl Lower {
    pub(crate) fn app(&self, app: App, tail: bool) -> Ev {
        let App {
            func,
            args,
            tail: tail_tagged,
            known,
            kept_live,
            kept_slots,
            chain,
            descends,
            closes_loop,
        } = app;
        let call = self.call(
            func,
            args,
            tail_tagged && tail,
            tail_tagged,
            known,
            (kept_live, kept_slots),
        );
        let Some(fid) = closes_loop else {
            return call;
        };
        ev(move |m| {
            // The iteration ends where the call enters the function again, once its
            // arguments are evaluated (`Machine::invoke`).
            m.self_call = Some(SelfCall {
                fid,
                chain,
                descends,
            });
            call(m)
        })
    }

    /// A new call site: where the call's return goes (see [`crate::return_stack`]).
    fn call_site(&self) -> CallSite {
        let site = self.call_sites.get();
        self.call_sites.set(site + 1);
        site
    }

    /// An application without its chain count (see [`Lower::app`]).
    fn call(
        &self,
        func: Code,
        args: Box<[Code]>,
        tail: bool,
        tail_tagged: bool,
        known: bool,
        (kept_live, kept_slots): (u32, Box<[Slot]>),
    ) -> Ev {
        let nargs = args.len();
        let site = self.call_site();
        let args: Box<[Operand]> = args
            .into_vec()
            .into_iter()
            .map(|a| self.operand(a))
            .collect();
        if tail {
            // Left for the function's loop (see `Machine::invoke`).
            self.leaves_calls.set(true);
            return match func {
                // The callee needs no value: only its name goes to the loop.
                Code::ClosedFun(fid) => ev(move |m| {
                    push_args(m, &args)?;
                    m.leave_call(CalleeKind::Closed, fid, nargs, known);
                    Ok(UNIT)
                }),
                Code::Sibling(fid) => ev(move |m| {
                    push_args(m, &args)?;
                    m.leave_call(CalleeKind::Sibling, fid, nargs, known);
                    Ok(UNIT)
                }),
                func => {
                    let func = self.code(func, false);
                    ev(move |m| {
                        push_args(m, &args)?;
                        m.pending.value = func(m)?;
                        m.leave_call(CalleeKind::Value, 0, nargs, known);
                        Ok(UNIT)
                    })
                }
            };
        }
        match func {
            // A saturated call of a closed function, or of a member of the running closure's
            // group (which runs in the running environment): no function value is needed.
            Code::ClosedFun(fid) | Code::Sibling(fid)
                if !tail_tagged && self.arities[fid as usize] as usize == nargs =>
            {
                // A function lowered already (most callees are defined before their
                // callers) and plain: the call's closure runs its frame itself.
                if self.lowered_plain.borrow()[fid as usize] {
                    // Most calls of a leaf keep nothing across them (`fapp`'s four calls of
                    // `id`): their closure leaves out the spills' counting, which counts none.
                    if kept_live == 0 && kept_slots.is_empty() {
                        return ev(move |m| {
                            let argbase = push_args(m, &args)?;
                            m.count(Counter::FunApp);
                            m.call_plain(fid, argbase, site)
                        });
                    }
                    return ev(move |m| {
                        let argbase = push_args(m, &args)?;
                        m.count(Counter::FunApp);
                        m.spill_around_call(kept_live, &kept_slots);
                        m.call_plain(fid, argbase, site)
                    });
                }
                ev(move |m| {
                    let argbase = push_args(m, &args)?;
                    m.count(Counter::FunApp);
                    m.spill_around_call(kept_live, &kept_slots);
                    m.invoke_call(None, fid, argbase, site)
                })
            }
            // Any other call; a tail-tagged one met outside a function body's tail position
            // (which the tail pass does not produce) is still counted as the tail call it is.
            func => {
                let func = self.code(func, false);
                ev(move |m| {
                    let argbase = push_args(m, &args)?;
                    let f = func(m)?;
                    if !tail_tagged {
                        m.spill_around_call(kept_live, &kept_slots);
                    }
                    m.apply(f, argbase, nargs, tail_tagged, known, site)
                })
            }
        }
    }
}
