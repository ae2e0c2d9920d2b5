//! The tail-position pass (the paper's "tagging" transformation, §3): marks every application
//! that `ocamlopt` compiles as a jump rather than a call.
//!
//! An expression is in tail position when its value is the function's result with nothing
//! left to do: the body of a function; both branches of an `if`; the body of a `let`; the
//! arms (not the guards) of a `match` or `function`; the second operand of `;`, `&&` and `||`
//! (OCaml compiles `a && f x` as `if a then f x else false`); the handlers of a `try` — but
//! not its body, which runs under an exception handler that must be popped afterwards.
//! Top-level expressions are not in any function, so their applications are ordinary calls.

use crate::ast::*;

/// Marks the applications of a whole program.
pub(crate) fn mark_items(items: &mut [Item]) {
    for item in items {
        match item {
            Item::Let { bindings, .. } => {
                for b in bindings {
                    mark(&mut b.expr, false);
                }
            }
            Item::Expr(e) => mark(e, false),
            Item::Type(_) | Item::Exception(_) => {}
        }
    }
}

/// Marks `e`, which is in tail position iff `tail`.
pub(crate) fn mark(e: &mut Expr, tail: bool) {
    match &mut e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Char(_)
        | ExprKind::Bool(_)
        | ExprKind::Unit
        | ExprKind::Var(_) => {}
        ExprKind::Constr(_, arg) => {
            if let Some(a) = arg {
                mark(a, false);
            }
        }
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            items.iter_mut().for_each(|i| mark(i, false))
        }
        ExprKind::Cons(a, b) => {
            mark(a, false);
            mark(b, false);
        }
        ExprKind::App {
            func,
            args,
            tail: t,
        } => {
            // An identity external is no code: under `%identity` (`Char.code`, `Char.unsafe_chr`,
            // `int_of_char`) the argument is where the value is computed, a jump in tail
            // position. `%bytes_to_string` and `%bytes_of_string` are no code either, but
            // ocamlopt 4.13 keeps the call under them a call (`Bytes.unsafe_to_string
            // (Bytes.make n c)` is `call …Bytes__make; ret`, read off `-S -inline 0`), as
            // string.ml's `B.init n f |> bts` is.
            let identity = matches!(&func.kind, ExprKind::Var(f)
                if crate::prims::lookup(f).is_some_and(|p| p.prim == crate::prims::Prim::Identity));
            if identity && args.len() == 1 {
                let conversion = matches!(&func.kind, ExprKind::Var(f)
                    if f == "Bytes.unsafe_to_string" || f == "Bytes.unsafe_of_string");
                *t = false;
                mark(&mut args[0], tail && !conversion);
                return;
            }
            let never_tail = matches!(&func.kind, ExprKind::Var(f)
                if crate::prelude::NEVER_TAIL.contains(&f.as_str()));
            *t = tail && !never_tail;
            mark(func, false);
            args.iter_mut().for_each(|a| mark(a, false));
        }
        ExprKind::BinOp(op, a, b) => {
            mark(a, false);
            mark(b, tail && matches!(op, BinOp::And | BinOp::Or));
        }
        ExprKind::UnOp(_, a) => mark(a, false),
        ExprKind::If(c, t, e) => {
            mark(c, false);
            mark(t, tail);
            if let Some(e) = e {
                mark(e, tail);
            }
        }
        ExprKind::Seq(a, b) => {
            mark(a, false);
            mark(b, tail);
        }
        ExprKind::Let { bindings, body, .. } => {
            bindings.iter_mut().for_each(|b| mark(&mut b.expr, false));
            mark(body, tail);
        }
        ExprKind::Fun { body, .. } => mark(body, true),
        ExprKind::Function(arms) => mark_arms(arms, true),
        ExprKind::Match(s, arms) => {
            mark(s, false);
            mark_arms(arms, tail);
        }
        ExprKind::Try(body, arms) => {
            mark(body, false);
            mark_arms(arms, tail);
        }
        // The trap is popped before either kind of case runs: both are in tail position.
        ExprKind::MatchExn(s, arms, handlers) => {
            mark(s, false);
            mark_arms(arms, tail);
            mark_arms(handlers, tail);
        }
        ExprKind::Annot(inner, _) => mark(inner, tail),
        ExprKind::Record(fields, base) => {
            fields.iter_mut().for_each(|(_, e)| mark(e, false));
            if let Some(b) = base {
                mark(b, false);
            }
        }
        ExprKind::Field(a, _) => mark(a, false),
        ExprKind::SetField(a, _, b) | ExprKind::ArrayGet(a, b) | ExprKind::While(a, b) => {
            mark(a, false);
            mark(b, false);
        }
        ExprKind::ArraySet(a, b, c) => {
            mark(a, false);
            mark(b, false);
            mark(c, false);
        }
        ExprKind::Array(items) => items.iter_mut().for_each(|i| mark(i, false)),
        ExprKind::For {
            from, until, body, ..
        } => {
            mark(from, false);
            mark(until, false);
            mark(body, false);
        }
    }
}

fn mark_arms(arms: &mut [Arm], tail: bool) {
    for arm in arms {
        if let Some(g) = &mut arm.guard {
            mark(g, false);
        }
        mark(&mut arm.body, tail);
    }
}
