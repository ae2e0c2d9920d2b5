//! A walk over the syntax tree that knows, at every node, which names the code around it binds
//! (innermost last), for the passes that rewrite names as OCaml's scoping resolves them: an
//! `open` qualifies a name nothing inside its scope binds again ([`crate::open_module`]), a
//! labelled application is put in the order of the function its name is bound to
//! ([`crate::labels`]).

use crate::ast::{Arm, Binding, Expr, ExprKind, Item, NodeId, PatKind};
use crate::fv::pattern_vars;

/// A name bound around a node, and the `fun` it is bound to when a `let` binds it to one.
#[derive(Debug, Clone)]
pub(crate) struct Binder {
    pub name: String,
    pub fun: Option<NodeId>,
}

/// What a pass does at each node (before its children), given the binders around it.
pub(crate) type Visit<'v> = dyn FnMut(&mut Expr, &[Binder]) + 'v;

/// Walks each item in turn, with the top-level names of the items before it in scope.
pub(crate) fn walk_items(items: &mut [Item], visit: &mut Visit) {
    let mut scope = Vec::new();
    for item in items {
        match item {
            Item::Let { rec_, bindings } => let_bindings(*rec_, bindings, &mut scope, visit),
            Item::Expr(e) => walk_expr(e, &mut scope, visit),
            Item::Type(_) | Item::Exception(_) => {}
        }
    }
}

/// Walks `e` and every expression in it, `scope` holding the binders around `e`.
pub(crate) fn walk_expr(e: &mut Expr, scope: &mut Vec<Binder>, visit: &mut Visit) {
    visit(e, scope);
    match &mut e.kind {
        ExprKind::Var(_)
        | ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Char(_)
        | ExprKind::Bool(_)
        | ExprKind::Unit
        | ExprKind::Constr(_, None) => {}
        ExprKind::Constr(_, Some(a))
        | ExprKind::UnOp(_, a)
        | ExprKind::Annot(a, _)
        | ExprKind::Field(a, _) => walk_expr(a, scope, visit),
        ExprKind::Tuple(items) | ExprKind::List(items) | ExprKind::Array(items) => {
            items.iter_mut().for_each(|i| walk_expr(i, scope, visit))
        }
        ExprKind::Cons(a, b)
        | ExprKind::BinOp(_, a, b)
        | ExprKind::Seq(a, b)
        | ExprKind::SetField(a, _, b)
        | ExprKind::ArrayGet(a, b)
        | ExprKind::While(a, b) => {
            walk_expr(a, scope, visit);
            walk_expr(b, scope, visit);
        }
        ExprKind::ArraySet(a, b, c) => {
            walk_expr(a, scope, visit);
            walk_expr(b, scope, visit);
            walk_expr(c, scope, visit);
        }
        ExprKind::App { func, args, .. } => {
            walk_expr(func, scope, visit);
            args.iter_mut().for_each(|a| walk_expr(a, scope, visit));
        }
        ExprKind::If(c, t, el) => {
            walk_expr(c, scope, visit);
            walk_expr(t, scope, visit);
            if let Some(el) = el {
                walk_expr(el, scope, visit);
            }
        }
        ExprKind::Let {
            rec_,
            bindings,
            body,
        } => {
            let mark = scope.len();
            let_bindings(*rec_, bindings, scope, visit);
            walk_expr(body, scope, visit);
            scope.truncate(mark);
        }
        ExprKind::Fun { params, body } => {
            let mark = scope.len();
            let mut names = Vec::new();
            params.iter().for_each(|p| pattern_vars(p, &mut names));
            scope.extend(names.into_iter().map(plain));
            walk_expr(body, scope, visit);
            scope.truncate(mark);
        }
        ExprKind::Function(a) => arms(a, scope, visit),
        ExprKind::Match(s, a) | ExprKind::Try(s, a) => {
            walk_expr(s, scope, visit);
            arms(a, scope, visit);
        }
        ExprKind::MatchExn(s, a, h) => {
            walk_expr(s, scope, visit);
            arms(a, scope, visit);
            arms(h, scope, visit);
        }
        ExprKind::Record(fields, base) => {
            fields
                .iter_mut()
                .for_each(|(_, e)| walk_expr(e, scope, visit));
            if let Some(b) = base {
                walk_expr(b, scope, visit);
            }
        }
        ExprKind::For {
            var,
            from,
            until,
            body,
            ..
        } => {
            walk_expr(from, scope, visit);
            walk_expr(until, scope, visit);
            scope.push(plain(var.clone()));
            walk_expr(body, scope, visit);
            scope.pop();
        }
    }
}

fn plain(name: String) -> Binder {
    Binder { name, fun: None }
}

/// The binders of `let [rec] bindings`, left in `scope` for what follows them: a `let rec`'s
/// names are in scope in its own right-hand sides, a `let`'s only after them.
fn let_bindings(rec_: bool, bindings: &mut [Binding], scope: &mut Vec<Binder>, visit: &mut Visit) {
    let mut binders = Vec::new();
    for b in bindings.iter() {
        match (&b.pat.kind, &b.expr.kind) {
            (PatKind::Var(name), ExprKind::Fun { .. }) => binders.push(Binder {
                name: name.clone(),
                fun: Some(b.expr.id),
            }),
            _ => {
                let mut names = Vec::new();
                pattern_vars(&b.pat, &mut names);
                binders.extend(names.into_iter().map(plain));
            }
        }
    }
    if rec_ {
        scope.extend(binders);
        bindings
            .iter_mut()
            .for_each(|b| walk_expr(&mut b.expr, scope, visit));
    } else {
        bindings
            .iter_mut()
            .for_each(|b| walk_expr(&mut b.expr, scope, visit));
        scope.extend(binders);
    }
}

fn arms(arms: &mut [Arm], scope: &mut Vec<Binder>, visit: &mut Visit) {
    for arm in arms {
        let mark = scope.len();
        let mut names = Vec::new();
        pattern_vars(&arm.pat, &mut names);
        scope.extend(names.into_iter().map(plain));
        if let Some(g) = &mut arm.guard {
            walk_expr(g, scope, visit);
        }
        walk_expr(&mut arm.body, scope, visit);
        scope.truncate(mark);
    }
}
