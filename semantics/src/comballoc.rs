//! Which allocations ocamlopt combines (`AllocMerged`). Its Comballoc pass (asmcomp/
//! comballoc.ml, OCaml 4.13) merges the allocations of one basic block that no call comes
//! between into one: a single decrement of the allocation pointer by their total size and a
//! single test of the heap's limit, each later block found by an `lea` from the first. So
//! `(x :: rx, y :: ry)` runs one `sub`, `cmp`, `jb` for its three blocks where three separate
//! allocations would run three. This pass finds them on the IR, in the order native code
//! evaluates (operands right to left, a call's function last), and wraps each allocating node
//! that joins an allocation before it in [`Code::Combined`], which the interpreter counts.
//!
//! What ends a run of allocations, as in comballoc.ml: a call of any kind (OCaml functions,
//! `caml_applyN`, C externals such as `caml_modify`, `caml_compare` and `caml_make_vect`, a
//! raise), and a branch (`if`, a tested `match`, `&&`, `||`, a loop, a division's zero check,
//! `abs`, a refutable `let`): the code after a branch and each of its arms start afresh. A run
//! also stops at 256 words, the largest block the minor heap takes.

use crate::ir::*;
use crate::lower::FLOAT_BOX_WORDS;

/// Words a combined allocation may hold: `Max_young_wosize` + 1 (comballoc.ml's bound, in
/// words with the headers).
const MAX_COMBINED_WORDS: u32 = 257;

/// Marks the combined allocations of every function (what a benchmark counts runs in
/// functions: top-level code runs once, before counting starts).
pub(crate) fn mark_combined_allocations(compiled: &mut Compiled) {
    for fun in compiled.funs.iter_mut() {
        Walker.code(&mut fun.body, None);
    }
}

/// The words of the allocation in progress (`None`: none is, the next one starts one).
type Pending = Option<u32>;

struct Walker;

impl Walker {
    /// Walks `code` starting with `pending`; returns what is pending after it.
    fn code(&mut self, code: &mut Code, pending: Pending) -> Pending {
        match code {
            Code::Imm(_)
            | Code::Static(_)
            | Code::Local(_)
            | Code::TakeLocal(_)
            | Code::Env(_)
            | Code::Global(_)
            | Code::Sibling(_)
            | Code::ClosedFun(_) => pending,
            Code::Combined(_, inner) => self.code(inner, pending),
            Code::Let(l) => {
                let after_value = self.code(&mut l.value, pending);
                let refutable = matches!(
                    l.binder,
                    Binder::Pattern {
                        refutable: true,
                        ..
                    }
                );
                self.code(&mut l.body, if refutable { None } else { after_value })
            }
            Code::LetRec(group) => {
                let mut pending = self.right_to_left(&mut group.0.captures, pending);
                if !group.0.captures.is_empty() {
                    // The group's closure block has no node of its own to mark (the body
                    // runs inside the `LetRec`): it is taken to start a run. Local
                    // recursive closures are rare in the loops that matter.
                    pending = start(4 + group.0.captures.len() as u32);
                }
                self.code(&mut group.1, pending)
            }
            Code::Seq(pair) => {
                let pending = self.code(&mut pair.0, pending);
                self.code(&mut pair.1, pending)
            }
            Code::If(b) => {
                self.code(&mut b.0, pending);
                self.code(&mut b.1, None);
                self.code(&mut b.2, None);
                None
            }
            Code::And(pair) | Code::Or(pair) => {
                self.code(&mut pair.0, pending);
                self.code(&mut pair.1, None);
                None
            }
            Code::App(app) => {
                let pending = self.right_to_left(&mut app.args, pending);
                self.code(&mut app.func, pending);
                None
            }
            Code::Op1(op, operand) => {
                let pending = self.code(operand, pending);
                match op {
                    Op1::Abs => None,
                    _ => pending,
                }
            }
            Code::Op2(node) => {
                let pending = self.code(&mut node.rhs, pending);
                let pending = self.code(&mut node.lhs, pending);
                if node.op.calls_or_branches() {
                    None
                } else {
                    pending
                }
            }
            Code::Release(release) => self.code(&mut release.1, pending),
            Code::Assign(_, value) => self.code(value, pending),
            Code::Raise(operand, _) => {
                self.code(operand, pending);
                None
            }
            Code::Match(m) => {
                let pending = self.code(&mut m.scrutinee, pending);
                if !m.handlers.is_empty() {
                    // As a `try`'s body, the scrutinee went on with the allocation in
                    // progress; the cases start afresh.
                    self.arms_afresh(&mut m.arms);
                    self.arms_afresh(&mut m.handlers);
                    return None;
                }
                let untested = m.arms.len() == 1 && m.last_untested && m.arms[0].guard.is_none();
                if untested {
                    return self.code(&mut m.arms[0].body, pending);
                }
                self.arms_afresh(&mut m.arms);
                None
            }
            Code::MatchTuple(m) => {
                // A matched tuple's components are bound one after another, left to right.
                let mut pending = m
                    .components
                    .iter_mut()
                    .fold(pending, |pending, code| self.code(code, pending));
                let untested = m.arms.len() == 1 && m.last_untested && m.arms[0].guard.is_none();
                if !untested {
                    pending = None;
                }
                let whole = m.slots.len() as u32 + 1;
                for arm in m.arms.iter_mut() {
                    let mut arm_pending = pending;
                    if let Some(guard) = &mut arm.guard {
                        self.code(guard, None);
                        arm_pending = None;
                    }
                    // An arm that binds the tuple whole builds it (`TupleHead`, counted at
                    // the arm): it joins like any block, but has no node of its own to mark,
                    // and one-arm matches that bind a tuple whole are rare; it starts a run.
                    if matches!(arm.pat, TupleArmPat::Whole(_)) {
                        arm_pending = start(whole);
                    }
                    let after = self.code(&mut arm.body, arm_pending);
                    if untested {
                        return after;
                    }
                }
                None
            }
            Code::Try(t) => {
                // The handler is pushed by no call: the body goes on with the allocation in
                // progress (comballoc.ml's `Itrywith`); the handlers and what follows start
                // afresh.
                self.code(&mut t.body, pending);
                self.arms_afresh(&mut t.arms);
                None
            }
            Code::For(f) => {
                let pending = self.code(&mut f.until, pending);
                self.code(&mut f.from, pending);
                self.code(&mut f.body, None);
                None
            }
            Code::While(w) => {
                self.code(&mut w.0, None);
                self.code(&mut w.1, None);
                None
            }
            Code::Imp(node) => {
                // A record, a reference or an array literal is a block whose fields' float
                // boxes live with it, as a tuple's (`Lower::make` takes them apart too); a flat
                // float block's doubles take a word each.
                if let ImpOp::Make { .. } = node.op {
                    let words = 1 + node.args.len() as u32;
                    let (pending, boxes) = self.fields(&mut node.args, pending);
                    return self.allocate_block(code, pending, boxes, words);
                }
                let pending = self.right_to_left(&mut node.args, pending);
                if imp_breaks(node.op) {
                    None
                } else {
                    pending
                }
            }
            Code::BoxFloat(inner) => {
                let pending = self.code(inner, pending);
                self.allocate(code, pending, FLOAT_BOX_WORDS)
            }
            Code::MakeClosure(closure) => {
                let (pending, boxes) = self.fields(&mut closure.captures, pending);
                // A closure of one function: header, code pointer, closure info, and a second
                // code pointer for several parameters; the bound is all that needs its size.
                let words = 4 + closure.captures.len() as u32;
                self.allocate_block(code, pending, boxes, words)
            }
            Code::Tuple(items) | Code::Block(_, items) => {
                let words = 1 + items.len() as u32;
                let (pending, boxes) = self.fields(items, pending);
                self.allocate_block(code, pending, boxes, words)
            }
            Code::Exn(_, items) => {
                let words = 2 + items.len() as u32;
                let (pending, boxes) = self.fields(items, pending);
                self.allocate_block(code, pending, boxes, words)
            }
            Code::Cons(pair) => {
                let pending = self.code(&mut pair.1, pending);
                let (pending, boxes) = self.fields(std::slice::from_mut(&mut pair.0), pending);
                self.allocate_block(code, pending, boxes, crate::heap::CONS_WORDS)
            }
            Code::List(list) => {
                let mut pending = self.code(&mut list.1, pending);
                let mut joins = 0;
                for item in list.0.iter_mut().rev() {
                    pending = self.code(item, pending);
                    let (joined, next) = join(pending, crate::heap::CONS_WORDS);
                    joins += u32::from(joined);
                    pending = next;
                }
                mark(code, joins);
                pending
            }
        }
    }

    /// The arms of a tested match or a handler: each guard and body starts afresh.
    fn arms_afresh(&mut self, arms: &mut [Arm]) {
        for arm in arms {
            if let Some(guard) = &mut arm.guard {
                self.code(guard, None);
            }
            self.code(&mut arm.body, None);
        }
    }

    /// Operands evaluated right to left, each seeing what the one before left pending.
    fn right_to_left(&mut self, codes: &mut [Code], mut pending: Pending) -> Pending {
        for code in codes.iter_mut().rev() {
            pending = self.code(code, pending);
        }
        pending
    }

    /// A block's fields, right to left: a float boxed for the block is an allocation of its
    /// own, which the block's node answers for (`Lower::fields` takes the box apart). Returns
    /// what is pending and how many of those boxes joined a run.
    fn fields(&mut self, items: &mut [Code], mut pending: Pending) -> (Pending, u32) {
        let mut joins = 0;
        for item in items.iter_mut().rev() {
            match item {
                Code::BoxFloat(inner) => {
                    pending = self.code(inner, pending);
                    let (joined, next) = join(pending, FLOAT_BOX_WORDS);
                    joins += u32::from(joined);
                    pending = next;
                }
                other => pending = self.code(other, pending),
            }
        }
        (pending, joins)
    }

    /// A block of `words` allocated after its fields (whose boxes joined `boxes` times).
    fn allocate_block(
        &mut self,
        code: &mut Code,
        pending: Pending,
        boxes: u32,
        words: u32,
    ) -> Pending {
        let (joined, next) = join(pending, words);
        mark(code, boxes + u32::from(joined));
        next
    }

    /// A node that allocates one block of `words`.
    fn allocate(&mut self, code: &mut Code, pending: Pending, words: u32) -> Pending {
        self.allocate_block(code, pending, 0, words)
    }
}

/// Whether an allocation of `words` joins the one pending, and what is pending after it.
fn join(pending: Pending, words: u32) -> (bool, Pending) {
    match pending {
        Some(total) if total + words <= MAX_COMBINED_WORDS => (true, Some(total + words)),
        _ => (false, start(words)),
    }
}

fn start(words: u32) -> Pending {
    Some(words.min(MAX_COMBINED_WORDS))
}

/// Wraps `code` in [`Code::Combined`] when `joins` of its allocations joined a run.
fn mark(code: &mut Code, joins: u32) {
    if joins > 0 {
        let inner = std::mem::replace(code, Code::Imm(0));
        *code = Code::Combined(joins, Box::new(inner));
    }
}

/// Record, array and string operations that call C or branch: the write barrier
/// (`caml_modify`), an array whose kind is only known at run time (a tag test), and the
/// externals (`caml_make_vect`, `caml_create_bytes`, the blits and fills, the array copies).
/// Bounds checks are no branch of the IR's kind: ocamlopt emits them as one `Icheckbound`.
fn imp_breaks(op: ImpOp) -> bool {
    match op {
        ImpOp::Make { .. }
        | ImpOp::GetField { .. }
        | ImpOp::AddToField { .. }
        | ImpOp::ArrayLength => false,
        ImpOp::SetField { store, .. } => store == StoreKind::Barrier,
        ImpOp::ArrayGet { generic, .. } => generic,
        ImpOp::ArraySet { store, generic, .. } => generic || store == StoreKind::Barrier,
        ImpOp::Str(StrOp::Length | StrOp::Get { .. } | StrOp::Set { .. }) => false,
        ImpOp::ArrayMake | ImpOp::Str(_) | ImpOp::Arr(_) => true,
    }
}
