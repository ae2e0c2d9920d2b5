//! The walk that follows ocamlopt's CSE numbering over the source (asmcomp/CSEgen.ml): what
//! is available where, in the order native code evaluates it. The code before a branch flows
//! into the branch (a condition into its `then`, the first operand of `&&` into the second, a
//! `while` test into the body); a join (after an `if` or a `match`), a loop's iteration, a
//! handler and another function's body start from nothing; a call forgets everything;
//! assigning or rebinding a name forgets what mentions it. What an allocation, a store or a
//! `&&` used as a value forgets, and what is numbered at all, is each pass's
//! ([`crate::shared_checks`]: element reads and bounds checks; [`crate::shared_quotients`]:
//! quotients by a constant).

use crate::ast::*;
use crate::infer::Typing;
use crate::types::CmpClass;

/// Something CSE keeps in a register, named by the variables its value reads.
pub(crate) trait Available: Clone + PartialEq {
    /// Whether assigning or rebinding `name` changes it.
    fn mentions(&self, name: &str) -> bool;
}

/// Functions that are no call in native code and leave memory alone.
pub(crate) const PURE: [&str; 9] = [
    "!",
    "Char.code",
    "Char.unsafe_chr",
    "Bytes.unsafe_to_string",
    "not",
    "succ",
    "pred",
    "fst",
    "snd",
];

/// What one pass numbers, and what forgets it beyond a call, a join and a rebinding.
pub(crate) trait Numbering {
    type Key: Available;

    fn typing(&self) -> &Typing;

    /// A checked read of element `index` of array or string `array` at `node`.
    fn read(&mut self, _node: NodeId, _array: &Expr, _index: &Expr, _avail: &mut Vec<Self::Key>) {}

    /// A checked store into element `index` of `array` at `node`, before the store forgets.
    fn element_store(
        &mut self,
        _node: NodeId,
        _array: &Expr,
        _index: &Expr,
        _avail: &mut Vec<Self::Key>,
    ) {
    }

    /// An arithmetic operator `e`, after its operands; `true` when it calls (so forgets all).
    fn operator(&mut self, _e: &Expr, _avail: &mut Vec<Self::Key>) -> bool {
        false
    }

    /// A block allocated (a closure built too).
    fn allocated(&self, avail: &mut Vec<Self::Key>);

    /// A store into memory.
    fn stored(&self, avail: &mut Vec<Self::Key>);

    /// `r := …`, `incr r`, `decr r` on a variable `r`.
    fn assigned(&self, r: &str, avail: &mut Vec<Self::Key>);

    /// After `a && b` or `a || b` computed as a value, where the two ways join.
    fn value_joined(&self, _avail: &mut Vec<Self::Key>) {}

    /// Entering the body of `let bindings in body`; `true` when the pass keeps something for
    /// its extent ([`Numbering::leave_let`] undoes it).
    fn enter_let(&mut self, _bindings: &[Binding], _body: &Expr) -> bool {
        false
    }

    fn leave_let(&mut self) {}
}

/// Forgets what mentions `name`.
pub(crate) fn forget<K: Available>(avail: &mut Vec<K>, name: &str) {
    avail.retain(|k| !k.mentions(name));
}

fn forget_pattern<K: Available>(avail: &mut Vec<K>, p: &Pattern) {
    let mut names = Vec::new();
    crate::fv::pattern_vars(p, &mut names);
    names.iter().for_each(|n| forget(avail, n));
}

/// Walks every top-level binding and expression of `items`, each from nothing.
pub(crate) fn walk_items<N: Numbering>(pass: &mut N, items: &[Item]) {
    for item in items {
        if let Item::Let { bindings, .. } = item {
            for b in bindings {
                walk(pass, &b.expr, &mut Vec::new());
            }
        } else if let Item::Expr(e) = item {
            walk(pass, e, &mut Vec::new());
        }
    }
}

/// Walks `e` as a condition: what is available where it is true, and where it is false
/// (nothing where a branch of `&&` or `||` joins another).
fn cond<N: Numbering>(pass: &mut N, e: &Expr, avail: &[N::Key]) -> (Vec<N::Key>, Vec<N::Key>) {
    match &e.kind {
        ExprKind::BinOp(BinOp::And, x, y) => {
            let (xt, _) = cond(pass, x, avail);
            let (yt, _) = cond(pass, y, &xt);
            (yt, Vec::new())
        }
        ExprKind::BinOp(BinOp::Or, x, y) => {
            let (_, xf) = cond(pass, x, avail);
            let (_, yf) = cond(pass, y, &xf);
            (Vec::new(), yf)
        }
        _ => {
            let mut after = avail.to_vec();
            walk(pass, e, &mut after);
            (after.clone(), after)
        }
    }
}

/// The cases of a `match` or a handler, each starting from what `avail` says.
fn arms<N: Numbering>(pass: &mut N, arms: &[Arm], avail: &[N::Key]) {
    for arm in arms {
        let mut here = avail.to_vec();
        forget_pattern(&mut here, &arm.pat);
        if let Some(g) = &arm.guard {
            walk(pass, g, &mut here);
        }
        walk(pass, &arm.body, &mut here);
    }
}

fn walk_all<'e, N: Numbering>(
    pass: &mut N,
    es: impl Iterator<Item = &'e Expr>,
    avail: &mut Vec<N::Key>,
) {
    es.for_each(|e| walk(pass, e, avail));
}

fn calls_to_compare(typing: &Typing, e: &Expr, op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    ) && matches!(
        typing.comparisons.get(&e.id).copied(),
        Some(CmpClass::Poly) | None
    )
}

/// Walks `e` in native code's order of evaluation, `avail` what CSE has where it starts and,
/// on return, where it ends.
pub(crate) fn walk<N: Numbering>(pass: &mut N, e: &Expr, avail: &mut Vec<N::Key>) {
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Char(_)
        | ExprKind::Bool(_)
        | ExprKind::Unit
        | ExprKind::Var(_) => {}
        ExprKind::ArrayGet(a, i) => {
            walk_all(pass, [&**i, &**a].into_iter(), avail);
            pass.read(e.id, a, i, avail);
        }
        // The value first, then the check and the store (Cmmgen's `Parraysetu/s`).
        ExprKind::ArraySet(a, i, v) => {
            walk_all(pass, [&**v, &**i, &**a].into_iter(), avail);
            pass.element_store(e.id, a, i, avail);
            pass.stored(avail);
        }
        ExprKind::App { func, args, .. } => {
            let name = match &func.kind {
                ExprKind::Var(f) => f.as_str(),
                _ => "",
            };
            match (name, args.as_slice()) {
                ("String.get" | "Bytes.get", [s, i]) => {
                    walk_all(pass, [i, s].into_iter(), avail);
                    pass.read(func.id, s, i, avail);
                }
                // The check before the byte is computed (Cmmgen's `Pbytessets`).
                ("Bytes.set", [s, i, c]) => {
                    walk_all(pass, [i, s].into_iter(), avail);
                    pass.element_store(func.id, s, i, avail);
                    walk(pass, c, avail);
                    pass.stored(avail);
                }
                (":=" | "incr" | "decr", [r, rest @ ..]) => {
                    walk_all(pass, rest.iter(), avail);
                    match &r.kind {
                        ExprKind::Var(r) => pass.assigned(r, avail),
                        _ => avail.clear(),
                    }
                }
                _ => {
                    walk_all(pass, args.iter().rev(), avail);
                    walk(pass, func, avail);
                    if !PURE.contains(&name) {
                        avail.clear();
                    }
                }
            }
        }
        ExprKind::BinOp(BinOp::And | BinOp::Or, x, y) => {
            walk(pass, x, avail);
            let mut second = avail.clone();
            walk(pass, y, &mut second);
            pass.value_joined(avail);
        }
        ExprKind::BinOp(op, x, y) => {
            walk_all(pass, [&**y, &**x].into_iter(), avail);
            if pass.operator(e, avail) || calls_to_compare(pass.typing(), e, *op) {
                avail.clear();
            }
        }
        ExprKind::UnOp(_, x) | ExprKind::Field(x, _) | ExprKind::Annot(x, _) => {
            walk(pass, x, avail)
        }
        ExprKind::If(c, t, f) => {
            let (yes, no) = cond(pass, c, avail);
            walk(pass, t, &mut yes.clone());
            if let Some(f) = f {
                walk(pass, f, &mut no.clone());
            }
            avail.clear();
        }
        ExprKind::Seq(a, b) => walk_all(pass, [&**a, &**b].into_iter(), avail),
        ExprKind::Let { bindings, body, .. } => {
            for b in bindings {
                walk(pass, &b.expr, avail);
                forget_pattern(avail, &b.pat);
            }
            let kept = pass.enter_let(bindings, body);
            walk(pass, body, avail);
            if kept {
                pass.leave_let();
            }
        }
        ExprKind::Match(s, cases) | ExprKind::Try(s, cases) => {
            let is_try = matches!(e.kind, ExprKind::Try(..));
            walk(pass, s, avail);
            arms(pass, cases, if is_try { &[] } else { avail });
            avail.clear();
        }
        ExprKind::MatchExn(s, cases, handlers) => {
            walk(pass, s, avail);
            arms(pass, cases, avail);
            // As a `try`'s: a handler may run after any part of the scrutinee.
            arms(pass, handlers, &[]);
            avail.clear();
        }
        ExprKind::While(c, body) => {
            let (yes, _) = cond(pass, c, &[]);
            walk(pass, body, &mut yes.clone());
            avail.clear();
        }
        ExprKind::For {
            from, until, body, ..
        } => {
            walk_all(pass, [&**until, &**from].into_iter(), avail);
            walk(pass, body, &mut Vec::new());
            avail.clear();
        }
        // Another function's body; building its closure allocates.
        ExprKind::Fun { body, .. } => {
            walk(pass, body, &mut Vec::new());
            pass.allocated(avail);
        }
        ExprKind::Function(cases) => {
            for arm in cases {
                walk(pass, &arm.body, &mut Vec::new());
            }
            pass.allocated(avail);
        }
        // Blocks built at run time allocate.
        ExprKind::Constr(_, arg) => {
            if let Some(a) = arg {
                walk(pass, a, avail);
                pass.allocated(avail);
            }
        }
        ExprKind::Tuple(items) | ExprKind::List(items) | ExprKind::Array(items) => {
            walk_all(pass, items.iter().rev(), avail);
            pass.allocated(avail);
        }
        ExprKind::Cons(a, b) => {
            walk_all(pass, [&**b, &**a].into_iter(), avail);
            pass.allocated(avail);
        }
        ExprKind::Record(fields, base) => {
            walk_all(pass, fields.iter().map(|(_, v)| v), avail);
            if let Some(b) = base {
                walk(pass, b, avail);
            }
            pass.allocated(avail);
        }
        ExprKind::SetField(r, _, v) => {
            walk_all(pass, [&**v, &**r].into_iter(), avail);
            pass.stored(avail);
        }
    }
}
