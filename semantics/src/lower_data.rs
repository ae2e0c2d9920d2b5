//! Compiling data, `match`, `try` and `let rec` into closures (see [`crate::lower`]): building
//! tuples, lists, constructors and closures, raising, and choosing a `match` arm. Pattern
//! matching itself is [`Machine::matches`], which walks the pattern.

use crate::catalogue::Counter;
use crate::heap::{self, Born, CONS_WORDS};
use crate::ir::*;
use crate::lower::{ev, CondEv, Ev, Lower, Operand, RecGroupCode, FLOAT_BOX_WORDS};
use crate::machine::{Machine, Unwind, R};
use crate::value::*;
use std::rc::Rc;

mod list_match;

/// A compiled arm of a `match` or `try`.
struct ArmCode {
    pat: Pat,
    /// What `pat` tests at the top, worked out once (see [`select`]).
    shape: Shape,
    guard: Option<CondEv>,
    body: Ev,
}

struct TupleArmCode {
    pat: TupleArmPat,
    guard: Option<CondEv>,
    body: Ev,
}

/// Evaluates `items` right to left (OCaml's order) into a vector.
fn eval_all(m: &mut Machine<'_>, items: &[Operand]) -> R<Vec<Value>> {
    let mut values = vec![UNIT; items.len()];
    for (i, c) in items.iter().enumerate().rev() {
        values[i] = c.get(m)?;
    }
    Ok(values)
}

fn guard(m: &mut Machine<'_>, guard: &Option<CondEv>) -> R<bool> {
    match guard {
        None => Ok(true),
        Some(g) => g(m),
    }
}

/// Whether ocamlopt dispatches a `match` through a jump table: when its arms test at least
/// three different constructors (or constants) at the top and lead to at least four
/// places. A list or a two-constructor type is one or two tests, whatever the arms below;
/// `R -> … | G | B -> …` is one comparison (two places), and three places are a tree of two
/// comparisons (`Const _ | Var _ -> … | Neg a -> … | Add _ | Mul _ -> …`: `cmpq $2; jl; cmpq
/// $4; jl`, read off `ocamlopt -S`), whatever the number of constructors: ocamlopt's `Switch`
/// builds a table for at least three tests.
fn jumps_through_a_table(arms: &[Arm]) -> bool {
    fn heads(pat: &Pat, out: &mut std::collections::BTreeSet<(bool, i64)>) {
        match pat {
            Pat::Block(tag, _) => {
                out.insert((true, i64::from(*tag)));
            }
            Pat::Imm(v) => {
                out.insert((false, *v));
            }
            Pat::As(inner, _) => heads(inner, out),
            Pat::Or(pair) => {
                heads(&pair.0, out);
                heads(&pair.1, out);
            }
            _ => {}
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut places = 0;
    let mut default = false;
    for arm in arms {
        let before = seen.len();
        heads(&arm.pat, &mut seen);
        if seen.len() > before {
            places += 1;
        } else {
            default |= matches!(arm.pat, Pat::Any | Pat::Bind(_));
        }
    }
    seen.len() >= 3 && places + usize::from(default) >= 4
}

/// What a trap does with the unwinding that reached it: runs the first handler whose pattern
/// matches the exception, or raises it on. `saved_len` is the stack's height when the trap
/// was pushed.
fn handle(m: &mut Machine<'_>, saved_len: usize, handlers: &[ArmCode]) -> R<Value> {
    let (value, pos) = match m.take_unwind() {
        Unwind::Exn { value, pos } => (value, pos),
        // Not an exception (a limit of the interpreter): nothing catches it.
        fatal => return Err(m.throw(fatal)),
    };
    // Calls in the trapped code restored base and environment on their way out; only the
    // arguments of an interrupted call may be left on the stack.
    m.stack.truncate(saved_len);
    match select(m, handlers, false, &value)? {
        Some(i) => (handlers[i].body)(m),
        None => Err(m.throw(Unwind::Exn { value, pos })),
    }
}

/// The first arm of `arms` that matches `v` (binding its variables), counting each arm tried
/// but the last when `last_untested` (native code falls through to it).
///
/// Once an arm's constructor has matched and only its guard failed, native code knows the
/// constructor: ocamlopt's match compiler tests it once and tries the guards of the arms
/// below it in turn (`| Node (l, k, r) when x < k -> … | Node (l, k, r) when x > k -> …`).
/// A later arm with that constructor and fields that test nothing, or a wildcard, is reached
/// without a test, and one with another constructor is never tried.
fn select(
    m: &mut Machine<'_>,
    arms: &[ArmCode],
    last_untested: bool,
    v: &Value,
) -> R<Option<usize>> {
    let mut known: Option<Head> = None;
    for (i, arm) in arms.iter().enumerate() {
        let shape = arm.shape;
        let decided = match (known, shape) {
            // The value is a block: no constant can be it, and native code tests none.
            (Some(_), Shape::Any | Shape::Constant) => true,
            (Some(k), Shape::Head(h, fields_test)) => h != k || !fields_test,
            _ => false,
        };
        let falls_through = last_untested && i + 1 == arms.len();
        if !(decided || falls_through) {
            m.count(Counter::PatternMatch);
        }
        if m.matches(&arm.pat, v) {
            if guard(m, &arm.guard)? {
                return Ok(Some(i));
            }
            if let Shape::Head(h, _) = shape {
                known = Some(h);
            }
        }
    }
    Ok(None)
}

/// The first arm of a match dispatched through a jump table (see [`jumps_through_a_table`])
/// that matches `v`: one `TableJump` takes native code to the arms of `v`'s constructor, so
/// arms of other constructors are never tried, and among its own only those whose fields test
/// more (`Add (Num 0, e)`) or that are of no constructor shape cost a `PatternMatch`.
fn select_by_table(m: &mut Machine<'_>, arms: &[ArmCode], v: &Value) -> R<Option<usize>> {
    m.count(Counter::TableJump);
    let head = match v {
        Value::Block(b) => Some(Head::Block(b.tag)),
        Value::Mut(b) => Some(Head::Block(b.tag)),
        Value::Cons(_) => Some(Head::Cons),
        _ => None,
    };
    for (i, arm) in arms.iter().enumerate() {
        let tested = match arm.shape {
            Shape::Head(h, _) if Some(h) != head => continue,
            Shape::Head(_, fields_test) => fields_test,
            Shape::Heads(heads) if !heads.holds(head) => continue,
            Shape::Any | Shape::Constant | Shape::Heads(_) => false,
            Shape::Other => true,
        };
        if tested {
            m.count(Counter::PatternMatch);
        }
        if m.matches(&arm.pat, v) && guard(m, &arm.guard)? {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// The constructor a pattern tests at the top of a value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Head {
    Block(u32),
    Cons,
}

/// What a pattern tests: nothing, a constructor (and whether its fields test more), a
/// constant (a constant constructor, `[]`), an or-pattern of constructors and constants whose
/// fields test nothing (`Const _ | Var _`: the table sends both to the arm), or something this
/// rule leaves alone (other or-patterns, tuples, exceptions, floats and strings).
#[derive(Clone, Copy)]
enum Shape {
    Any,
    Head(Head, bool),
    Constant,
    Heads(HeadSet),
    Other,
}

/// The tops an or-pattern of bare constructors accepts: block tags below 64, the cons cell,
/// constants.
#[derive(Clone, Copy, Default)]
struct HeadSet {
    tags: u64,
    cons: bool,
    constants: bool,
}

impl HeadSet {
    /// Adds the alternatives of `pat`; `false` when one tests more than its top.
    fn add(&mut self, pat: &Pat) -> bool {
        match shape(pat) {
            Shape::Head(Head::Block(tag), false) if tag < 64 => self.tags |= 1 << tag,
            Shape::Head(Head::Cons, false) => self.cons = true,
            Shape::Constant => self.constants = true,
            Shape::Heads(other) => {
                self.tags |= other.tags;
                self.cons |= other.cons;
                self.constants |= other.constants;
            }
            _ => return false,
        }
        true
    }

    /// Whether a value whose top is `head` (`None`: an immediate) is among them.
    fn holds(&self, head: Option<Head>) -> bool {
        match head {
            Some(Head::Block(tag)) => tag < 64 && self.tags & (1 << tag) != 0,
            Some(Head::Cons) => self.cons,
            None => self.constants,
        }
    }
}

fn shape(pat: &Pat) -> Shape {
    fn tests(pat: &Pat) -> bool {
        match pat {
            Pat::Any | Pat::Bind(_) => false,
            Pat::As(inner, _) => tests(inner),
            _ => true,
        }
    }
    match pat {
        Pat::Any | Pat::Bind(_) => Shape::Any,
        Pat::As(inner, _) => shape(inner),
        Pat::Block(tag, fields) => Shape::Head(Head::Block(*tag), fields.iter().any(tests)),
        Pat::Cons(pair) => Shape::Head(Head::Cons, tests(&pair.0) || tests(&pair.1)),
        Pat::Imm(_) => Shape::Constant,
        Pat::Or(pair) => {
            let mut heads = HeadSet::default();
            if heads.add(&pair.0) && heads.add(&pair.1) {
                Shape::Heads(heads)
            } else {
                Shape::Other
            }
        }
        _ => Shape::Other,
    }
}

impl Lower {
    fn operands(&self, items: Box<[Code]>) -> Box<[Operand]> {
        items
            .into_vec()
            .into_iter()
            .map(|c| self.operand(c))
            .collect()
    }

    fn arms(&self, arms: Box<[Arm]>, tail: bool) -> Box<[ArmCode]> {
        arms.into_vec()
            .into_iter()
            .map(|a| ArmCode {
                shape: shape(&a.pat),
                pat: a.pat,
                guard: a.guard.map(|g| self.cond(g)),
                body: self.code(a.body, tail),
            })
            .collect()
    }

    /// Words of the block of a closure for functions `funs` capturing `captures` values, as
    /// ocamlopt 4.13 lays it out: a header; per function its code pointer and closure info,
    /// plus the full-application pointer when it takes several arguments, and an infix header
    /// before every function but the first; then the captured values.
    pub(crate) fn closure_words(&self, funs: impl Iterator<Item = FunId>, captures: usize) -> u32 {
        let code: u32 = funs
            .enumerate()
            .map(|(i, f)| heap::closure_code_words(self.arities[f as usize]) + u32::from(i > 0))
            .sum();
        1 + code + captures as u32
    }

    /// Operands stored in a block: the floats among them boxed for the block (counted
    /// `FloatBox`, their words added to the block's, whose lifetime they share).
    pub(crate) fn fields(&self, items: Box<[Code]>) -> (Box<[Operand]>, u32) {
        let mut boxed = 0;
        let operands = items
            .into_vec()
            .into_iter()
            .map(|item| match item {
                Code::BoxFloat(inner) => {
                    boxed += 1;
                    self.operand(*inner)
                }
                other => self.operand(other),
            })
            .collect();
        (operands, boxed)
    }

    /// A tuple (tag 0) or constructor block: `head` once, `elem` per field.
    fn block(&self, tag: u32, head: Counter, elem: Counter, items: Box<[Code]>) -> Ev {
        let (items, boxed) = self.fields(items);
        let words = 1 + items.len() as u32 + FLOAT_BOX_WORDS * boxed;
        ev(move |m| {
            // Counted once its fields are computed, where the native code allocates: the
            // instruction clock of a recursion's way down and way back must not see a block
            // built after the call returns (`crate::issue`).
            let fields = eval_all(m, &items)?;
            m.count(head);
            m.count_n(elem, items.len());
            m.count_n(Counter::FloatBox, boxed as usize);
            Ok(Value::Block(Rc::new(Block {
                tag,
                fields: fields.into(),
                born: Born::new(words),
            })))
        })
    }

    pub(crate) fn rec_group(&self, g: RecGroup) -> RecGroupCode {
        RecGroupCode {
            words: self.closure_words(g.funs.iter().map(|&(_, f)| f), g.captures.len()),
            funs: g.funs,
            captures: g
                .captures
                .into_vec()
                .into_iter()
                .map(|c| self.code(c, false))
                .collect(),
        }
    }

    /// Allocating expressions, and `raise`.
    pub(crate) fn construct(&self, code: Code) -> Ev {
        match code {
            Code::MakeClosure(mc) => {
                let MakeClosure { fun, captures } = *mc;
                let (captures, boxed) = self.fields(captures);
                let words = self.closure_words(std::iter::once(fun), captures.len());
                ev(move |m| {
                    m.count(Counter::FunDef);
                    m.count_n(Counter::Closure, captures.len());
                    m.count_n(Counter::FloatBox, boxed as usize);
                    // Closure blocks are not stamped: see `heap`.
                    heap::allocate_short_lived(words + FLOAT_BOX_WORDS * boxed);
                    let env = captures.iter().map(|c| c.get(m)).collect::<R<Vec<_>>>()?;
                    Ok(Value::fun(fun, Rc::new(env)))
                })
            }
            Code::Tuple(items) => self.block(0, Counter::TupleHead, Counter::TupleElem, items),
            Code::Cons(ht) => {
                let (h, t) = *ht;
                let head_is_call = matches!(h, Code::App(_));
                let (heads, boxed) = self.fields(Box::new([h]));
                let (h, t) = (heads.into_vec().remove(0), self.operand(t));
                let words = CONS_WORDS + FLOAT_BOX_WORDS * boxed;
                ev(move |m| {
                    // Counted once head and tail are computed (see `block`).
                    let tail = t.get(m)?;
                    let head = h.get(m)?;
                    m.count(Counter::Cons);
                    m.count_n(Counter::FloatBox, boxed as usize);
                    let born = if head_is_call && matches!(head, Value::Float(_)) {
                        Born::new_holding_box(words)
                    } else {
                        Born::new(words)
                    };
                    Ok(Value::Cons(Rc::new(ConsCell { head, tail, born })))
                })
            }
            Code::List(l) => {
                let (items, tail) = *l;
                let (items, tail) = (self.operands(items), self.operand(tail));
                ev(move |m| {
                    let mut acc = tail.get(m)?;
                    for item in items.iter().rev() {
                        m.count(Counter::Cons);
                        let head = item.get(m)?;
                        acc = Value::Cons(Rc::new(ConsCell {
                            head,
                            tail: acc,
                            born: Born::new(CONS_WORDS),
                        }));
                    }
                    Ok(acc)
                })
            }
            Code::Block(tag, args) => {
                self.block(tag, Counter::VariantHead, Counter::VariantElem, args)
            }
            Code::Exn(id, args) => {
                let (args, boxed) = self.fields(args);
                // The exception's block holds its constructor's identity, then the arguments.
                let words = 2 + args.len() as u32 + FLOAT_BOX_WORDS * boxed;
                ev(move |m| {
                    m.count(Counter::VariantHead);
                    m.count_n(Counter::VariantElem, args.len());
                    m.count_n(Counter::FloatBox, boxed as usize);
                    let args = eval_all(m, &args)?;
                    Ok(Value::Exn(Rc::new(ExnValue {
                        id,
                        args: args.into(),
                        born: Born::new(words),
                    })))
                })
            }
            Code::Raise(e, pos) => {
                let e = self.operand(*e);
                ev(move |m| {
                    m.count(Counter::Raise);
                    let value = e.get(m)?;
                    Err(m.throw(Unwind::Exn { value, pos }))
                })
            }
            other => unreachable!("every other node is compiled by `Lower::code`: {other:?}"),
        }
    }

    /// Tries the arms in order, then runs the body of the one that matched (the scrutinee is
    /// released first: the body may run long, and in tail position it ends in a tail call).
    pub(crate) fn match_(&self, mt: Match, tail: bool) -> Ev {
        let Match {
            scrutinee,
            arms,
            handlers,
            pos,
            last_untested,
            resolve,
        } = mt;
        let table = jumps_through_a_table(&arms);
        let arms = self.arms(arms, tail);
        let site = self.resolving_site(if table { resolve } else { 0 }, false);
        if !table && handlers.is_empty() {
            if let Some(list) = list_match::ListMatch::of(&arms, last_untested) {
                return list.lower(self.operand(scrutinee), arms, last_untested, pos);
            }
        }
        let run_arms = move |m: &mut Machine<'_>, v: Value| {
            let chosen = if table {
                select_by_table(m, &arms, &v)?
            } else {
                select(m, &arms, last_untested, &v)?
            };
            drop(v);
            match chosen {
                Some(i) => {
                    if table {
                        m.table_jump(site, i);
                    }
                    (arms[i].body)(m)
                }
                None => Err(m.match_failure(pos)),
            }
        };
        if handlers.is_empty() {
            let scrutinee = self.operand(scrutinee);
            return ev(move |m| {
                let v = scrutinee.get(m)?;
                run_arms(m, v)
            });
        }
        // The scrutinee is never in tail position: its trap stays installed while it runs.
        let (scrutinee, handlers) = (self.code(scrutinee, false), self.arms(handlers, tail));
        ev(move |m| {
            m.count(Counter::TryWith);
            let saved_len = m.stack.len();
            match scrutinee(m) {
                Ok(v) => run_arms(m, v),
                Err(_) => handle(m, saved_len, &handlers),
            }
        })
    }

    /// `match (e1, …, en) with …`, without building the tuple unless an arm needs it.
    pub(crate) fn match_tuple(&self, mt: MatchTuple, tail: bool) -> Ev {
        let MatchTuple {
            components,
            slots,
            arms,
            pos,
            last_untested,
        } = mt;
        let components = self.operands(components);
        let arms: Box<[TupleArmCode]> = arms
            .into_vec()
            .into_iter()
            .map(|a| TupleArmCode {
                pat: a.pat,
                guard: a.guard.map(|g| self.cond(g)),
                body: self.code(a.body, tail),
            })
            .collect();
        ev(move |m| {
            // ocamlopt binds a matched tuple's components left to right (a `let` each, read
            // off `-S`: `match (f a, f b)` calls `f a` first), unlike a tuple built as a value.
            for (&slot, component) in slots.iter().zip(components.iter()) {
                let v = component.get(m)?;
                m.set_local(slot, v);
            }
            for (i, arm) in arms.iter().enumerate() {
                if !(last_untested && i + 1 == arms.len()) {
                    m.count(Counter::PatternMatch);
                }
                let matched = match &arm.pat {
                    TupleArmPat::Components(alternatives) => alternatives.iter().any(|alt| {
                        alt.iter().zip(slots.iter()).all(|(p, &slot)| {
                            let v = m.local(slot);
                            m.matches(p, &v)
                        })
                    }),
                    TupleArmPat::Whole(p) => {
                        // The arm needs the tuple itself: native code builds it here.
                        m.count(Counter::TupleHead);
                        m.count_n(Counter::TupleElem, slots.len());
                        let fields: Box<[Value]> = slots.iter().map(|&s| m.local(s)).collect();
                        let born = Born::new(1 + fields.len() as u32);
                        let tuple = Value::Block(Rc::new(Block {
                            tag: 0,
                            fields,
                            born,
                        }));
                        m.matches(p, &tuple)
                    }
                };
                if matched && guard(m, &arm.guard)? {
                    return (arm.body)(m);
                }
            }
            Err(m.match_failure(pos))
        })
    }

    pub(crate) fn try_(&self, t: Try, tail: bool) -> Ev {
        // The body is never in tail position: the handler must stay installed while it runs.
        let (body, arms) = (self.code(t.body, false), self.arms(t.arms, tail));
        ev(move |m| {
            m.count(Counter::TryWith);
            let saved_len = m.stack.len();
            match body(m) {
                Ok(v) => Ok(v),
                Err(_) => handle(m, saved_len, &arms),
            }
        })
    }
}
