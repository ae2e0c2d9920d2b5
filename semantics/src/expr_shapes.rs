//! The questions the compiler of records, references and arrays asks of an expression's
//! syntax, as ocamlopt's passes decide from it: whether a `ref` is only read and assigned
//! (Simplif eliminates it into a variable), whether a store adds a constant to the field it
//! reads (one `add` to memory), whether an array store re-reads its own element (CSE shares
//! the bounds check).

use crate::ast::*;

/// The reference operations that leave a reference a variable when they are its only uses.
pub(crate) const REF_OPS: &[&str] = &["!", ":=", "incr", "decr"];

/// Whether the value `v` stored by `a.(i) <- v` reads `a.(i)` itself (the same variables) with
/// nothing that stores, calls or allocates after it: ocamlopt's CSE then reuses that read's
/// header load and bounds check for the store (`h.(b) <- h.(b) + 1` checks once).
pub(crate) fn rereads_element(a: &Expr, i: &Expr, v: &Expr) -> bool {
    let same = |x: &Expr, y: &Expr| match (&x.kind, &y.kind) {
        (ExprKind::Var(p), ExprKind::Var(q)) => p == q,
        (ExprKind::Int(p), ExprKind::Int(q)) => p == q,
        _ => false,
    };
    if !matches!(a.kind, ExprKind::Var(_)) || !matches!(i.kind, ExprKind::Var(_) | ExprKind::Int(_))
    {
        return false;
    }
    fn pure(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Var(_) | ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) => true,
            ExprKind::BinOp(op, x, y) => {
                !op.is_structural_comparison()
                    && !matches!(op, BinOp::And | BinOp::Or)
                    && pure(x)
                    && pure(y)
            }
            ExprKind::UnOp(_, x) | ExprKind::Field(x, _) => pure(x),
            ExprKind::ArrayGet(x, y) => pure(x) && pure(y),
            _ => false,
        }
    }
    fn reads(e: &Expr, hit: &dyn Fn(&Expr) -> bool) -> bool {
        hit(e)
            || match &e.kind {
                ExprKind::BinOp(_, x, y) | ExprKind::ArrayGet(x, y) => {
                    reads(x, hit) || reads(y, hit)
                }
                ExprKind::UnOp(_, x) | ExprKind::Field(x, _) => reads(x, hit),
                _ => false,
            }
    }
    let hit = |e: &Expr| matches!(&e.kind, ExprKind::ArrayGet(x, y) if same(x, a) && same(y, i));
    pure(v) && reads(v, &hit)
}

/// `c` when `v` is `x.field + c`, `c + x.field` or `x.field - c` (`!x` for `contents`) with
/// `c` an integer literal: the value amd64's instruction selection stores with one `add` to
/// memory when it goes back into the same field (`Ioffset_loc`).
pub(crate) fn in_place_offset(x: &str, field: &str, v: &Expr) -> Option<i64> {
    let reads_field = |e: &Expr| match &e.kind {
        ExprKind::Field(r, f) => f == field && matches!(&r.kind, ExprKind::Var(n) if n == x),
        ExprKind::App { func, args, .. } => {
            field == "contents"
                && matches!(&func.kind, ExprKind::Var(op) if op == "!")
                && matches!(args.as_slice(), [Expr { kind: ExprKind::Var(n), .. }] if n == x)
        }
        _ => false,
    };
    match &v.kind {
        ExprKind::BinOp(BinOp::Add, a, b) => match (&a.kind, &b.kind) {
            (_, ExprKind::Int(c)) if reads_field(a) => Some(*c),
            (ExprKind::Int(c), _) if reads_field(b) => Some(*c),
            _ => None,
        },
        ExprKind::BinOp(BinOp::Sub, a, b) => match &b.kind {
            ExprKind::Int(c) if reads_field(a) => Some(-*c),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `body` uses the reference `x` only through `!`, `:=`, `incr`, `decr` and
/// `.contents`, outside any function (Simplif's `eliminate_ref` condition). Uses under a
/// binding that shadows `x` are someone else's.
pub(crate) fn only_ref_uses(x: &str, body: &Expr) -> bool {
    let is_x = |e: &Expr| matches!(&e.kind, ExprKind::Var(n) if n == x);
    let binds_x = |p: &Pattern| {
        let mut names = Vec::new();
        crate::fv::pattern_vars(p, &mut names);
        names.iter().any(|n| n == x)
    };
    let arms_ok = |arms: &[crate::ast::Arm]| {
        arms.iter().all(|a| {
            binds_x(&a.pat)
                || (a.guard.as_ref().is_none_or(|g| only_ref_uses(x, g))
                    && only_ref_uses(x, &a.body))
        })
    };
    match &body.kind {
        ExprKind::Var(n) => n != x,
        ExprKind::App { func, args, .. } => {
            let ref_op = matches!(&func.kind, ExprKind::Var(op) if REF_OPS.contains(&op.as_str()));
            let rest = if ref_op && args.first().is_some_and(is_x) {
                &args[1..]
            } else {
                &args[..]
            };
            only_ref_uses(x, func) && rest.iter().all(|a| only_ref_uses(x, a))
        }
        ExprKind::Field(r, f) if f == "contents" && is_x(r) => true,
        ExprKind::SetField(r, f, v) if f == "contents" && is_x(r) => only_ref_uses(x, v),
        // A function that mentions `x` captures the reference: it stays a block.
        ExprKind::Fun { .. } | ExprKind::Function(_) => {
            !crate::fv::of_function(&[], body).contains(x)
        }
        ExprKind::Let {
            rec_,
            bindings,
            body,
        } => {
            let shadows = bindings.iter().any(|b| binds_x(&b.pat));
            if *rec_ && shadows {
                return true;
            }
            bindings.iter().all(|b| only_ref_uses(x, &b.expr))
                && (shadows || only_ref_uses(x, body))
        }
        ExprKind::Match(s, arms) | ExprKind::Try(s, arms) => only_ref_uses(x, s) && arms_ok(arms),
        ExprKind::MatchExn(s, arms, handlers) => {
            only_ref_uses(x, s) && arms_ok(arms) && arms_ok(handlers)
        }
        ExprKind::For {
            var,
            from,
            until,
            body,
            ..
        } => {
            only_ref_uses(x, from)
                && only_ref_uses(x, until)
                && (var == x || only_ref_uses(x, body))
        }
        _ => children(body).into_iter().all(|c| only_ref_uses(x, c)),
    }
}

/// The direct subexpressions of the forms that bind nothing.
fn children(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Char(_)
        | ExprKind::Bool(_)
        | ExprKind::Unit
        | ExprKind::Var(_)
        | ExprKind::Constr(_, None) => Vec::new(),
        ExprKind::Constr(_, Some(a))
        | ExprKind::UnOp(_, a)
        | ExprKind::Annot(a, _)
        | ExprKind::Field(a, _) => vec![&**a],
        ExprKind::Tuple(items) | ExprKind::List(items) | ExprKind::Array(items) => {
            items.iter().collect()
        }
        ExprKind::Cons(a, b)
        | ExprKind::BinOp(_, a, b)
        | ExprKind::Seq(a, b)
        | ExprKind::SetField(a, _, b)
        | ExprKind::ArrayGet(a, b)
        | ExprKind::While(a, b) => vec![&**a, &**b],
        ExprKind::ArraySet(a, b, c) => vec![&**a, &**b, &**c],
        ExprKind::If(c, t, el) => {
            let mut v = vec![&**c, &**t];
            v.extend(el.as_deref());
            v
        }
        ExprKind::Record(fields, base) => {
            let mut v: Vec<&Expr> = fields.iter().map(|(_, e)| e).collect();
            v.extend(base.as_deref());
            v
        }
        ExprKind::App { func, args, .. } => std::iter::once(&**func).chain(args).collect(),
        ExprKind::Let { .. }
        | ExprKind::Fun { .. }
        | ExprKind::Function(_)
        | ExprKind::Match(..)
        | ExprKind::MatchExn(..)
        | ExprKind::Try(..)
        | ExprKind::For { .. } => unreachable!("binding forms are walked by `only_ref_uses`"),
    }
}
