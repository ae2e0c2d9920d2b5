//! The fast path of [`Lower::match_`] for the commonest `match` of all, a list's two arms
//! (`[] -> … | a :: l -> …`, either order, no guard, no `exception` case, cons fields
//! variables or wildcards).
//!
//! The general path, [`super::select`], walks the arms and calls [`Machine::matches`] on
//! each pattern: several hundred instructions for a test native code does in two. Here the
//! shape is recognised once, at lowering, and a run only looks at the value's variant.
//!
//! Why it is equivalent: for these arms `select` starts with no known head, so it counts a
//! `PatternMatch` for the first arm, and for the second arm only when `last_untested` is
//! false; `matches` on `Imm(0)` is a comparison with `Int(0)`, and on `Cons(p, q)` with
//! `p`, `q` variables or wildcards it touches the cell (unless both are wildcards) and binds
//! head then tail. That is what [`ListMatch::run`] does, in the same order, before dropping
//! the scrutinee and running the arm. Any other value (a match failure) goes to `select`.

use super::{select, ArmCode};
use crate::ast::Pos;
use crate::catalogue::Counter;
use crate::heap::CONS_WORDS;
use crate::ir::{Pat, Slot};
use crate::lower::{ev, Ev, Operand};
use crate::machine::Machine;
use crate::value::Value;

/// A cons pattern's field: bound to a slot, or ignored.
fn field(p: &Pat) -> Option<Option<Slot>> {
    match p {
        Pat::Any => Some(None),
        Pat::Bind(s) => Some(Some(*s)),
        _ => None,
    }
}

/// A two-arm list match, recognised by [`ListMatch::of`].
pub(super) struct ListMatch {
    /// Whether `[]` is the first arm (and `::` the second), or the reverse.
    nil_first: bool,
    head: Option<Slot>,
    tail: Option<Slot>,
    /// Whether the second arm costs a `PatternMatch` (native code does not fall through).
    second_counted: bool,
}

impl ListMatch {
    /// The list match `arms` are, if they are one (see the module's doc).
    pub(super) fn of(arms: &[ArmCode], last_untested: bool) -> Option<ListMatch> {
        let [a, b] = arms else { return None };
        if a.guard.is_some() || b.guard.is_some() {
            return None;
        }
        let (nil_first, cons) = match (&a.pat, &b.pat) {
            (Pat::Imm(0), Pat::Cons(c)) => (true, c),
            (Pat::Cons(c), Pat::Imm(0)) => (false, c),
            _ => return None,
        };
        Some(ListMatch {
            nil_first,
            head: field(&cons.0)?,
            tail: field(&cons.1)?,
            second_counted: !last_untested,
        })
    }

    /// Chooses the arm for `v` (binding the cons arm's variables) as [`select`] would.
    #[inline(always)]
    fn choose(&self, m: &mut Machine<'_>, v: &Value) -> Option<usize> {
        match v {
            Value::Int(0) => {
                m.count(Counter::PatternMatch);
                if !self.nil_first && self.second_counted {
                    m.count(Counter::PatternMatch);
                }
                Some(usize::from(!self.nil_first))
            }
            Value::Cons(c) => {
                m.count(Counter::PatternMatch);
                if self.nil_first && self.second_counted {
                    m.count(Counter::PatternMatch);
                }
                if self.head.is_some() || self.tail.is_some() {
                    c.born.touch(CONS_WORDS);
                }
                if let Some(s) = self.head {
                    m.set_local(s, c.head.clone());
                }
                if let Some(s) = self.tail {
                    m.set_local(s, c.tail.clone());
                }
                Some(usize::from(self.nil_first))
            }
            _ => None,
        }
    }

    /// The match's code: `scrutinee`, then the chosen arm.
    pub(super) fn lower(
        self,
        scrutinee: Operand,
        arms: Box<[ArmCode]>,
        last_untested: bool,
        pos: Pos,
    ) -> Ev {
        ev(move |m| {
            let v = scrutinee.get(m)?;
            let chosen = match self.choose(m, &v) {
                Some(i) => Some(i),
                // Neither `[]` nor a cons (no typed list): `select` counts and fails it.
                None => select(m, &arms, last_untested, &v)?,
            };
            drop(v);
            match chosen {
                Some(i) => (arms[i].body)(m),
                None => Err(m.match_failure(pos)),
            }
        })
    }
}
