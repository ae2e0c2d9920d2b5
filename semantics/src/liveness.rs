//! Frees a frame slot at its last read, as native code does: ocamlopt's register allocator
//! keeps a variable only while it is live, so a minor collection in the middle of `sieve
//! (filter p r)` does not see `r` once `filter` has returned. An interpreter frame that held
//! every slot until the function returned would keep whole intermediate lists alive and make
//! the heap accounting ([`crate::heap`]) promote ten times what the runtime does.
//!
//! A backward pass over each function body: a read of a slot that no later evaluation reads
//! becomes [`Code::TakeLocal`], which moves the value out of the frame. Operands whose
//! evaluation order the pass does not rely on (the arguments of a call, the fields of a
//! tuple, the operands of an operator) are treated as unordered: a read in one of them is
//! the last only if no sibling reads the slot either. Alternatives (branches, match arms) are
//! joined: a slot that one branch reads and another does not stays until the frame ends in
//! the other — a little longer than native code keeps it, never shorter.

use crate::ir::*;
use std::collections::HashSet;

type Live = HashSet<Slot>;

/// Rewrites the last read of every slot in every function body.
pub(crate) fn release_dead_slots(compiled: &mut Compiled) {
    for fun in &mut compiled.funs {
        walk(&mut fun.body, &mut Live::new());
    }
}

/// `live` holds the slots read after `code`; on return, the slots read from `code` on.
fn walk(code: &mut Code, live: &mut Live) {
    match code {
        Code::Local(slot) => {
            let slot = *slot;
            if live.insert(slot) {
                *code = Code::TakeLocal(slot);
            }
        }
        Code::TakeLocal(slot) => {
            live.insert(*slot);
        }
        Code::Imm(_)
        | Code::Static(_)
        | Code::Env(_)
        | Code::Global(_)
        | Code::Sibling(_)
        | Code::ClosedFun(_) => {}
        Code::Let(l) => {
            walk(&mut l.body, live);
            if let Binder::Slot(slot) = l.binder {
                live.remove(&slot);
            }
            walk(&mut l.value, live);
        }
        Code::LetRec(group) => {
            walk(&mut group.1, live);
            unordered(group.0.captures.iter_mut().collect(), live);
        }
        Code::Seq(pair) => {
            walk(&mut pair.1, live);
            walk(&mut pair.0, live);
        }
        Code::If(branches) => {
            let (cond, then, otherwise) = &mut **branches;
            alternatives(vec![then, otherwise], live);
            walk(cond, live);
        }
        Code::And(pair) | Code::Or(pair) => {
            // The second operand may not run.
            let mut second = live.clone();
            walk(&mut pair.1, &mut second);
            live.extend(second);
            walk(&mut pair.0, live);
        }
        Code::App(app) => {
            let App { func, args, .. } = &mut **app;
            let mut operands: Vec<&mut Code> = args.iter_mut().collect();
            operands.push(func);
            unordered(operands, live);
        }
        Code::Op1(_, operand) | Code::Raise(operand, _) | Code::BoxFloat(operand) => {
            walk(operand, live)
        }
        Code::Release(release) => walk(&mut release.1, live),
        Code::Op2(node) => {
            let Op2Node { lhs, rhs, .. } = &mut **node;
            unordered(vec![lhs, rhs], live);
        }
        Code::MakeClosure(closure) => unordered(closure.captures.iter_mut().collect(), live),
        Code::Tuple(items) | Code::Block(_, items) | Code::Exn(_, items) => {
            unordered(items.iter_mut().collect(), live)
        }
        Code::Cons(pair) => {
            let (head, tail) = &mut **pair;
            unordered(vec![head, tail], live);
        }
        Code::List(list) => {
            let (items, tail) = &mut **list;
            let mut operands: Vec<&mut Code> = items.iter_mut().collect();
            operands.push(tail);
            unordered(operands, live);
        }
        Code::Match(m) => {
            arms(
                m.arms
                    .iter_mut()
                    .map(|a| (&a.pat, a.guard.as_mut(), &mut a.body)),
                live,
            );
            walk(&mut m.scrutinee, live);
        }
        Code::MatchTuple(m) => {
            // Tuple arms bind through component patterns: no release there (the component
            // slots are the match's own and hold what the scrutinee's parts hold anyway).
            let after = live.clone();
            for arm in m.arms.iter_mut() {
                let mut arm_live = after.clone();
                walk(&mut arm.body, &mut arm_live);
                if let Some(guard) = arm.guard.as_mut() {
                    walk(guard, &mut arm_live);
                }
                live.extend(arm_live);
            }
            unordered(m.components.iter_mut().collect(), live);
        }
        Code::Try(t) => {
            // The handler can run after any part of the body: what it reads stays live
            // throughout the body.
            let handler_live = {
                let mut handler = live.clone();
                arms(
                    t.arms
                        .iter_mut()
                        .map(|a| (&a.pat, a.guard.as_mut(), &mut a.body)),
                    &mut handler,
                );
                handler
            };
            live.extend(handler_live);
            walk(&mut t.body, live);
        }
        Code::Imp(node) => unordered(node.args.iter_mut().collect(), live),
        Code::Assign(slot, value) => {
            live.remove(slot);
            walk(value, live);
        }
        Code::For(f) => {
            // The body runs again: what it reads stays live through it.
            let mut inner = live.clone();
            inner.extend(reads(&f.body));
            walk(&mut f.body, &mut inner);
            live.extend(inner);
            live.remove(&f.slot);
            unordered(vec![&mut f.from, &mut f.until], live);
        }
        Code::While(w) => {
            let mut head = live.clone();
            head.extend(reads(&w.0));
            head.extend(reads(&w.1));
            let mut body_live = head.clone();
            walk(&mut w.1, &mut body_live);
            head.extend(body_live);
            walk(&mut w.0, &mut head);
            live.extend(head);
        }
    }
}

/// Branches of which exactly one runs after the same point. A slot that another branch reads
/// but this one does not is dead on entry to this one: released there.
fn alternatives(branches: Vec<&mut Code>, live: &mut Live) {
    let after = live.clone();
    let mut entries = Vec::new();
    for branch in branches {
        let mut branch_live = after.clone();
        walk(branch, &mut branch_live);
        live.extend(branch_live.iter().copied());
        entries.push((branch, branch_live));
    }
    release_on_entry(entries, live, &Live::new());
}

/// Wraps each branch in a [`Code::Release`] of the slots live at the branch point that it does
/// not read (`bound`: slots the arms' patterns bind, never live before them).
fn release_on_entry(entries: Vec<(&mut Code, Live)>, live: &Live, bound: &Live) {
    for (branch, branch_live) in entries {
        let mut dead: Vec<Slot> = live
            .iter()
            .filter(|s| !branch_live.contains(s) && !bound.contains(s))
            .copied()
            .collect();
        if dead.is_empty() {
            continue;
        }
        dead.sort_unstable();
        let body = std::mem::replace(branch, Code::Imm(0));
        *branch = Code::Release(Box::new((dead.into(), body)));
    }
}

/// Arms of a match: each body runs after its guard, and a guard that fails moves on to the
/// next arm, so guards see everything any arm reads.
fn arms<'a>(
    arms: impl Iterator<Item = (&'a Pat, Option<&'a mut Code>, &'a mut Code)>,
    live: &mut Live,
) {
    let after = live.clone();
    let mut guards = Vec::new();
    let mut entries = Vec::new();
    let mut bound = Live::new();
    for (pat, guard, body) in arms {
        let mut body_live = after.clone();
        walk(body, &mut body_live);
        live.extend(body_live.iter().copied());
        guards.extend(guard);
        pattern_slots(pat, &mut bound);
        entries.push((body, body_live));
    }
    release_on_entry(entries, live, &bound);
    let after_guards = live.clone();
    for guard in guards {
        let mut guard_live = after_guards.clone();
        walk(guard, &mut guard_live);
        live.extend(guard_live);
    }
}

/// Operands evaluated in an order the pass does not rely on.
fn unordered(operands: Vec<&mut Code>, live: &mut Live) {
    let reads: Vec<Live> = operands.iter().map(|c| reads(c)).collect();
    let after = live.clone();
    for (i, operand) in operands.into_iter().enumerate() {
        let mut operand_live = after.clone();
        for (j, other) in reads.iter().enumerate() {
            if j != i {
                operand_live.extend(other);
            }
        }
        walk(operand, &mut operand_live);
        live.extend(operand_live);
    }
}

/// Every slot `code` reads.
fn reads(code: &Code) -> Live {
    let mut slots = Live::new();
    collect_reads(code, &mut slots);
    slots
}

fn collect_reads(code: &Code, slots: &mut Live) {
    let mut all = |codes: &mut dyn Iterator<Item = &Code>| {
        for c in codes {
            collect_reads(c, slots);
        }
    };
    match code {
        Code::Local(slot) | Code::TakeLocal(slot) => {
            slots.insert(*slot);
        }
        Code::Imm(_)
        | Code::Static(_)
        | Code::Env(_)
        | Code::Global(_)
        | Code::Sibling(_)
        | Code::ClosedFun(_) => {}
        Code::Let(l) => all(&mut [&l.value, &l.body].into_iter()),
        Code::LetRec(group) => all(&mut group.0.captures.iter().chain(std::iter::once(&group.1))),
        Code::Seq(pair) | Code::And(pair) | Code::Or(pair) | Code::Cons(pair) => {
            all(&mut [&pair.0, &pair.1].into_iter())
        }
        Code::If(b) => all(&mut [&b.0, &b.1, &b.2].into_iter()),
        Code::App(app) => all(&mut app.args.iter().chain(std::iter::once(&app.func))),
        Code::Op1(_, operand) | Code::Raise(operand, _) | Code::BoxFloat(operand) => {
            all(&mut std::iter::once(&**operand))
        }
        Code::Release(release) => collect_reads(&release.1, slots),
        Code::Op2(node) => all(&mut [&node.lhs, &node.rhs].into_iter()),
        Code::MakeClosure(closure) => all(&mut closure.captures.iter()),
        Code::Tuple(items) | Code::Block(_, items) | Code::Exn(_, items) => all(&mut items.iter()),
        Code::List(list) => all(&mut list.0.iter().chain(std::iter::once(&list.1))),
        Code::Match(m) => all(&mut std::iter::once(&m.scrutinee)
            .chain(m.arms.iter().flat_map(|a| a.guard.iter().chain([&a.body])))),
        Code::MatchTuple(m) => all(&mut m
            .components
            .iter()
            .chain(m.arms.iter().flat_map(|a| a.guard.iter().chain([&a.body])))),
        Code::Try(t) => all(&mut std::iter::once(&t.body)
            .chain(t.arms.iter().flat_map(|a| a.guard.iter().chain([&a.body])))),
        Code::Imp(node) => all(&mut node.args.iter()),
        Code::Assign(_, value) => collect_reads(value, slots),
        Code::For(f) => all(&mut [&f.from, &f.until, &f.body].into_iter()),
        Code::While(w) => all(&mut [&w.0, &w.1].into_iter()),
    }
}

/// Slots a pattern binds.
fn pattern_slots(pat: &Pat, slots: &mut Live) {
    match pat {
        Pat::Bind(slot) => {
            slots.insert(*slot);
        }
        Pat::As(inner, slot) => {
            slots.insert(*slot);
            pattern_slots(inner, slots);
        }
        Pat::Cons(pair) | Pat::Or(pair) => {
            pattern_slots(&pair.0, slots);
            pattern_slots(&pair.1, slots);
        }
        Pat::Tuple(items) | Pat::Block(_, items) | Pat::Exn(_, items) => {
            for item in items.iter() {
                pattern_slots(item, slots);
            }
        }
        Pat::Any | Pat::Imm(_) | Pat::Float(_) | Pat::Str(_) => {}
        Pat::Record(items) => {
            for (_, item) in items.iter() {
                pattern_slots(item, slots);
            }
        }
    }
}
