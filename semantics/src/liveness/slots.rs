//! What the liveness pass reads off the code: the slots a pattern binds and an expression
//! reads, the order operands run in, and the releases on entry to a branch.

use super::Live;
use crate::ir::*;

/// Wraps each branch in a [`Code::Release`] of the slots live at the branch point that it does
/// not read (`bound`: slots the arms' patterns bind, never live before them).
pub(super) fn release_on_entry(entries: Vec<(&mut Code, Live)>, live: &Live, bound: &Live) {
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

/// The order native code evaluates a construct's operands in.
#[derive(Clone, Copy)]
pub(super) enum Order {
    /// Last operand first (ocamlopt's order for operators, tuples, constructors).
    RightToLeft,
    /// First operand first (the components of a matched tuple, each bound by a `let`).
    LeftToRight,
    /// The arguments right to left, then the function (the last operand).
    ArgumentsThenFunction,
}

/// Whether an operand evaluated before another leaves a value in a register that a call in
/// the other must keep: anything but a constant, a static closure or a global (reloaded from
/// memory) — and but a variable, which is counted as live on its own.
pub(super) fn holds_a_result(code: &Code) -> bool {
    !matches!(
        code,
        Code::Imm(_)
            | Code::Static(_)
            | Code::ClosedFun(_)
            | Code::Sibling(_)
            | Code::Global(_)
            | Code::Env(_)
            | Code::Local(_)
            | Code::TakeLocal(_)
    )
}

/// The variables bound directly by the fields of a pattern's top constructor.
pub(crate) fn field_slots(pat: &Pat) -> Vec<Slot> {
    match pat {
        Pat::As(inner, _) => field_slots(inner),
        Pat::Cons(pair) => [&pair.0, &pair.1]
            .into_iter()
            .filter_map(|p| match p {
                Pat::Bind(slot) => Some(*slot),
                _ => None,
            })
            .collect(),
        Pat::Tuple(items) | Pat::Block(_, items) => items
            .iter()
            .filter_map(|p| match p {
                Pat::Bind(slot) => Some(*slot),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// How many times `code` reads `slot`, as the compiler counts uses: a read that may run many
/// times — captured by a closure, or in a loop's test or body — counts as many.
pub(crate) fn uses(code: &Code, slot: Slot) -> u32 {
    let mut count = 0;
    visit_reads(code, false, &mut |read, repeated| {
        if read == slot {
            count += if repeated { 2 } else { 1 };
        }
    });
    count
}

/// Calls `f` on every slot read in `code`, saying whether the read may run many times: a
/// closure's capture, or a read in a loop's test or body. The let-simplification substitutes
/// neither (read off `ocamlopt -S`: `let (n, m) = p in while … n … m …` loads both fields once,
/// before the loop).
pub(super) fn visit_reads(code: &Code, repeated: bool, f: &mut dyn FnMut(Slot, bool)) {
    match code {
        Code::Local(slot) | Code::TakeLocal(slot) => f(*slot, repeated),
        Code::For(l) => {
            visit_reads(&l.from, repeated, f);
            visit_reads(&l.until, repeated, f);
            visit_reads(&l.body, true, f);
        }
        Code::While(w) => {
            visit_reads(&w.0, true, f);
            visit_reads(&w.1, true, f);
        }
        _ => code.for_each_child(&mut |child, capture| visit_reads(child, repeated || capture, f)),
    }
}

/// Slots a pattern binds.
pub(super) fn pattern_slots(pat: &Pat, slots: &mut Live) {
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
