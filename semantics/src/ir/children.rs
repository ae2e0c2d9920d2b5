//! Visiting an IR node's direct sub-expressions, for the passes that read the tree.

use super::*;

impl Code {
    /// Calls `f` on each direct sub-expression, saying whether it runs as a closure's capture
    /// (loaded when the closure is built, read by another function).
    pub(crate) fn for_each_child<'a>(&'a self, f: &mut dyn FnMut(&'a Code, bool)) {
        let mut all = |codes: &mut dyn Iterator<Item = &'a Code>, captured: bool| {
            for c in codes {
                f(c, captured);
            }
        };
        let arms = |arms: &'a [Arm]| arms.iter().flat_map(|a| a.guard.iter().chain([&a.body]));
        match self {
            Code::Imm(_)
            | Code::Static(_)
            | Code::Local(_)
            | Code::TakeLocal(_)
            | Code::Env(_)
            | Code::Global(_)
            | Code::Sibling(_)
            | Code::ClosedFun(_) => {}
            Code::Let(l) => all(&mut [&l.value, &l.body].into_iter(), false),
            Code::LetRec(group) => {
                all(&mut group.0.captures.iter(), true);
                all(&mut std::iter::once(&group.1), false);
            }
            Code::Seq(pair) | Code::And(pair) | Code::Or(pair) | Code::Cons(pair) => {
                all(&mut [&pair.0, &pair.1].into_iter(), false)
            }
            Code::If(b) => all(&mut [&b.0, &b.1, &b.2].into_iter(), false),
            Code::App(app) => all(
                &mut app.args.iter().chain(std::iter::once(&app.func)),
                false,
            ),
            Code::Op1(_, operand) | Code::Raise(operand, _) | Code::BoxFloat(operand) => {
                all(&mut std::iter::once(&**operand), false)
            }
            Code::Release(release) => all(&mut std::iter::once(&release.1), false),
            Code::Op2(node) => all(&mut [&node.lhs, &node.rhs].into_iter(), false),
            Code::MakeClosure(closure) => all(&mut closure.captures.iter(), true),
            Code::Tuple(items) | Code::Block(_, items) | Code::Exn(_, items) => {
                all(&mut items.iter(), false)
            }
            Code::List(list) => all(&mut list.0.iter().chain(std::iter::once(&list.1)), false),
            Code::Match(m) => all(
                &mut std::iter::once(&m.scrutinee)
                    .chain(arms(&m.arms))
                    .chain(arms(&m.handlers)),
                false,
            ),
            Code::MatchTuple(m) => all(
                &mut m
                    .components
                    .iter()
                    .chain(m.arms.iter().flat_map(|a| a.guard.iter().chain([&a.body]))),
                false,
            ),
            Code::Try(t) => all(&mut std::iter::once(&t.body).chain(arms(&t.arms)), false),
            Code::Imp(node) => all(&mut node.args.iter(), false),
            Code::Assign(_, value) => all(&mut std::iter::once(&**value), false),
            Code::For(f) => all(&mut [&f.from, &f.until, &f.body].into_iter(), false),
            Code::While(w) => all(&mut [&w.0, &w.1].into_iter(), false),
            Code::Combined(_, inner) => all(&mut std::iter::once(&**inner), false),
        }
    }

    /// Calls `f` on each direct sub-expression, mutably, captures included.
    pub(crate) fn for_each_child_mut(&mut self, f: &mut dyn FnMut(&mut Code)) {
        match self {
            Code::Let(l) => {
                f(&mut l.value);
                f(&mut l.body);
            }
            Code::LetRec(group) => {
                group.0.captures.iter_mut().for_each(&mut *f);
                f(&mut group.1);
            }
            Code::Seq(pair) | Code::And(pair) | Code::Or(pair) | Code::Cons(pair) => {
                f(&mut pair.0);
                f(&mut pair.1);
            }
            Code::If(b) => {
                f(&mut b.0);
                f(&mut b.1);
                f(&mut b.2);
            }
            Code::App(app) => {
                app.args.iter_mut().for_each(&mut *f);
                f(&mut app.func);
            }
            Code::Op1(_, operand) | Code::Raise(operand, _) | Code::BoxFloat(operand) => f(operand),
            Code::Op2(node) => {
                f(&mut node.lhs);
                f(&mut node.rhs);
            }
            Code::MakeClosure(closure) => closure.captures.iter_mut().for_each(f),
            Code::Tuple(items) | Code::Block(_, items) | Code::Exn(_, items) => {
                items.iter_mut().for_each(f)
            }
            Code::List(list) => {
                list.0.iter_mut().for_each(&mut *f);
                f(&mut list.1);
            }
            Code::Match(m) => {
                f(&mut m.scrutinee);
                for arm in m.arms.iter_mut().chain(m.handlers.iter_mut()) {
                    arm.guard.iter_mut().for_each(&mut *f);
                    f(&mut arm.body);
                }
            }
            Code::MatchTuple(m) => {
                m.components.iter_mut().for_each(&mut *f);
                for arm in m.arms.iter_mut() {
                    arm.guard.iter_mut().for_each(&mut *f);
                    f(&mut arm.body);
                }
            }
            Code::Try(t) => {
                f(&mut t.body);
                for arm in t.arms.iter_mut() {
                    arm.guard.iter_mut().for_each(&mut *f);
                    f(&mut arm.body);
                }
            }
            Code::Imp(node) => node.args.iter_mut().for_each(f),
            Code::Assign(_, value) => f(value),
            Code::For(l) => {
                f(&mut l.from);
                f(&mut l.until);
                f(&mut l.body);
            }
            Code::While(w) => {
                f(&mut w.0);
                f(&mut w.1);
            }
            Code::Release(release) => f(&mut release.1),
            Code::Combined(_, inner) => f(inner),
            Code::Imm(_)
            | Code::Static(_)
            | Code::Local(_)
            | Code::TakeLocal(_)
            | Code::Env(_)
            | Code::Global(_)
            | Code::Sibling(_)
            | Code::ClosedFun(_) => {}
        }
    }
}
