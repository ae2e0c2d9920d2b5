//! Frees a frame slot at its last read, as native code does: ocamlopt's register allocator
//! keeps a variable only while it is live, so a minor collection in the middle of `sieve
//! (filter p r)` does not see `r` once `filter` has returned. An interpreter frame that held
//! every slot until the function returned would keep whole intermediate lists alive and make
//! the heap accounting ([`crate::heap`]) promote ten times what the runtime does.
//!
//! A backward pass over each function body: a read of a slot that no later evaluation reads
//! becomes [`Code::TakeLocal`], which moves the value out of the frame. Operands (the
//! arguments of a call, the fields of a tuple, the operands of an operator) run in ocamlopt's
//! order, right to left (a call's function last): a read in one of them is the last unless an
//! operand that runs after it reads the slot too. Alternatives (branches, match arms) are
//! joined: a slot that one branch reads and another does not stays until the frame ends in
//! the other — a little longer than native code keeps it, never shorter.
//!
//! A pattern variable read exactly once is not a variable in native code: the compiler's
//! let-simplification substitutes it back as a field read of the matched block at its use
//! (`x :: xs -> … f x …` reads `field 0 l` where `f x` runs). The matched block therefore
//! lives until that use, not until the match. Such a read counts as a read of the
//! scrutinee's slot (`Pass::aliases`); this is what keeps `msort`'s and `qsort`'s input cells
//! alive across their recursive calls, as in the native binary. A block matched where it is
//! computed (`match partition p t [] [] with (lo, hi) -> append (qsort lo) (p :: qsort hi)`)
//! gets a slot of its own for this ([`Pass::bind_matched_block`]): the tuple, and with it
//! `hi`, lives while `qsort hi` runs and dies at the read of `lo`. Against the runtime (a
//! collection placed at 40 offsets of one run), the expected promoted words of `qsort` and
//! `msort` at 1600 elements are the native ones within 0.2% (3430, 2467; before: 1742, 1727).
//!
//! The same pass knows what native code keeps across each call. OCaml's calling convention
//! saves no register for the caller, so at a non-tail call every live slot, and every operand
//! already evaluated (in ocamlopt's right-to-left order) that is not a constant, goes to the
//! stack frame and back: [`App::kept_live`], counted as `Spill`. Whether a function has a
//! frame at all is [`crate::frame::needs_frame`], counted as `Frame` on entry.

mod slots;

pub(crate) use slots::{field_slots, uses};

use crate::ir::*;
use slots::{holds_a_result, pattern_slots, release_on_entry, visit_reads, Order};
use std::collections::{HashMap, HashSet};

type Live = HashSet<Slot>;

/// [`Pass::near`] where alternatives meet: each starts from what follows them all, and a slot
/// any of them reads before its first call is near before them.
struct NearJoin {
    after: HashSet<Slot>,
    before: HashSet<Slot>,
}

impl NearJoin {
    fn after(pass: &Pass) -> NearJoin {
        NearJoin {
            after: pass.near.clone(),
            before: HashSet::new(),
        }
    }

    /// An alternative is walked next.
    fn enter(&self, pass: &mut Pass) {
        pass.near.clone_from(&self.after);
    }

    /// The alternative just walked is done.
    fn leave(&mut self, pass: &mut Pass) {
        self.before.extend(pass.near.drain());
    }

    /// All were walked: what precedes them sees the union.
    fn join(self, pass: &mut Pass) {
        pass.near = self.before;
    }
}

/// Rewrites the last read of every slot in every function body.
pub(crate) fn release_dead_slots(compiled: &mut Compiled) {
    for (fid, fun) in compiled.funs.iter_mut().enumerate() {
        let mut pass = Pass {
            next_slot: fun.frame_size,
            first_bound_block: fun.frame_size,
            ..Pass::default()
        };
        pass.walk(&mut fun.body, &mut Live::new());
        fun.frame_size = pass.next_slot;
        fun.framed = crate::frame::needs_frame(&fun.body, fid as FunId);
        fun.native_frame_words = native_frame_words(fun.framed, pass.stack_slots);
    }
}

/// Pattern variables that native code reads as a field of a block still held in another
/// slot: the variable's slot maps to the block's slot.
#[derive(Default)]
struct Pass {
    aliases: HashMap<Slot, Slot>,
    /// Results of operands evaluated before the current one, held while it runs.
    pending: u32,
    /// Non-tail calls walked so far: whether an operand called.
    calls_seen: u64,
    /// Slots in the live set only because an operand evaluated earlier reads them: they are
    /// not needed across a call in a later operand.
    read_before: HashSet<Slot>,
    /// Slots whose next read comes before any call: after a call, the values it keeps that
    /// are read again before the next one — each loaded back from the frame once.
    near: HashSet<Slot>,
    /// The next free slot of the function's frame (see [`Pass::bind_matched_block`]).
    next_slot: Slot,
    /// The first slot [`Pass::bind_matched_block`] gave: the frame's size before the pass.
    first_bound_block: Slot,
    /// The most values one non-tail call keeps in the frame: the native frame's slots.
    stack_slots: u32,
}

/// Words of a function's native frame on amd64: its stack slots and the return address,
/// rounded up to 16 bytes (ocamlopt 4.13's `frame_size`); a function without a frame leaves
/// only the return address its caller pushed, and that only while it runs a leaf's code.
fn native_frame_words(framed: bool, stack_slots: u32) -> u32 {
    if framed {
        (stack_slots + 2) & !1
    } else {
        0
    }
}

impl Pass {
    /// Rewrites a match of a computed block whose pattern binds a field read once into
    /// `let slot = value in <match on slot>` (see the module doc); returns whether it did.
    fn bind_matched_block(&mut self, code: &mut Code) -> bool {
        let once_read = |pat: &Pat, scope: Vec<&Code>| {
            let reads = |f| scope.iter().map(|c| uses(c, f)).sum::<u32>();
            field_slots(pat).into_iter().any(|f| reads(f) == 1)
        };
        let value = match code {
            Code::Let(l) => match &l.binder {
                Binder::Pattern { pat, .. }
                    if !matches!(l.value, Code::Local(_)) && once_read(pat, vec![&l.body]) =>
                {
                    &mut l.value
                }
                _ => return false,
            },
            // (Not under a trap: the scrutinee would leave it.)
            Code::Match(m)
                if m.handlers.is_empty()
                    && !matches!(m.scrutinee, Code::Local(_))
                    && m.arms.iter().any(|arm| {
                        once_read(&arm.pat, arm.guard.iter().chain([&arm.body]).collect())
                    }) =>
            {
                &mut m.scrutinee
            }
            _ => return false,
        };
        let slot = self.next_slot;
        self.next_slot += 1;
        let value = std::mem::replace(value, Code::Local(slot));
        let body = std::mem::replace(code, Code::Imm(0));
        *code = Code::Let(Box::new(Let {
            binder: Binder::Slot(slot),
            value,
            counter: None,
            body,
            float_var: false,
        }));
        true
    }

    /// A read of `slot` that native code makes as a field read of another slot's block keeps
    /// that block alive; at the last such read the block's slot is released.
    fn read_through_alias(&mut self, slot: Slot, code: &mut Code, live: &mut Live) {
        let Some(&block) = self.aliases.get(&slot) else {
            return;
        };
        self.read_before.remove(&block);
        self.near.insert(block);
        if live.insert(block) {
            let read = std::mem::replace(code, Code::Imm(0));
            *code = Code::Release(Box::new((Box::new([block]), read)));
        }
    }

    /// Records as aliases of `block` the variables that `pat` binds directly under its top
    /// constructor and that `scope` reads exactly once outside any closure (the variables the
    /// compiler substitutes by a field read).
    fn alias_once_read_fields<'a>(
        &mut self,
        pat: &Pat,
        block: Slot,
        scope: impl IntoIterator<Item = &'a Code> + Clone,
    ) {
        for field in field_slots(pat) {
            let uses: u32 = scope.clone().into_iter().map(|c| uses(c, field)).sum();
            if uses == 1 {
                self.aliases.insert(field, block);
            }
        }
    }

    /// `live` holds the slots read after `code`; on return, the slots read from `code` on.
    fn walk(&mut self, code: &mut Code, live: &mut Live) {
        if self.bind_matched_block(code) {
            return self.walk(code, live);
        }
        match code {
            Code::Local(slot) => {
                let slot = *slot;
                self.read_before.remove(&slot);
                self.near.insert(slot);
                if live.insert(slot) {
                    *code = Code::TakeLocal(slot);
                }
                self.read_through_alias(slot, code, live);
            }
            Code::TakeLocal(slot) => {
                let slot = *slot;
                self.read_before.remove(&slot);
                self.near.insert(slot);
                live.insert(slot);
                self.read_through_alias(slot, code, live);
            }
            Code::Imm(_)
            | Code::Static(_)
            | Code::Env(_)
            | Code::Global(_)
            | Code::Sibling(_)
            | Code::ClosedFun(_) => {}
            Code::Let(l) => {
                if let (Binder::Pattern { pat, .. }, Code::Local(block)) = (&l.binder, &l.value) {
                    self.alias_once_read_fields(pat, *block, [&l.body]);
                }
                self.walk(&mut l.body, live);
                match &l.binder {
                    Binder::Slot(slot) => {
                        live.remove(slot);
                    }
                    Binder::Pattern { pat, .. } => {
                        let mut bound = Live::new();
                        pattern_slots(pat, &mut bound);
                        live.retain(|s| !bound.contains(s));
                    }
                }
                self.walk(&mut l.value, live);
            }
            Code::LetRec(group) => {
                self.walk(&mut group.1, live);
                self.operands(
                    group.0.captures.iter_mut().collect(),
                    live,
                    Order::RightToLeft,
                );
            }
            Code::Seq(pair) => {
                self.walk(&mut pair.1, live);
                self.walk(&mut pair.0, live);
            }
            Code::If(branches) => {
                let (cond, then, otherwise, _) = &mut **branches;
                self.alternatives(vec![then, otherwise], live);
                self.walk(cond, live);
            }
            Code::And(pair) | Code::Or(pair) => {
                // The second operand may not run.
                let mut second = live.clone();
                let near_after = self.near.clone();
                self.walk(&mut pair.1, &mut second);
                self.near.extend(near_after);
                live.extend(second);
                self.walk(&mut pair.0, live);
            }
            Code::App(app) => {
                if !app.tail {
                    // A bound block's slot stands for its variables, counted already; a
                    // once-read pattern variable is a field read of its block at its use, so
                    // native code keeps the block, not the variable.
                    let is_field_of_live_block =
                        |s: &Slot| self.aliases.get(s).is_some_and(|b| live.contains(b));
                    let kept: Box<[Slot]> = live
                        .iter()
                        .filter(|s| {
                            !self.read_before.contains(s)
                                && **s < self.first_bound_block
                                && !is_field_of_live_block(s)
                        })
                        .copied()
                        .collect();
                    // A kept value is loaded back once after the last call before its next
                    // read; an operand's result held across the call is stored and loaded
                    // back there.
                    let loaded = kept.iter().filter(|s| self.near.contains(s)).count();
                    app.kept_live = loaded as u32 + 2 * self.pending;
                    self.stack_slots = self.stack_slots.max(kept.len() as u32 + self.pending);
                    app.kept_slots = kept;
                    self.pending = 0;
                    self.calls_seen += 1;
                    self.near.clear();
                }
                let App { func, args, .. } = &mut **app;
                let mut operands: Vec<&mut Code> = args.iter_mut().collect();
                operands.push(func);
                self.operands(operands, live, Order::ArgumentsThenFunction);
            }
            Code::Op1(_, operand) | Code::Raise(operand, _) | Code::BoxFloat(operand) => {
                self.walk(operand, live)
            }
            Code::Release(release) => self.walk(&mut release.1, live),
            Code::Combined(_, inner) => self.walk(inner, live),
            Code::Op2(node) => {
                let Op2Node { lhs, rhs, .. } = &mut **node;
                self.operands(vec![lhs, rhs], live, Order::RightToLeft);
            }
            Code::MakeClosure(closure) => self.operands(
                closure.captures.iter_mut().collect(),
                live,
                Order::RightToLeft,
            ),
            Code::Tuple(items) | Code::Block(_, items) | Code::Exn(_, items) => {
                self.operands(items.iter_mut().collect(), live, Order::RightToLeft)
            }
            Code::Cons(pair) => {
                let (head, tail) = &mut **pair;
                self.operands(vec![head, tail], live, Order::RightToLeft);
            }
            Code::List(list) => {
                let (items, tail) = &mut **list;
                let mut operands: Vec<&mut Code> = items.iter_mut().collect();
                operands.push(tail);
                self.operands(operands, live, Order::RightToLeft);
            }
            Code::Match(m) => {
                if let Code::Local(block) = m.scrutinee {
                    for arm in m.arms.iter() {
                        let scope = arm.guard.iter().chain([&arm.body]);
                        self.alias_once_read_fields(&arm.pat, block, scope);
                    }
                }
                // The handlers are alternatives to the value's cases after the scrutinee:
                // what they read is live after it, so throughout it, as a `try`'s handler.
                self.arms(
                    m.arms
                        .iter_mut()
                        .chain(m.handlers.iter_mut())
                        .map(|a| (&a.pat, a.guard.as_mut(), &mut a.body)),
                    live,
                );
                self.walk(&mut m.scrutinee, live);
            }
            Code::MatchTuple(m) => {
                // Tuple arms bind through component patterns: no release there (the component
                // slots are the match's own and hold what the scrutinee's parts hold anyway).
                let after = live.clone();
                let mut near = NearJoin::after(self);
                let mut bound = Live::new();
                for arm in m.arms.iter_mut() {
                    let mut arm_live = after.clone();
                    near.enter(self);
                    self.walk(&mut arm.body, &mut arm_live);
                    if let Some(guard) = arm.guard.as_mut() {
                        self.walk(guard, &mut arm_live);
                    }
                    near.leave(self);
                    live.extend(arm_live);
                    match &arm.pat {
                        TupleArmPat::Components(alternatives) => alternatives
                            .iter()
                            .flat_map(|pats| pats.iter())
                            .for_each(|pat| pattern_slots(pat, &mut bound)),
                        TupleArmPat::Whole(pat) => pattern_slots(pat, &mut bound),
                    }
                }
                // While the components are computed, what the arms bind does not exist yet
                // (`match (f a, f b) with (Const 0, q) -> q | …`: `q` is kept across no call).
                live.retain(|s| !bound.contains(s));
                near.join(self);
                self.operands(m.components.iter_mut().collect(), live, Order::LeftToRight);
            }
            Code::Try(t) => {
                // The handler can run after any part of the body: what it reads stays live
                // throughout the body.
                let near_after = self.near.clone();
                let handler_live = {
                    let mut handler = live.clone();
                    self.arms(
                        t.arms
                            .iter_mut()
                            .map(|a| (&a.pat, a.guard.as_mut(), &mut a.body)),
                        &mut handler,
                    );
                    handler
                };
                live.extend(handler_live);
                self.near.extend(near_after);
                self.walk(&mut t.body, live);
            }
            Code::Imp(node) => {
                self.operands(node.args.iter_mut().collect(), live, Order::RightToLeft)
            }
            Code::Assign(slot, value) => {
                live.remove(slot);
                self.walk(value, live);
            }
            Code::For(f) => {
                // The body runs again: what it reads stays live through it.
                let mut inner = live.clone();
                let body_reads = self.reads(&f.body);
                inner.extend(body_reads.iter().copied());
                // After the body's last call come the next iteration's test and body: what
                // they read is near for it.
                self.near.extend(body_reads);
                self.near.insert(f.slot);
                self.walk(&mut f.body, &mut inner);
                live.extend(inner);
                live.remove(&f.slot);
                self.operands(vec![&mut f.from, &mut f.until], live, Order::RightToLeft);
            }
            Code::While(w) => {
                let mut head = live.clone();
                head.extend(self.reads(&w.0));
                head.extend(self.reads(&w.1));
                self.near.extend(self.reads(&w.0));
                self.near.extend(self.reads(&w.1));
                let mut body_live = head.clone();
                self.walk(&mut w.1, &mut body_live);
                head.extend(body_live);
                self.walk(&mut w.0, &mut head);
                live.extend(head);
            }
        }
    }

    /// Branches of which exactly one runs after the same point. A slot that another branch reads
    /// but this one does not is dead on entry to this one: released there.
    fn alternatives(&mut self, branches: Vec<&mut Code>, live: &mut Live) {
        let after = live.clone();
        let mut near = NearJoin::after(self);
        let mut entries = Vec::new();
        for branch in branches {
            let mut branch_live = after.clone();
            near.enter(self);
            self.walk(branch, &mut branch_live);
            near.leave(self);
            live.extend(branch_live.iter().copied());
            entries.push((branch, branch_live));
        }
        near.join(self);
        release_on_entry(entries, live, &Live::new());
    }

    /// Arms of a match: each body runs after its guard, and a guard that fails moves on to the
    /// next arm, so guards see everything any arm reads.
    fn arms<'a>(
        &mut self,
        arms: impl Iterator<Item = (&'a Pat, Option<&'a mut Code>, &'a mut Code)>,
        live: &mut Live,
    ) {
        let after = live.clone();
        let mut near = NearJoin::after(self);
        let mut guards = Vec::new();
        let mut entries = Vec::new();
        let mut bound = Live::new();
        for (pat, guard, body) in arms {
            let mut body_live = after.clone();
            near.enter(self);
            self.walk(body, &mut body_live);
            near.leave(self);
            live.extend(body_live.iter().copied());
            guards.extend(guard);
            pattern_slots(pat, &mut bound);
            entries.push((body, body_live));
        }
        release_on_entry(entries, live, &bound);
        near.join(self);
        let after_guards = live.clone();
        for guard in guards {
            let mut guard_live = after_guards.clone();
            self.walk(guard, &mut guard_live);
            live.extend(guard_live);
        }
        // Before the match, what its patterns bind does not exist yet.
        live.retain(|s| !bound.contains(s));
    }

    /// Operands of one construct. Releases do not rely on their order; the values a call must
    /// keep across it do.
    fn operands(&mut self, operands: Vec<&mut Code>, live: &mut Live, order: Order) {
        let reads: Vec<Live> = operands.iter().map(|c| self.reads(c)).collect();
        let held: Vec<bool> = operands.iter().map(|c| holds_a_result(c)).collect();
        let own: Vec<Option<Slot>> = operands
            .iter()
            .map(|c| match c {
                Code::Local(slot) | Code::TakeLocal(slot) => Some(*slot),
                _ => None,
            })
            .collect();
        let n = operands.len();
        let rank = |i: usize| match order {
            Order::ArgumentsThenFunction if i == n - 1 => n,
            Order::LeftToRight => i,
            _ => n - 1 - i,
        };
        let after = live.clone();
        // Walked last-evaluated first, so that what an operand reads before any call is near
        // for the calls of the operands evaluated before it.
        let mut in_reverse: Vec<(usize, &mut Code)> = operands.into_iter().enumerate().collect();
        in_reverse.sort_by_key(|&(i, _)| std::cmp::Reverse(rank(i)));
        let mut later_called = false;
        for (i, operand) in in_reverse {
            let mut operand_live = after.clone();
            for (j, other) in reads.iter().enumerate() {
                if rank(j) > rank(i) {
                    operand_live.extend(other);
                } else if let Some(slot) = own[j].filter(|_| j != i) {
                    // A variable evaluated earlier: its value is held while this operand runs.
                    operand_live.insert(slot);
                }
            }
            // Spills (not releases, which stay on the safe side) follow the evaluation order: an
            // operand evaluated earlier holds its result (a variable: its own slot, counted as
            // live) but no longer needs what it read.
            // The results held are loaded back after the last call of the construct's
            // operands, when it uses them: near for the calls of the last operand that calls,
            // and for no call before. Those of enclosing constructs likewise (`pending`).
            let (saved_pending, calls_before, mut marked) =
                (self.pending, self.calls_seen, Vec::new());
            for j in (0..n).filter(|&j| rank(j) < rank(i)) {
                if held[j] && !later_called {
                    self.pending += 1;
                }
                if let (Some(slot), false) = (own[j], later_called) {
                    self.near.insert(slot);
                }
                for &slot in &reads[j] {
                    // A read inside operand i after its call puts the slot back (see `walk`).
                    let needed_later = own[j] == Some(slot)
                        || after.contains(&slot)
                        || (0..n).any(|k| rank(k) > rank(i) && reads[k].contains(&slot));
                    if !needed_later && self.read_before.insert(slot) {
                        marked.push(slot);
                    }
                }
            }
            self.walk(operand, &mut operand_live);
            for slot in marked {
                self.read_before.remove(&slot);
            }
            if self.calls_seen == calls_before {
                self.pending = saved_pending;
            } else {
                later_called = true;
                self.pending = 0;
            }
            live.extend(operand_live);
        }
    }

    /// Every slot `code` reads, and the blocks read through aliases.
    fn reads(&self, code: &Code) -> Live {
        let mut slots = Live::new();
        visit_reads(code, false, &mut |slot, _| {
            slots.insert(slot);
            if let Some(block) = self.aliases.get(&slot) {
                slots.insert(*block);
            }
        });
        slots
    }
}
