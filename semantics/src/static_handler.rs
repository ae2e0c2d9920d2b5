//! A local function called once becomes its body at the call, as ocamlopt's Simplif makes it
//! (`simplify_local_functions`, lambda/simplif.ml, run in native code before everything else):
//! a `let f x = … in …` whose only use is one full application is turned into a static
//! handler — the call a jump with its arguments, the body code of the function around it —
//! so there is no closure, no call, no frame of its own, and a reference it captured is no
//! longer captured by anything: Simplif's next step makes it a mutable variable, its float
//! unboxed. Measured with `Gc.counters` (4.13.1): `let t = ref 0.0 in let add i = t := !t +.
//! float_of_int i in for i = 1 to n do add i done` allocates 2 words a run at n = 30 (the
//! result's box), where a closure, a reference cell and a box per iteration would take 68.
//!
//! The rewrite, on the typed syntax tree (the body keeps its nodes, so the types the checker
//! gave the function's definition, as Simplif works on the code typed at the definition):
//! `f a1 … an` becomes `let (x1, …, xn) = (a1, …, an) in body` — the arguments evaluated
//! first, no tuple built — and the `let f` goes. Conditions, as Simplif's: `f` is bound by a
//! non-recursive `let` to a `fun` of simple parameters (names, `_`, `()`), or of one tuple of
//! them called with the tuple written out (a *tupled* function: `let f (a, b) = … in f (x,
//! y)` allocates nothing natively, 0 words against a closure's 4 and more); not `[@inline]`
//! (Simplif leaves those to Closure); named exactly once after it, applied there to all its
//! parameters. Simplif also turns several calls that are all in one tail
//! scope into one handler; that case is left as calls here. And the body must mean the same
//! at the call: no name it uses freely, and not `f` itself, is bound again between the `let`
//! and the call (a renaming Simplif does not need, working on unique identifiers; such a
//! function is left as it was).

use crate::ast::*;
use crate::scoped_walk::{look_expr, walk_items, Binder};

/// Rewrites every eligible local function of `items`; `next_id` numbers the nodes it adds.
pub(crate) fn rewrite_items(items: &mut [Item], next_id: &mut u32) {
    walk_items(items, &mut |e, _scope| rewrite(e, next_id));
}

fn rewrite(e: &mut Expr, next_id: &mut u32) {
    let Some(call) = single_call(e) else {
        return;
    };
    let ExprKind::Let { bindings, body, .. } = &mut e.kind else {
        return;
    };
    let Binding { expr: function, .. } = bindings.remove(0);
    let ExprKind::Fun {
        params,
        body: fun_body,
    } = strip(function).kind
    else {
        return;
    };
    let mut cont = std::mem::replace(&mut **body, unit(e.pos));
    replace_call(&mut cont, call, &mut |pos, args| {
        let mut fresh = || {
            *next_id += 1;
            *next_id
        };
        let (pat, expr) = if params.len() == 1 {
            (params[0].clone(), args.remove(0))
        } else {
            let pat = Pattern {
                id: fresh(),
                pos,
                kind: PatKind::Tuple(params.clone()),
            };
            let tuple = Expr {
                id: fresh(),
                pos,
                kind: ExprKind::Tuple(std::mem::take(args)),
            };
            (pat, tuple)
        };
        Expr {
            id: fresh(),
            pos,
            kind: ExprKind::Let {
                rec_: false,
                bindings: vec![Binding {
                    pat,
                    expr,
                    pos,
                    inline: Inline::Default,
                }],
                body: fun_body.clone(),
            },
        }
    });
    *e = cont;
}

fn unit(pos: Pos) -> Expr {
    Expr {
        id: 0,
        pos,
        kind: ExprKind::Unit,
    }
}

fn strip(e: Expr) -> Expr {
    match e.kind {
        ExprKind::Annot(inner, _) => strip(*inner),
        _ => e,
    }
}

fn strip_ref(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Annot(inner, _) => strip_ref(inner),
        _ => e,
    }
}

fn is_simple_param(p: &Pattern) -> bool {
    match &p.kind {
        PatKind::Var(_) | PatKind::Any | PatKind::Unit => true,
        PatKind::Annot(inner, _) => is_simple_param(inner),
        _ => false,
    }
}

/// The components of a tupled function's one parameter (`let f (a, b) = …`).
fn tuple_param(params: &[Pattern]) -> Option<usize> {
    match params {
        [p] => match &p.kind {
            PatKind::Tuple(items) if items.iter().all(is_simple_param) => Some(items.len()),
            PatKind::Annot(inner, _) => tuple_param(std::slice::from_ref(inner)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `args` is a full application of a function of `params`: as many arguments, or,
/// for a tupled function, its tuple written out.
fn full_application(params: &[Pattern], args: &[Expr]) -> bool {
    match (tuple_param(params), args) {
        (Some(n), [arg]) => {
            matches!(&strip_ref(arg).kind, ExprKind::Tuple(items) if items.len() == n)
        }
        (Some(_), _) => false,
        (None, _) => args.len() == params.len(),
    }
}

/// The node id of the one call of the function `e` binds, when `e` is an eligible `let`.
fn single_call(e: &Expr) -> Option<NodeId> {
    let ExprKind::Let {
        rec_: false,
        bindings,
        body,
    } = &e.kind
    else {
        return None;
    };
    let [binding] = &bindings[..] else {
        return None;
    };
    let name = match &binding.pat.kind {
        PatKind::Var(n) => n,
        _ => return None,
    };
    let ExprKind::Fun {
        params,
        body: fun_body,
    } = &strip_ref(&binding.expr).kind
    else {
        return None;
    };
    if binding.inline == Inline::Always
        || matches!(fun_body.kind, ExprKind::Function(_))
        || !(params.iter().all(is_simple_param) || tuple_param(params).is_some())
    {
        return None;
    }
    let free = crate::fv::of_function(params, fun_body);
    let mut mentions = 0;
    let mut call = None;
    let mut clean = true;
    look_expr(body, &mut Vec::new(), &mut |node, scope: &[Binder]| {
        let rebound = |n: &str| scope.iter().any(|b| b.name == n);
        match &node.kind {
            ExprKind::Var(n) if n == name => {
                mentions += 1;
                if rebound(name) || free.iter().any(|v| rebound(v)) {
                    clean = false;
                }
            }
            ExprKind::App { func, args, .. }
                if matches!(&func.kind, ExprKind::Var(n) if n == name)
                    && full_application(params, args) =>
            {
                call = Some(node.id);
            }
            _ => {}
        }
    });
    (clean && mentions == 1).then_some(call).flatten()
}

/// Replaces the application of node `id` in `e` by what `with` makes of its arguments.
fn replace_call(e: &mut Expr, id: NodeId, with: &mut dyn FnMut(Pos, &mut Vec<Expr>) -> Expr) {
    let mut with = Some(with);
    let mut target = |node: &mut Expr, _: &[Binder]| {
        if node.id != id {
            return;
        }
        if let (ExprKind::App { args, .. }, Some(make)) = (&mut node.kind, with.take()) {
            *node = make(node.pos, args);
        }
    };
    crate::scoped_walk::walk_expr(e, &mut Vec::new(), &mut target);
}
