//! Free variables of expressions, computed on the syntax tree before compilation: the
//! compiler needs them to decide, before compiling a function's body, whether the function is
//! closed (a static closure in native code) or captures variables (a heap-allocated closure).

use crate::ast::*;
use std::collections::BTreeSet;

/// The variables a function `fun params -> body` refers to without binding them.
pub(crate) fn of_function(params: &[Pattern], body: &Expr) -> BTreeSet<String> {
    let mut bound = Vec::new();
    for p in params {
        pattern_vars(p, &mut bound);
    }
    let mut out = BTreeSet::new();
    expr(body, &mut bound, &mut out);
    out
}

/// The names bound by a pattern, in order.
pub(crate) fn pattern_vars(p: &Pattern, out: &mut Vec<String>) {
    match &p.kind {
        PatKind::Var(n) => out.push(n.clone()),
        PatKind::As(inner, n) => {
            pattern_vars(inner, out);
            out.push(n.clone());
        }
        PatKind::Cons(a, b) => {
            pattern_vars(a, out);
            pattern_vars(b, out);
        }
        PatKind::Or(a, _) => pattern_vars(a, out),
        PatKind::List(items) | PatKind::Tuple(items) => {
            items.iter().for_each(|i| pattern_vars(i, out))
        }
        PatKind::Constr(_, Some(arg)) | PatKind::Annot(arg, _) => pattern_vars(arg, out),
        PatKind::Record(fields) => fields.iter().for_each(|(_, p)| pattern_vars(p, out)),
        PatKind::Constr(_, None)
        | PatKind::Any
        | PatKind::Int(_)
        | PatKind::Float(_)
        | PatKind::Str(_)
        | PatKind::Char(_)
        | PatKind::Bool(_)
        | PatKind::Unit
        | PatKind::Nil => {}
    }
}

fn with_bound(bound: &mut Vec<String>, names: Vec<String>, f: impl FnOnce(&mut Vec<String>)) {
    let mark = bound.len();
    bound.extend(names);
    f(bound);
    bound.truncate(mark);
}

fn arms(arms: &[Arm], bound: &mut Vec<String>, out: &mut BTreeSet<String>) {
    for arm in arms {
        let mut names = Vec::new();
        pattern_vars(&arm.pat, &mut names);
        with_bound(bound, names, |bound| {
            if let Some(g) = &arm.guard {
                expr(g, bound, out);
            }
            expr(&arm.body, bound, out);
        });
    }
}

fn expr(e: &Expr, bound: &mut Vec<String>, out: &mut BTreeSet<String>) {
    match &e.kind {
        ExprKind::Var(n) => {
            if !bound.contains(n) {
                out.insert(n.clone());
            }
        }
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Char(_)
        | ExprKind::Bool(_)
        | ExprKind::Unit
        | ExprKind::Constr(_, None) => {}
        ExprKind::Constr(_, Some(a)) | ExprKind::UnOp(_, a) | ExprKind::Annot(a, _) => {
            expr(a, bound, out)
        }
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            items.iter().for_each(|i| expr(i, bound, out))
        }
        ExprKind::Cons(a, b) | ExprKind::BinOp(_, a, b) | ExprKind::Seq(a, b) => {
            expr(a, bound, out);
            expr(b, bound, out);
        }
        ExprKind::App { func, args, .. } => {
            expr(func, bound, out);
            args.iter().for_each(|a| expr(a, bound, out));
        }
        ExprKind::If(c, t, el) => {
            expr(c, bound, out);
            expr(t, bound, out);
            if let Some(el) = el {
                expr(el, bound, out);
            }
        }
        ExprKind::Let {
            rec_,
            bindings,
            body,
        } => {
            let mut names = Vec::new();
            for b in bindings {
                pattern_vars(&b.pat, &mut names);
            }
            if *rec_ {
                with_bound(bound, names, |bound| {
                    bindings.iter().for_each(|b| expr(&b.expr, bound, out));
                    expr(body, bound, out);
                });
            } else {
                bindings.iter().for_each(|b| expr(&b.expr, bound, out));
                with_bound(bound, names, |bound| expr(body, bound, out));
            }
        }
        ExprKind::Fun { params, body } => {
            let mut names = Vec::new();
            params.iter().for_each(|p| pattern_vars(p, &mut names));
            with_bound(bound, names, |bound| expr(body, bound, out));
        }
        ExprKind::Function(a) => arms(a, bound, out),
        ExprKind::Match(s, a) | ExprKind::Try(s, a) => {
            expr(s, bound, out);
            arms(a, bound, out);
        }
        ExprKind::MatchExn(s, a, h) => {
            expr(s, bound, out);
            arms(a, bound, out);
            arms(h, bound, out);
        }
        ExprKind::Record(fields, base) => {
            fields.iter().for_each(|(_, e)| expr(e, bound, out));
            if let Some(b) = base {
                expr(b, bound, out);
            }
        }
        ExprKind::Field(a, _) => expr(a, bound, out),
        ExprKind::SetField(a, _, b) | ExprKind::ArrayGet(a, b) | ExprKind::While(a, b) => {
            expr(a, bound, out);
            expr(b, bound, out);
        }
        ExprKind::ArraySet(a, b, c) => {
            expr(a, bound, out);
            expr(b, bound, out);
            expr(c, bound, out);
        }
        ExprKind::Array(items) => items.iter().for_each(|i| expr(i, bound, out)),
        ExprKind::For {
            var,
            from,
            until,
            body,
            ..
        } => {
            expr(from, bound, out);
            expr(until, bound, out);
            with_bound(bound, vec![var.clone()], |bound| expr(body, bound, out));
        }
    }
}
