//! Which functions a call through a closure may reach, for the chain it carries
//! ([`crate::chain`]).
//!
//! A call of a known function adds its body's latency to a chain; a call through a closure —
//! `f x` inside `simpson f a b n`, `f !r x` inside the Stdlib's `Array.fold_left` — named none,
//! and added nothing. Simpson's loop waits on its integrand every iteration (the sum, a
//! `float_of_int` that waits for it, the integrand's multiply, add and division, boxed and
//! loaded back: 45 cycles, measured), and was counted at half that. The functions such a call
//! can reach are those the program lets escape as values: a closure built (`fun x -> …`, a
//! local function), a static function named other than as the head of a call, a partial
//! application. A call with `m` arguments can reach those still expecting `m` — a function of
//! arity `m`, or one of arity `k + m` applied to `k` — and adds the mean of what they add
//! through each argument: exact when one function is passed (most programs pass one or two),
//! a middle figure when several are.

use crate::ir::*;
use std::collections::HashMap;

/// The functions escaping as values, by the number of arguments they still expect: each with
/// the arguments already applied to it.
#[derive(Debug, Default)]
pub(crate) struct Callees {
    by_remaining: HashMap<usize, Vec<(FunId, usize)>>,
}

impl Callees {
    /// Finds the escaping functions of `compiled`'s code.
    pub(crate) fn of(compiled: &Compiled) -> Callees {
        let mut found = Vec::new();
        for fun in &compiled.funs {
            Escapes::default().walk(&fun.body, &mut found);
        }
        let mut top = Escapes::default();
        for item in &compiled.items {
            match item {
                TopItem::Let(Binder::Slot(slot), value, _) if top.defines(*slot, value) => {}
                TopItem::Let(_, value, _) | TopItem::Expr(value) => top.walk(value, &mut found),
                TopItem::LetRec(group) => {
                    for capture in group.captures.iter() {
                        top.walk(capture, &mut found);
                    }
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        let mut by_remaining: HashMap<usize, Vec<(FunId, usize)>> = HashMap::new();
        for (fid, applied) in found {
            let arity = compiled.funs[fid as usize].arity as usize;
            if applied < arity {
                by_remaining
                    .entry(arity - applied)
                    .or_default()
                    .push((fid, applied));
            }
        }
        Callees { by_remaining }
    }

    /// What a call through a closure with `args` arguments adds to the chain through
    /// argument `i`, from each function's latencies from its parameters to its result
    /// (`summaries`): the mean over the functions it can reach, 0 if none.
    pub(crate) fn through(&self, args: usize, i: usize, summaries: &[Vec<u32>]) -> u32 {
        let Some(reachable) = self.by_remaining.get(&args) else {
            return 0;
        };
        let total: u32 = reachable
            .iter()
            .map(|&(fid, applied)| {
                summaries[fid as usize]
                    .get(applied + i)
                    .copied()
                    .unwrap_or(0)
            })
            .sum();
        (total as f64 / reachable.len() as f64).round() as u32
    }
}

/// The functions a body lets escape: built closures, functions named as values, partial
/// applications of known functions (with the arguments applied). A `let` that binds a
/// function defines it: it escapes where its name is used other than as a call's head.
#[derive(Default)]
struct Escapes {
    defined: HashMap<Slot, FunId>,
}

impl Escapes {
    /// Whether `value`, bound to `slot`, is a function's definition (remembered).
    fn defines(&mut self, slot: Slot, value: &Code) -> bool {
        let fid = match value {
            Code::ClosedFun(f) => *f,
            Code::MakeClosure(closure) => closure.fun,
            _ => return false,
        };
        self.defined.insert(slot, fid);
        true
    }

    /// The function `head` names, if it names one.
    fn named(&self, head: &Code) -> Option<FunId> {
        match head {
            Code::ClosedFun(f) | Code::Sibling(f) => Some(*f),
            Code::Local(s) | Code::TakeLocal(s) => self.defined.get(s).copied(),
            _ => None,
        }
    }

    fn walk(&mut self, code: &Code, found: &mut Vec<(FunId, usize)>) {
        match code {
            Code::MakeClosure(closure) => {
                found.push((closure.fun, 0));
                for capture in closure.captures.iter() {
                    self.walk(capture, found);
                }
                return;
            }
            Code::Let(l) => {
                if let Binder::Slot(slot) = l.binder {
                    if self.defines(slot, &l.value) {
                        if let Code::MakeClosure(closure) = &l.value {
                            for capture in closure.captures.iter() {
                                self.walk(capture, found);
                            }
                        }
                        self.walk(&l.body, found);
                        return;
                    }
                }
            }
            Code::App(app) => {
                if let Some(f) = self.named(&app.func) {
                    // Named as the head of a call: escapes only if applied partially (the
                    // arity test is left to `Callees::of`, which knows it).
                    found.push((f, app.args.len()));
                    for arg in app.args.iter() {
                        self.walk(arg, found);
                    }
                    return;
                }
            }
            _ => {
                if let Some(f) = self.named(code) {
                    found.push((f, 0));
                    return;
                }
            }
        }
        code.for_each_child(&mut |child, _| self.walk(child, found));
    }
}
