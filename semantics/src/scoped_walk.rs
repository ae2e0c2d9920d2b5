//! A walk over the syntax tree that knows, at every node, which names the code around it binds
//! (innermost last): the one traversal every pass that resolves names as OCaml scopes them
//! goes through. Passes that rewrite names use [`walk_expr`]/[`walk_items`]: an `open`
//! qualifies a name nothing inside its scope binds again ([`crate::open_module`], and a
//! program's own modules, [`crate::user_module`]), a labelled application is put in the order
//! of the function its name is bound to ([`crate::labels`]). Passes that only read use
//! [`look_expr`]: the free variables of a function ([`crate::fv`]).

use crate::ast::{Arm, Binding, Expr, ExprKind, Item, NodeId, PatKind};
use crate::fv::pattern_vars;

/// A name bound around a node, and the `fun` it is bound to when a `let` binds it to one.
#[derive(Debug, Clone)]
pub(crate) struct Binder {
    pub name: String,
    pub fun: Option<NodeId>,
}

impl Binder {
    /// A name bound to no known `fun` (a parameter, a pattern's variable, a loop index).
    pub(crate) fn plain(name: String) -> Binder {
        Binder { name, fun: None }
    }
}

/// What a rewriting pass does at each node (before its children), given the binders around it.
pub(crate) type Visit<'v> = dyn FnMut(&mut Expr, &[Binder]) + 'v;

/// What a reading pass does at each node (before its children), given the binders around it.
pub(crate) type Look<'v> = dyn FnMut(&Expr, &[Binder]) + 'v;

/// The walk, written once over `&mut` (`mut` given) and over `&` (nothing given).
macro_rules! binder_walk {
    ($visit:ident, $items:ident, $expr:ident, $lets:ident, $arms:ident, $($mut_:tt)?) => {
        /// Walks each item in turn, with the top-level names of the items before it in scope.
        pub(crate) fn $items(items: &$($mut_)? [Item], visit: &mut $visit) {
            let mut scope = Vec::new();
            for item in items {
                match item {
                    Item::Let { rec_, bindings } => $lets(*rec_, bindings, &mut scope, visit),
                    Item::Expr(e) => $expr(e, &mut scope, visit),
                    Item::Type(_) | Item::Exception(_) => {}
                }
            }
        }

        /// Walks `e` and every expression in it, `scope` holding the binders around `e`.
        pub(crate) fn $expr(e: &$($mut_)? Expr, scope: &mut Vec<Binder>, visit: &mut $visit) {
            visit(e, scope);
            match &$($mut_)? e.kind {
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
                | ExprKind::Field(a, _) => $expr(a, scope, visit),
                ExprKind::Tuple(items) | ExprKind::List(items) | ExprKind::Array(items) => {
                    for i in items {
                        $expr(i, scope, visit);
                    }
                }
                ExprKind::Cons(a, b)
                | ExprKind::BinOp(_, a, b)
                | ExprKind::Seq(a, b)
                | ExprKind::SetField(a, _, b)
                | ExprKind::ArrayGet(a, b)
                | ExprKind::While(a, b) => {
                    $expr(a, scope, visit);
                    $expr(b, scope, visit);
                }
                ExprKind::ArraySet(a, b, c) => {
                    $expr(a, scope, visit);
                    $expr(b, scope, visit);
                    $expr(c, scope, visit);
                }
                ExprKind::App { func, args, .. } => {
                    $expr(func, scope, visit);
                    for a in args {
                        $expr(a, scope, visit);
                    }
                }
                ExprKind::If(c, t, el) => {
                    $expr(c, scope, visit);
                    $expr(t, scope, visit);
                    if let Some(el) = el {
                        $expr(el, scope, visit);
                    }
                }
                ExprKind::Let {
                    rec_,
                    bindings,
                    body,
                } => {
                    let mark = scope.len();
                    $lets(*rec_, bindings, scope, visit);
                    $expr(body, scope, visit);
                    scope.truncate(mark);
                }
                ExprKind::Fun { params, body } => {
                    let mark = scope.len();
                    let mut names = Vec::new();
                    params.iter().for_each(|p| pattern_vars(p, &mut names));
                    scope.extend(names.into_iter().map(Binder::plain));
                    $expr(body, scope, visit);
                    scope.truncate(mark);
                }
                ExprKind::Function(a) => $arms(a, scope, visit),
                ExprKind::Match(s, a) | ExprKind::Try(s, a) => {
                    $expr(s, scope, visit);
                    $arms(a, scope, visit);
                }
                ExprKind::MatchExn(s, a, h) => {
                    $expr(s, scope, visit);
                    $arms(a, scope, visit);
                    $arms(h, scope, visit);
                }
                ExprKind::Record(fields, base) => {
                    for (_, e) in fields {
                        $expr(e, scope, visit);
                    }
                    if let Some(b) = base {
                        $expr(b, scope, visit);
                    }
                }
                ExprKind::For {
                    var,
                    from,
                    until,
                    body,
                    ..
                } => {
                    $expr(from, scope, visit);
                    $expr(until, scope, visit);
                    scope.push(Binder::plain(var.clone()));
                    $expr(body, scope, visit);
                    scope.pop();
                }
            }
        }

        /// The binders of `let [rec] bindings`, left in `scope` for what follows them: a `let
        /// rec`'s names are in scope in its own right-hand sides, a `let`'s only after them.
        fn $lets(
            rec_: bool,
            bindings: &$($mut_)? [Binding],
            scope: &mut Vec<Binder>,
            visit: &mut $visit,
        ) {
            let binders = binders_of(bindings);
            if rec_ {
                scope.extend(binders);
                for b in bindings {
                    $expr(&$($mut_)? b.expr, scope, visit);
                }
            } else {
                for b in bindings {
                    $expr(&$($mut_)? b.expr, scope, visit);
                }
                scope.extend(binders);
            }
        }

        fn $arms(arms: &$($mut_)? [Arm], scope: &mut Vec<Binder>, visit: &mut $visit) {
            for arm in arms {
                let mark = scope.len();
                let mut names = Vec::new();
                pattern_vars(&arm.pat, &mut names);
                scope.extend(names.into_iter().map(Binder::plain));
                if let Some(g) = &$($mut_)? arm.guard {
                    $expr(g, scope, visit);
                }
                $expr(&$($mut_)? arm.body, scope, visit);
                scope.truncate(mark);
            }
        }
    };
}

binder_walk!(Visit, walk_items, walk_expr, let_bindings, arms, mut);
binder_walk!(Look, look_items, look_expr, look_let_bindings, look_arms,);

/// The names `let [rec] bindings` bind, each with the `fun` it is bound to.
fn binders_of(bindings: &[Binding]) -> Vec<Binder> {
    let mut binders = Vec::new();
    for b in bindings {
        match (&b.pat.kind, &b.expr.kind) {
            (PatKind::Var(name), ExprKind::Fun { .. }) => binders.push(Binder {
                name: name.clone(),
                fun: Some(b.expr.id),
            }),
            _ => {
                let mut names = Vec::new();
                pattern_vars(&b.pat, &mut names);
                binders.extend(names.into_iter().map(Binder::plain));
            }
        }
    }
    binders
}
