//! Labelled and optional arguments, compiled away as ocamlopt's Translcore does: a function's
//! parameters keep their order, an application's arguments are put in that order.
//!
//! The parser reads `~x`, `~(x : t)`, `~x:p`, `?x`, `?(x = d)` and `?(x : t = d)` parameters
//! as ordinary ones (an optional `x` with a default as a parameter holding an option, the body
//! starting `let x = match … with Some x -> x | None -> d`, as Translcore writes it), and
//! records each function's labels and each application's ([`Labels`]). [`resolve`] then
//! puts every application of a function bound by name to a labelled `fun` in its parameters'
//! order, as OCaml's scoping finds that function: `~x:e` where `~x` is, `~x:e` for `?x` as
//! `Some e` (an allocation, as in native code), `?x:e` as `e`, and an optional parameter the
//! application passes over (a later positional argument is given) as `None`. Arguments are
//! matched as the type checker matches them against a known function type; an application
//! whose labels it cannot match so (a labelled argument to a function not bound by name to a
//! labelled `fun`, a partial application leaving a labelled parameter out) is refused with its
//! position.

use crate::ast::{Expr, ExprKind, Item, NodeId, Pos};
use crate::scoped_walk::{walk_items, Binder};
use std::collections::HashMap;

/// A parameter's label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ParamLabel {
    Plain,
    /// `~x`.
    Labelled(String),
    /// `?x`.
    Optional(String),
}

/// An argument's label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArgLabel {
    /// `~x:e` (or `~x`).
    Labelled(String),
    /// `?x:e` (or `?x`): `e` is already an option.
    Optional(String),
}

impl ArgLabel {
    fn name(&self) -> &str {
        match self {
            ArgLabel::Labelled(l) | ArgLabel::Optional(l) => l,
        }
    }
}

/// The labels the parser read: of each labelled `fun` (by node), of each application with a
/// labelled argument (by node, one per argument).
#[derive(Debug, Default)]
pub(crate) struct Labels {
    pub funs: HashMap<NodeId, Vec<ParamLabel>>,
    pub apps: HashMap<NodeId, Vec<Option<ArgLabel>>>,
}

impl Labels {
    pub(crate) fn extend(&mut self, other: Labels) {
        self.funs.extend(other.funs);
        self.apps.extend(other.apps);
    }
}

/// Why an application's labels cannot be matched, and where.
#[derive(Debug)]
pub(crate) struct LabelError {
    pub pos: Pos,
    pub message: String,
}

/// Puts every labelled application of `items` in the order of its function's parameters;
/// `next_id` numbers the `Some` nodes this builds.
pub(crate) fn resolve(
    items: &mut [Item],
    labels: &Labels,
    next_id: &mut NodeId,
) -> Result<(), LabelError> {
    if labels.funs.is_empty() && labels.apps.is_empty() {
        return Ok(());
    }
    let mut error = None;
    walk_items(items, &mut |e, scope| {
        if error.is_none() {
            if let Err(e) = reorder(e, scope, labels, next_id) {
                error = Some(e);
            }
        }
    });
    error.map_or(Ok(()), Err)
}

fn reorder(
    e: &mut Expr,
    scope: &[Binder],
    labels: &Labels,
    next_id: &mut NodeId,
) -> Result<(), LabelError> {
    let ExprKind::App { func, args, .. } = &mut e.kind else {
        return Ok(());
    };
    let arg_labels = labels.apps.get(&e.id);
    let params = match &func.kind {
        ExprKind::Var(name) => scope
            .iter()
            .rev()
            .find(|b| b.name == *name)
            .and_then(|b| b.fun)
            .and_then(|f| labels.funs.get(&f)),
        _ => None,
    };
    let Some(params) = params else {
        return match arg_labels {
            None => Ok(()),
            Some(_) => Err(LabelError {
                pos: e.pos,
                message: "labelled arguments to a function that is not a `let`-bound function \
                          with labelled parameters (apply it without labels)"
                    .into(),
            }),
        };
    };
    let given = std::mem::take(args);
    let given_labels = arg_labels
        .cloned()
        .unwrap_or_else(|| vec![None; given.len()]);
    *args = match_arguments(params, given, given_labels, e.pos, next_id)?;
    Ok(())
}

/// The arguments in parameter order: see the module documentation.
fn match_arguments(
    params: &[ParamLabel],
    given: Vec<Expr>,
    given_labels: Vec<Option<ArgLabel>>,
    pos: Pos,
    next_id: &mut NodeId,
) -> Result<Vec<Expr>, LabelError> {
    let fail = |message: String| Err(LabelError { pos, message });
    let mut positional = std::collections::VecDeque::new();
    let mut labelled = Vec::new();
    for (arg, label) in given.into_iter().zip(given_labels) {
        match label {
            None => positional.push_back(arg),
            Some(l) => labelled.push((l, arg)),
        }
    }
    if let Some((label, _)) = labelled.iter().find(|(label, _)| {
        !params.iter().any(
            |p| matches!(p, ParamLabel::Labelled(l) | ParamLabel::Optional(l) if l == label.name()),
        )
    }) {
        return fail(format!(
            "the function has no parameter labelled `{}`",
            label.name()
        ));
    }
    // OCaml lets a total application leave its labels out: the arguments then go in order.
    let required = params
        .iter()
        .filter(|p| !matches!(p, ParamLabel::Optional(_)))
        .count();
    let labels_omitted = labelled.is_empty() && positional.len() >= required;
    let mut out = Vec::new();
    let mut missing = None;
    for (i, param) in params.iter().enumerate() {
        let found = match param {
            ParamLabel::Plain => positional.pop_front(),
            ParamLabel::Labelled(l) => match take(&mut labelled, l) {
                Some((ArgLabel::Labelled(_), arg)) => Some(arg),
                Some((ArgLabel::Optional(_), _)) => {
                    return fail(format!("`?{l}` given to the parameter `~{l}`"))
                }
                None if labels_omitted => positional.pop_front(),
                None => None,
            },
            ParamLabel::Optional(l) => match take(&mut labelled, l) {
                Some((ArgLabel::Optional(_), arg)) => Some(arg),
                Some((ArgLabel::Labelled(_), arg)) => Some(some(arg, next_id)),
                // Passed over: a positional argument after it is given.
                None if !positional.is_empty() => Some(none(pos, next_id)),
                None => None,
            },
        };
        match (found, missing) {
            (Some(_), Some(m)) => {
                return fail(format!(
                    "a partial application leaving out parameter {} of {} but giving a later one",
                    m + 1,
                    params.len()
                ))
            }
            (Some(arg), None) => out.push(arg),
            (None, _) => {
                if !matches!(param, ParamLabel::Plain) {
                    return fail(format!(
                        "a partial application leaving out the labelled parameter {}",
                        describe(param)
                    ));
                }
                missing.get_or_insert(i);
            }
        }
    }
    if let Some((label, _)) = labelled.first() {
        return fail(format!("`{}` is given twice", label.name()));
    }
    out.extend(positional);
    Ok(out)
}

fn describe(param: &ParamLabel) -> String {
    match param {
        ParamLabel::Plain => "(unlabelled)".into(),
        ParamLabel::Labelled(l) => format!("`~{l}`"),
        ParamLabel::Optional(l) => format!("`?{l}`"),
    }
}

fn take(labelled: &mut Vec<(ArgLabel, Expr)>, name: &str) -> Option<(ArgLabel, Expr)> {
    let i = labelled.iter().position(|(l, _)| l.name() == name)?;
    Some(labelled.remove(i))
}

fn some(arg: Expr, next_id: &mut NodeId) -> Expr {
    *next_id += 1;
    Expr {
        id: *next_id,
        pos: arg.pos,
        kind: ExprKind::Constr("Some".into(), Some(Box::new(arg))),
    }
}

fn none(pos: Pos, next_id: &mut NodeId) -> Expr {
    *next_id += 1;
    Expr {
        id: *next_id,
        pos,
        kind: ExprKind::Constr("None".into(), None),
    }
}
