//! Free variables of expressions, computed on the syntax tree before compilation: the
//! compiler needs them to decide, before compiling a function's body, whether the function is
//! closed (a static closure in native code) or captures variables (a heap-allocated closure).

use crate::ast::*;
use crate::scoped_walk::{look_expr, Binder};
use std::collections::BTreeSet;

/// The variables a function `fun params -> body` refers to without binding them.
pub(crate) fn of_function(params: &[Pattern], body: &Expr) -> BTreeSet<String> {
    let mut names = Vec::new();
    for p in params {
        pattern_vars(p, &mut names);
    }
    let mut scope: Vec<Binder> = names.into_iter().map(Binder::plain).collect();
    let mut out = BTreeSet::new();
    look_expr(body, &mut scope, &mut |e, scope| {
        if let ExprKind::Var(n) = &e.kind {
            if !scope.iter().any(|b| b.name == *n) {
                out.insert(n.clone());
            }
        }
    });
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
