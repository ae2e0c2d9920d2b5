//! Compiling patterns, `match`, `let`, `let rec`, and whole programs.

use crate::ast::*;
use crate::catalogue::Counter;
use crate::compile::*;
use crate::compile_fun::FunBody;
use crate::fv;
use crate::infer::Typing;
use crate::ir::*;
use std::collections::HashMap;

/// Names bound by a pattern being compiled, with their slots; the alternatives of an
/// or-pattern share it, so that each name gets the same slot in every alternative.
pub(crate) type PatNames = Vec<(String, Slot)>;

impl Compiler<'_> {
    pub(crate) fn pat_slot(&mut self, name: &str, names: &mut PatNames) -> Slot {
        if let Some((_, s)) = names.iter().find(|(n, _)| n == name) {
            return *s;
        }
        let s = self.new_slot();
        names.push((name.to_string(), s));
        s
    }

    /// Compiles a pattern; also says whether it can fail to match.
    pub(crate) fn pat(&mut self, p: &Pattern, names: &mut PatNames) -> CResult<(Pat, bool)> {
        Ok(match &p.kind {
            PatKind::Any | PatKind::Unit => (Pat::Any, false),
            PatKind::Var(n) => (Pat::Bind(self.pat_slot(n, names)), false),
            PatKind::Int(i) => (Pat::Imm(*i), true),
            PatKind::Bool(b) => (Pat::Imm(i64::from(*b)), true),
            PatKind::Char(c) => (Pat::Imm(i64::from(*c)), true),
            PatKind::Nil => (Pat::Imm(0), true),
            PatKind::Float(f) => (Pat::Float(*f), true),
            PatKind::Str(s) => (Pat::Str(s.as_str().into()), true),
            PatKind::Cons(h, t) => {
                let (h, _) = self.pat(h, names)?;
                let (t, _) = self.pat(t, names)?;
                (Pat::Cons(Box::new((h, t))), true)
            }
            PatKind::List(items) => {
                let mut compiled = Vec::new();
                for i in items {
                    compiled.push(self.pat(i, names)?.0);
                }
                let mut acc = Pat::Imm(0);
                for item in compiled.into_iter().rev() {
                    acc = Pat::Cons(Box::new((item, acc)));
                }
                (acc, true)
            }
            PatKind::Tuple(items) => {
                let mut refutable = false;
                let mut pats = Vec::new();
                for i in items {
                    let (p, r) = self.pat(i, names)?;
                    refutable |= r;
                    pats.push(p);
                }
                (Pat::Tuple(pats.into()), refutable)
            }
            PatKind::Constr(name, arg) => {
                let Some(&id) = self.typing.ctor_of.get(&p.id) else {
                    return err(p.pos, format!("unbound constructor {name}"));
                };
                let info = &self.typing.types.ctors[id as usize];
                let (tag, exception, arity) = (info.tag, info.exception, info.args.len());
                let siblings = self.typing.types.tycons[info.tycon as usize].ctors.len();
                let refutable = exception || siblings > 1;
                if info.constant {
                    let pat = if exception {
                        Pat::Exn(tag, Box::new([]))
                    } else {
                        Pat::Imm(i64::from(tag))
                    };
                    return Ok((pat, refutable));
                }
                if let Some(record) = info.inline_record {
                    let arg = arg.as_deref().expect("typed");
                    let (pat, r) = self.inline_record_pat(arg, tag, arity, record, names)?;
                    return Ok((pat, refutable || r));
                }
                let parts: Vec<&Pattern> = match arg.as_deref() {
                    Some(Pattern {
                        kind: PatKind::Any, ..
                    }) if arity > 1 => Vec::new(),
                    Some(a) if arity == 1 => vec![a],
                    Some(Pattern {
                        kind: PatKind::Tuple(items),
                        ..
                    }) => items.iter().collect(),
                    _ => {
                        return err(
                            p.pos,
                            format!("constructor {name} has the wrong number of arguments"),
                        )
                    }
                };
                let mut pats = Vec::new();
                let mut inner_refutable = false;
                for part in parts {
                    let (q, r) = self.pat(part, names)?;
                    inner_refutable |= r;
                    pats.push(q);
                }
                while pats.len() < arity {
                    pats.push(Pat::Any);
                }
                let pats = pats.into();
                let pat = if exception {
                    Pat::Exn(tag, pats)
                } else {
                    Pat::Block(tag, pats)
                };
                (pat, refutable || inner_refutable)
            }
            PatKind::Or(a, b) => {
                let (a, _) = self.pat(a, names)?;
                let (b, _) = self.pat(b, names)?;
                (Pat::Or(Box::new((a, b))), true)
            }
            PatKind::As(inner, n) => {
                let (inner, r) = self.pat(inner, names)?;
                (Pat::As(Box::new(inner), self.pat_slot(n, names)), r)
            }
            PatKind::Annot(inner, _) => self.pat(inner, names)?,
            PatKind::Record(fields) => {
                let info = &self.typing.types.records[&self.typing.record_of[&p.id]];
                let indices: Vec<u32> = fields
                    .iter()
                    .map(|(name, _)| info.field_index(name) as u32)
                    .collect();
                let mut pats = Vec::new();
                let mut refutable = false;
                for ((_, sub), index) in fields.iter().zip(indices) {
                    let (q, r) = self.pat(sub, names)?;
                    refutable |= r;
                    pats.push((index, q));
                }
                (Pat::Record(pats.into()), refutable)
            }
        })
    }

    fn bind_pat_names(&mut self, names: PatNames) {
        for (n, s) in names {
            self.bind_local(&n, s, None);
        }
    }

    /// Compiles a pattern and brings its names into scope (also reported in `named`).
    fn pat_in_scope(
        &mut self,
        p: &Pattern,
        named: &mut Vec<(String, Slot)>,
    ) -> CResult<(Pat, bool)> {
        let mut names = Vec::new();
        let r = self.pat(p, &mut names)?;
        named.extend(names.iter().cloned());
        self.bind_pat_names(names);
        Ok(r)
    }

    /// A function parameter: a plain name is bound to its slot; other patterns destructure it.
    pub(crate) fn param(&mut self, slot: Slot, p: &Pattern) -> CResult<Option<Binder>> {
        match &p.kind {
            PatKind::Var(n) => {
                self.bind_local(n, slot, None);
                Ok(None)
            }
            PatKind::Any | PatKind::Unit => Ok(None),
            PatKind::Annot(inner, _) => self.param(slot, inner),
            _ => {
                let (pat, refutable) = self.pat_in_scope(p, &mut Vec::new())?;
                Ok(Some(Binder::Pattern {
                    pat,
                    refutable,
                    pos: p.pos,
                }))
            }
        }
    }

    /// Whether `arms`, matched against one value, are exhaustive and the last has no guard.
    pub(crate) fn last_untested(&self, arms: &[crate::ast::Arm]) -> bool {
        arms.last().is_some_and(|last| last.guard.is_none())
            && crate::exhaustive::exhaustive(
                self.typing,
                arms.iter().map(|a| (&a.pat, a.guard.is_some())),
            )
    }

    pub(crate) fn arms(&mut self, arms: &[crate::ast::Arm]) -> CResult<Box<[crate::ir::Arm]>> {
        let mut out = Vec::new();
        for arm in arms {
            let mark = self.scope.len();
            let (pat, _) = self.pat_in_scope(&arm.pat, &mut Vec::new())?;
            let guard = arm.guard.as_ref().map(|g| self.code(g)).transpose()?;
            let body = self.code(&arm.body)?;
            self.scope.truncate(mark);
            out.push(crate::ir::Arm { pat, guard, body });
        }
        Ok(out.into())
    }

    pub(crate) fn match_expr(
        &mut self,
        e: &Expr,
        scrutinee: &Expr,
        arms: &[crate::ast::Arm],
    ) -> CResult<Out> {
        let ExprKind::Tuple(items) = &scrutinee.kind else {
            let scrutinee = self.code(scrutinee)?;
            let last_untested = self.last_untested(arms);
            let arms = self.arms(arms)?;
            return Ok(Out::Code(Code::Match(Box::new(Match {
                scrutinee,
                arms,
                handlers: Box::new([]),
                pos: e.pos,
                last_untested,
                resolve: 0,
            }))));
        };
        // `match (a, b) with …`: the components are matched directly, as in native code.
        let components = items
            .iter()
            .map(|i| self.code(i))
            .collect::<CResult<Box<[Code]>>>()?;
        let slots: Box<[Slot]> = items.iter().map(|_| self.new_slot()).collect();
        let mut out = Vec::new();
        for arm in arms {
            let mark = self.scope.len();
            let mut names = Vec::new();
            let pat = match tuple_alternatives(&arm.pat, items.len()) {
                Some(alternatives) => {
                    let mut compiled = Vec::new();
                    for alt in alternatives {
                        let mut pats = Vec::new();
                        for p in alt {
                            pats.push(match p {
                                Some(p) => self.pat(p, &mut names)?.0,
                                None => Pat::Any,
                            });
                        }
                        compiled.push(pats.into_boxed_slice());
                    }
                    TupleArmPat::Components(compiled)
                }
                None => TupleArmPat::Whole(self.pat(&arm.pat, &mut names)?.0),
            };
            self.bind_pat_names(names);
            let guard = arm.guard.as_ref().map(|g| self.code(g)).transpose()?;
            let body = self.code(&arm.body)?;
            self.scope.truncate(mark);
            out.push(TupleArm { pat, guard, body });
        }
        Ok(Out::Code(Code::MatchTuple(Box::new(MatchTuple {
            components,
            slots,
            arms: out.into(),
            pos: e.pos,
            last_untested: self.last_untested(arms),
        }))))
    }

    /// One non-recursive binding, split into simple bindings: its right-hand side compiled in
    /// the outer scope, and what to bind once all right-hand sides of the `let` are compiled.
    fn let_parts(
        &mut self,
        pat: &Pattern,
        expr: &Expr,
        inline: Inline,
        out: &mut Vec<PendingBinding>,
    ) -> CResult<()> {
        let pat = strip_annot(pat);
        if let (PatKind::Tuple(ps), ExprKind::Tuple(es)) = (&pat.kind, &expr.kind) {
            if ps.len() == es.len() {
                // `let (a, b) = (x, y)`: no tuple is built; each component is a binding.
                for (p, e) in ps.iter().zip(es) {
                    self.let_parts(p, e, Inline::Default, out)?;
                }
                return Ok(());
            }
        }
        let is_function = Compiler::function_parts(expr).is_some();
        let (value, closed_fun) = if is_function {
            let name = match &pat.kind {
                PatKind::Var(n) => n.as_str(),
                _ => "fun",
            };
            self.lambda(expr, name, inline)?
        } else {
            (self.expr(expr)?, None)
        };
        // `let push = add` (queue.ml): Closure's approximation of `push` is `add`'s, so a call
        // through `push` is a direct call of `add`.
        let (closed_fun, arity) = match (&value, &expr.kind) {
            (Out::Code(Code::ClosedFun(fid)), ExprKind::Var(name)) if closed_fun.is_none() => {
                (Some(*fid), self.lookup(name).and_then(|entry| entry.arity))
            }
            _ => (closed_fun, Compiler::function_arity(expr)),
        };
        let counter = match &pat.kind {
            _ if is_function => Some(Counter::LetLambda),
            PatKind::Tuple(_) => None,
            _ => Some(Counter::LetData),
        };
        out.push(PendingBinding {
            pat: pat.clone(),
            value,
            closed_fun,
            arity,
            counter,
        });
        Ok(())
    }

    /// Binds pending bindings into scope, returning their binders, values and counters; the
    /// names bound and their slots are added to `named`.
    fn bind_pending(
        &mut self,
        pending: Vec<PendingBinding>,
        named: &mut Vec<(String, Slot)>,
    ) -> CResult<Vec<(Binder, Code, Option<Counter>)>> {
        let mut out = Vec::new();
        for b in pending {
            let binder = match &b.pat.kind {
                PatKind::Var(name) => {
                    let slot = self.new_slot();
                    named.push((name.clone(), slot));
                    let bound = match (&b.value, b.closed_fun) {
                        (Out::Const(v), _) => Some(Bound::Const(v.clone())),
                        (_, Some(fid)) => Some(Bound::ClosedFun(fid)),
                        _ => None,
                    };
                    match bound {
                        Some(bound) => self.scope.push(ScopeEntry {
                            name: name.clone(),
                            bound,
                            arity: b.arity,
                        }),
                        None => self.bind_local(name, slot, b.arity),
                    }
                    Binder::Slot(slot)
                }
                _ => {
                    let (pat, refutable) = self.pat_in_scope(&b.pat, named)?;
                    Binder::Pattern {
                        pat,
                        refutable,
                        pos: b.pat.pos,
                    }
                }
            };
            let value = self.lower(b.value);
            out.push((binder, value, b.counter));
        }
        Ok(out)
    }

    pub(crate) fn let_in(&mut self, bindings: &[Binding], body: &Expr) -> CResult<Out> {
        if let Some(out) = self.eliminated_ref(bindings, body)? {
            return Ok(out);
        }
        let mark = self.scope.len();
        let mut pending = Vec::new();
        for b in bindings {
            self.let_parts(&b.pat, &b.expr, b.inline, &mut pending)?;
        }
        let bound = self.bind_pending(pending, &mut Vec::new())?;
        let mut code = self.code(body)?;
        self.scope.truncate(mark);
        for (binder, value, counter) in bound.into_iter().rev() {
            code = Code::Let(Box::new(Let {
                binder,
                value,
                counter,
                body: code,
                float_var: false,
            }));
        }
        Ok(Out::Code(code))
    }

    /// Compiles a `let rec` group and leaves its names in scope for what follows.
    pub(crate) fn rec_group(&mut self, bindings: &[Binding], toplevel: bool) -> CResult<RecGroup> {
        let names: Vec<&str> = bindings
            .iter()
            .map(|b| match &strip_annot(&b.pat).kind {
                PatKind::Var(n) => Ok(n.as_str()),
                _ => err(b.pos, "`let rec` binds names only"),
            })
            .collect::<CResult<_>>()?;
        let mut free = std::collections::BTreeSet::new();
        for b in bindings {
            let (params, body) = Compiler::function_parts(&b.expr).ok_or_else(|| CompileError {
                pos: b.expr.pos,
                message: "unsupported: `let rec` of a non-function value".into(),
            })?;
            free.extend(match body {
                FunBody::Expr(body) => fv::of_function(params, body),
                FunBody::Arms(_) => fv::of_function(params, &b.expr),
            });
        }
        let closed = free
            .iter()
            .all(|n| names.contains(&n.as_str()) || self.is_static_name(n));
        let fids: Vec<FunId> = bindings.iter().map(|_| self.reserve()).collect();
        let inner_depth = self.depth() + 1;
        let mark = self.scope.len();
        for ((b, name), &fid) in bindings.iter().zip(&names).zip(&fids) {
            let bound = if closed {
                Bound::OwnClosed {
                    fid,
                    depth: inner_depth,
                    id: self.new_binding_id(),
                }
            } else {
                Bound::Sibling {
                    fid,
                    depth: inner_depth,
                    id: self.new_binding_id(),
                }
            };
            self.scope.push(ScopeEntry {
                name: name.to_string(),
                bound,
                arity: Compiler::function_arity(&b.expr),
            });
        }
        self.tables.push(CaptureTable {
            allocated: !closed,
            ..CaptureTable::default()
        });
        let table = self.tables.len() - 1;
        // A sibling's body may call a tupled member compiled after it.
        for (b, &fid) in bindings.iter().zip(&fids) {
            if Compiler::tupled_arity(&b.expr).is_some() {
                self.tupled.insert(fid);
            }
        }
        for ((b, name), &fid) in bindings.iter().zip(&names).zip(&fids) {
            let (params, body) = Compiler::function_parts(&b.expr).expect("checked above");
            self.function(fid, name, params, body, b.expr.pos, table)?;
            self.set_inline(fid, b.inline);
        }
        self.scope.truncate(mark);
        let captures: Box<[Code]> = std::mem::take(&mut self.tables[table].loads).into();
        let mut funs = Vec::new();
        for ((b, name), &fid) in bindings.iter().zip(&names).zip(&fids) {
            let slot = self.new_slot();
            let arity = Compiler::function_arity(&b.expr);
            if captures.is_empty() {
                self.scope.push(ScopeEntry {
                    name: name.to_string(),
                    bound: Bound::ClosedFun(fid),
                    arity,
                });
            } else if toplevel {
                self.scope.push(ScopeEntry {
                    name: name.to_string(),
                    bound: Bound::Global(slot),
                    arity,
                });
            } else {
                self.bind_local(name, slot, arity);
            }
            funs.push((slot, fid));
        }
        Ok(RecGroup {
            funs: funs.into(),
            captures,
        })
    }

    /// Compiles a top-level `let`; top-level names are globals, never captured.
    fn toplevel_let(
        &mut self,
        bindings: &[Binding],
        named: &mut Vec<(String, Slot)>,
    ) -> CResult<Vec<TopItem>> {
        let mark = self.scope.len();
        let mut pending = Vec::new();
        for b in bindings {
            self.let_parts(&b.pat, &b.expr, b.inline, &mut pending)?;
        }
        let bound = self.bind_pending(pending, named)?;
        for entry in &mut self.scope[mark..] {
            if let Bound::Local { slot, .. } = entry.bound {
                entry.bound = Bound::Global(slot);
            }
        }
        Ok(bound
            .into_iter()
            .map(|(binder, value, counter)| TopItem::Let(binder, value, counter))
            .collect())
    }
}

struct PendingBinding {
    pat: Pattern,
    value: Out,
    closed_fun: Option<FunId>,
    arity: Option<u32>,
    counter: Option<Counter>,
}

fn strip_annot(p: &Pattern) -> &Pattern {
    match &p.kind {
        PatKind::Annot(inner, _) => strip_annot(inner),
        _ => p,
    }
}

/// The component patterns of a pattern matched against an n-tuple built in place
/// (`None` for a wildcard component), one vector per or-alternative; `None` if the pattern
/// needs the tuple as a value.
fn tuple_alternatives(p: &Pattern, n: usize) -> Option<Vec<Vec<Option<&Pattern>>>> {
    match &p.kind {
        PatKind::Tuple(items) if items.len() == n => Some(vec![items.iter().map(Some).collect()]),
        PatKind::Any => Some(vec![vec![None; n]]),
        PatKind::Annot(inner, _) => tuple_alternatives(inner, n),
        PatKind::Or(a, b) => {
            let mut alts = tuple_alternatives(a, n)?;
            alts.extend(tuple_alternatives(b, n)?);
            Some(alts)
        }
        _ => None,
    }
}

/// Compiles a whole program (the prelude's items first).
pub(crate) fn compile_program(
    items: &[Item],
    modules: &[Option<String>],
    prelude_items: usize,
    typing: &Typing,
) -> CResult<Compiled> {
    let mut c = Compiler::new(typing);
    c.shared = crate::shared_checks::analyse(items, typing);
    c.reused_quotients = crate::shared_quotients::analyse(items, typing);
    let mut top = Vec::new();
    let mut prelude_top = 0;
    let mut globals_by_name = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        c.module = modules.get(i).cloned().flatten();
        c.library = i < prelude_items;
        let mut named = Vec::new();
        match item {
            Item::Type(_) | Item::Exception(_) => {}
            Item::Expr(e) => {
                let code = c.code(e)?;
                top.push(TopItem::Expr(code));
            }
            Item::Let {
                rec_: true,
                bindings,
                ..
            } => {
                let group = c.rec_group(bindings, true)?;
                for (b, (slot, _)) in bindings.iter().zip(group.funs.iter()) {
                    if let PatKind::Var(n) = &strip_annot(&b.pat).kind {
                        named.push((n.clone(), *slot));
                    }
                }
                top.push(TopItem::LetRec(group));
            }
            Item::Let {
                rec_: false,
                bindings,
                ..
            } => top.extend(c.toplevel_let(bindings, &mut named)?),
        }
        globals_by_name.extend(named);
        if i + 1 == prelude_items {
            prelude_top = top.len();
        }
    }
    let mut exception_names = vec![String::new(); typing.types.exception_count as usize];
    for ctor in typing.types.ctors.iter().filter(|k| k.exception) {
        exception_names[ctor.tag as usize] = ctor.name.clone();
    }
    let toplevel_frame = c.ctxs[0].next_slot;
    Ok(Compiled {
        funs: c.finish_funs(),
        statics: std::mem::take(&mut c.statics),
        items: top,
        toplevel_frame,
        prelude_items: prelude_top,
        globals_by_name,
        exception_names,
    })
}
