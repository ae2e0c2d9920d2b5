//! Whether a `match` is exhaustive, so that its last arm is reached without a test.
//!
//! ocamlopt's match compiler tests a value only to tell the remaining arms apart: in
//! `match l with [] -> a | x :: t -> b` one `cmp` against `[]` decides both arms, and the last
//! arm of any exhaustive match is where the failed tests of the others fall through (read off
//! `ocamlopt -S -inline 0`: a list, an option, a bool, `L | N of …` are one compare and one
//! branch, whichever arm is taken). So the interpreter counts `PatternMatch` for the last arm
//! only when the match is not exhaustive or the arm has a guard. Exhaustiveness is the
//! usefulness check of Maranget ("Warnings for pattern matching", 2007) on the guard-free arms.

use crate::ast::{PatKind, Pattern};
use crate::infer::Typing;

/// What a pattern tests at its top.
#[derive(Debug, Clone, PartialEq)]
enum Head {
    /// A variant's constructor (not an exception): one of its type's constructors.
    Ctor(u32),
    Exn(u32),
    Nil,
    Cons,
    Bool(bool),
    /// A tuple or record: the one constructor of its type, its components as arguments.
    Product,
    Int(i64),
    Float(u64),
    Str(String),
}

#[derive(Debug, Clone)]
enum P {
    Wild,
    Ctor(Head, Vec<P>),
    Or(Vec<P>),
}

struct Sigs<'a> {
    typing: &'a Typing,
}

impl Sigs<'_> {
    /// How many constructors a head's type has (`None`: too many to list — integers,
    /// strings, exceptions).
    fn size(&self, head: &Head) -> Option<usize> {
        match head {
            Head::Ctor(id) => {
                let tycon = self.typing.types.ctors[*id as usize].tycon;
                Some(self.typing.types.tycons[tycon as usize].ctors.len())
            }
            Head::Nil | Head::Cons | Head::Bool(_) => Some(2),
            Head::Product => Some(1),
            Head::Exn(_) | Head::Int(_) | Head::Float(_) | Head::Str(_) => None,
        }
    }

    fn arity(&self, head: &Head, example: &[P]) -> usize {
        match head {
            Head::Cons => 2,
            Head::Product | Head::Ctor(_) | Head::Exn(_) => example.len(),
            _ => 0,
        }
    }

    fn pattern(&self, p: &Pattern) -> P {
        match &p.kind {
            PatKind::Any | PatKind::Unit | PatKind::Var(_) => P::Wild,
            PatKind::Int(i) => P::Ctor(Head::Int(*i), Vec::new()),
            PatKind::Char(c) => P::Ctor(Head::Int(i64::from(*c)), Vec::new()),
            PatKind::Float(f) => P::Ctor(Head::Float(f.to_bits()), Vec::new()),
            PatKind::Str(s) => P::Ctor(Head::Str(s.clone()), Vec::new()),
            PatKind::Bool(b) => P::Ctor(Head::Bool(*b), Vec::new()),
            PatKind::Nil => P::Ctor(Head::Nil, Vec::new()),
            PatKind::Cons(h, t) => P::Ctor(Head::Cons, vec![self.pattern(h), self.pattern(t)]),
            PatKind::List(items) => items
                .iter()
                .rev()
                .fold(P::Ctor(Head::Nil, Vec::new()), |tail, item| {
                    P::Ctor(Head::Cons, vec![self.pattern(item), tail])
                }),
            PatKind::Tuple(items) => P::Ctor(
                Head::Product,
                items.iter().map(|i| self.pattern(i)).collect(),
            ),
            PatKind::Constr(_, arg) => {
                let Some(&id) = self.typing.ctor_of.get(&p.id) else {
                    return P::Wild;
                };
                let info = &self.typing.types.ctors[id as usize];
                let arity = info.args.len();
                let args = match (info.inline_record, arg.as_deref()) {
                    (Some(record), Some(a)) => {
                        let mut args = vec![P::Wild; arity];
                        if let PatKind::Record(fields) = &a.kind {
                            let info = &self.typing.types.records[&record];
                            for (name, sub) in fields {
                                args[info.field_index(name)] = self.pattern(sub);
                            }
                        }
                        args
                    }
                    (_, Some(a)) if arity == 1 => vec![self.pattern(a)],
                    (
                        _,
                        Some(Pattern {
                            kind: PatKind::Tuple(items),
                            ..
                        }),
                    ) if items.len() == arity => items.iter().map(|i| self.pattern(i)).collect(),
                    _ => vec![P::Wild; arity],
                };
                let head = if info.exception {
                    Head::Exn(id)
                } else {
                    Head::Ctor(id)
                };
                P::Ctor(head, args)
            }
            PatKind::Or(a, b) => P::Or(vec![self.pattern(a), self.pattern(b)]),
            PatKind::As(inner, _) | PatKind::Annot(inner, _) => self.pattern(inner),
            PatKind::Record(fields) => {
                let Some(info) = self
                    .typing
                    .record_of
                    .get(&p.id)
                    .and_then(|t| self.typing.types.records.get(t))
                else {
                    return P::Wild;
                };
                let mut args = vec![P::Wild; info.fields.len()];
                for (name, sub) in fields {
                    args[info.field_index(name)] = self.pattern(sub);
                }
                P::Ctor(Head::Product, args)
            }
        }
    }

    /// The rows that remain when the first column is the constructor `head` of `arity`
    /// arguments, its arguments spread in its place.
    fn specialize(&self, rows: &[Vec<P>], head: &Head, arity: usize) -> Vec<Vec<P>> {
        let mut out = Vec::new();
        for row in rows {
            self.specialize_row(&row[0], &row[1..], head, arity, &mut out);
        }
        out
    }

    fn specialize_row(
        &self,
        first: &P,
        rest: &[P],
        head: &Head,
        arity: usize,
        out: &mut Vec<Vec<P>>,
    ) {
        match first {
            P::Wild => out.push(
                std::iter::repeat_n(P::Wild, arity)
                    .chain(rest.iter().cloned())
                    .collect(),
            ),
            P::Ctor(h, args) if h == head => out.push(args.iter().chain(rest).cloned().collect()),
            P::Ctor(..) => {}
            P::Or(alts) => {
                for alt in alts {
                    self.specialize_row(alt, rest, head, arity, out);
                }
            }
        }
    }

    /// Whether some value matches `q` and no row of `rows` (all of `q`'s width).
    fn useful(&self, rows: &[Vec<P>], q: &[P]) -> bool {
        let Some(first) = q.first() else {
            return rows.is_empty();
        };
        match first {
            P::Or(alts) => alts.iter().any(|alt| {
                let q: Vec<P> = std::iter::once(alt.clone())
                    .chain(q[1..].iter().cloned())
                    .collect();
                self.useful(rows, &q)
            }),
            P::Ctor(head, args) => {
                let q: Vec<P> = args.iter().chain(&q[1..]).cloned().collect();
                self.useful(&self.specialize(rows, head, args.len()), &q)
            }
            P::Wild => {
                let mut heads: Vec<(Head, usize)> = Vec::new();
                for row in rows {
                    collect_heads(&row[0], self, &mut heads);
                }
                let complete = heads
                    .first()
                    .and_then(|(h, _)| self.size(h))
                    .is_some_and(|size| heads.len() == size);
                if complete {
                    heads.iter().any(|(head, arity)| {
                        let q: Vec<P> = std::iter::repeat_n(P::Wild, *arity)
                            .chain(q[1..].iter().cloned())
                            .collect();
                        self.useful(&self.specialize(rows, head, *arity), &q)
                    })
                } else {
                    let default: Vec<Vec<P>> = rows
                        .iter()
                        .flat_map(|row| default_rows(&row[0], &row[1..]))
                        .collect();
                    self.useful(&default, &q[1..])
                }
            }
        }
    }
}

fn collect_heads(p: &P, sigs: &Sigs<'_>, out: &mut Vec<(Head, usize)>) {
    match p {
        P::Wild => {}
        P::Ctor(h, args) => {
            if !out.iter().any(|(seen, _)| seen == h) {
                out.push((h.clone(), sigs.arity(h, args)));
            }
        }
        P::Or(alts) => alts.iter().for_each(|a| collect_heads(a, sigs, out)),
    }
}

/// The rows that match whatever constructor the first column holds, without it.
fn default_rows(first: &P, rest: &[P]) -> Vec<Vec<P>> {
    match first {
        P::Wild => vec![rest.to_vec()],
        P::Ctor(..) => Vec::new(),
        P::Or(alts) => alts.iter().flat_map(|a| default_rows(a, rest)).collect(),
    }
}

/// Whether the guard-free arms among `arms` (each a pattern and whether it has a guard)
/// match every value of the scrutinee's type.
pub(crate) fn exhaustive<'p>(
    typing: &Typing,
    arms: impl IntoIterator<Item = (&'p Pattern, bool)>,
) -> bool {
    let sigs = Sigs { typing };
    let rows: Vec<Vec<P>> = arms
        .into_iter()
        .filter(|(_, guarded)| !guarded)
        .map(|(p, _)| vec![sigs.pattern(p)])
        .collect();
    !sigs.useful(&rows, &[P::Wild])
}
