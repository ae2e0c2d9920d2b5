//! Typing of declarations (variant types, abbreviations, exceptions, the built-in
//! constructors and primitives), of type expressions, and of patterns.

use crate::ast::*;
use crate::infer::{err, Checker, TResult, TypeDef};
use crate::prims;
use crate::types::*;
use std::collections::HashMap;

impl Checker {
    pub(crate) fn declare_builtin_ctors(&mut self) {
        let a = self.t.add(TyNode::Var {
            level: GENERIC,
            link: None,
        });
        let list_a = self.t.con(LIST, vec![a]);
        self.add_ctor("[]", LIST, vec![], list_a, 0, true, false);
        // `::` is never looked up by name (the parser builds `Cons` nodes), but the list type
        // must know it has a non-constant constructor: lists are not immediate.
        self.add_ctor("::", LIST, vec![a, list_a], list_a, 0, false, false);
        let b = self.t.add(TyNode::Var {
            level: GENERIC,
            link: None,
        });
        let opt_b = self.t.con(OPTION, vec![b]);
        self.add_ctor("None", OPTION, vec![], opt_b, 0, true, false);
        self.add_ctor("Some", OPTION, vec![b], opt_b, 0, false, false);
        // Predefined exceptions, in the order of the runtime's own table.
        let string = self.t.con(STRING, vec![]);
        let int = self.t.con(INT, vec![]);
        let match_args = self.t.add(TyNode::Tuple(vec![string, int, int]));
        for (name, args) in [
            ("Out_of_memory", vec![]),
            ("Sys_error", vec![string]),
            ("Failure", vec![string]),
            ("Invalid_argument", vec![string]),
            ("End_of_file", vec![]),
            ("Division_by_zero", vec![]),
            ("Not_found", vec![]),
            ("Match_failure", vec![match_args]),
            ("Stack_overflow", vec![]),
            ("Exit", vec![]),
            ("Assert_failure", vec![match_args]),
        ] {
            self.add_exception(name, args);
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn add_ctor(
        &mut self,
        name: &str,
        tycon: TyCon,
        args: Vec<Ty>,
        result: Ty,
        tag: u32,
        constant: bool,
        exception: bool,
    ) -> CtorId {
        let id = self.t.ctors.len() as CtorId;
        self.t.ctors.push(CtorInfo {
            name: name.into(),
            tycon,
            args,
            result,
            tag,
            constant,
            exception,
            inline_record: None,
        });
        self.t.tycons[tycon as usize].ctors.push(id);
        self.ctor_names.insert(name.into(), id);
        id
    }

    pub(crate) fn add_exception(&mut self, name: &str, args: Vec<Ty>) -> CtorId {
        let exn = self.t.con(EXN, vec![]);
        let tag = self.t.exception_count;
        self.t.exception_count += 1;
        let constant = args.is_empty();
        self.add_ctor(name, EXN, args, exn, tag, constant, true)
    }

    pub(crate) fn declare_prims(&mut self) {
        for p in prims::PRIMS {
            let toks = crate::lexer::tokenize(p.signature).expect("primitive signatures lex");
            let mut parser = crate::parser::Parser::new(&toks);
            let texpr = parser.type_expr().expect("primitive signatures parse");
            let mut vars = HashMap::new();
            let ty = self
                .convert_type(&texpr, &mut vars, GENERIC)
                .expect("primitive signatures are well-formed");
            self.env.push((p.name.to_string(), ty));
        }
    }

    /// Converts a type expression; `vars` maps named variables (created at `level` when new).
    pub(crate) fn convert_type(
        &mut self,
        te: &TypeExpr,
        vars: &mut HashMap<String, Ty>,
        level: u32,
    ) -> TResult<Ty> {
        Ok(match &te.kind {
            TypeExprKind::Var(v) => *vars.entry(v.clone()).or_insert_with(|| {
                self.t.nodes.push(TyNode::Var { level, link: None });
                (self.t.nodes.len() - 1) as Ty
            }),
            TypeExprKind::Wildcard => self.t.var(level),
            TypeExprKind::Arrow(a, b) => {
                let a = self.convert_type(a, vars, level)?;
                let b = self.convert_type(b, vars, level)?;
                self.t.arrow(a, b)
            }
            TypeExprKind::Tuple(parts) => {
                let ts = parts
                    .iter()
                    .map(|p| self.convert_type(p, vars, level))
                    .collect::<TResult<Vec<_>>>()?;
                self.t.add(TyNode::Tuple(ts))
            }
            TypeExprKind::Con(name, args) => {
                let arg_tys = args
                    .iter()
                    .map(|a| self.convert_type(a, vars, level))
                    .collect::<TResult<Vec<_>>>()?;
                match self.type_names.get(name).cloned() {
                    None => return err(te.pos, format!("unbound type constructor {name}")),
                    Some(TypeDef::Con(c)) => {
                        let arity = self.t.tycons[c as usize].arity;
                        if arity != arg_tys.len() {
                            return err(te.pos, format!("the type constructor {name} expects {arity} argument(s), but is given {}", arg_tys.len()));
                        }
                        self.t.con(c, arg_tys)
                    }
                    Some(TypeDef::Alias { params, body }) => {
                        if params.len() != arg_tys.len() {
                            return err(
                                te.pos,
                                format!(
                                    "the type {name} expects {} argument(s), but is given {}",
                                    params.len(),
                                    arg_tys.len()
                                ),
                            );
                        }
                        let mut inner: HashMap<String, Ty> =
                            params.into_iter().zip(arg_tys).collect();
                        self.convert_type(&body, &mut inner, level)?
                    }
                }
            }
        })
    }

    pub(crate) fn type_decls(&mut self, decls: &[TypeDecl]) -> TResult<()> {
        // Names first, so that the declarations may refer to each other.
        let mut cons = Vec::new();
        for d in decls {
            match &d.body {
                TypeDeclBody::Variant(_) | TypeDeclBody::Record(_) => {
                    let c = self.t.tycons.len() as TyCon;
                    self.t.tycons.push(TyConInfo {
                        name: d.name.clone(),
                        arity: d.params.len(),
                        ctors: Vec::new(),
                    });
                    self.type_names.insert(d.name.clone(), TypeDef::Con(c));
                    cons.push(Some(c));
                }
                TypeDeclBody::Alias(body) => {
                    if type_mentions(body, &d.name) {
                        return err(d.pos, format!("the type abbreviation {} is cyclic", d.name));
                    }
                    self.type_names.insert(
                        d.name.clone(),
                        TypeDef::Alias {
                            params: d.params.clone(),
                            body: body.clone(),
                        },
                    );
                    cons.push(None);
                }
            }
        }
        for (d, c) in decls.iter().zip(cons) {
            if let (Some(c), TypeDeclBody::Record(fields)) = (c, &d.body) {
                self.record_decl(c, d, fields)?;
                continue;
            }
            let (Some(c), TypeDeclBody::Variant(ctors)) = (c, &d.body) else {
                continue;
            };
            let mut params = HashMap::new();
            let mut param_tys = Vec::new();
            for p in &d.params {
                if params.contains_key(p) {
                    return err(
                        d.pos,
                        format!("the type parameter '{p} occurs several times"),
                    );
                }
                let v = self.t.add(TyNode::Var {
                    level: GENERIC,
                    link: None,
                });
                params.insert(p.clone(), v);
                param_tys.push(v);
            }
            let result = self.t.con(c, param_tys);
            let (mut constant_tag, mut block_tag) = (0, 0);
            for cd in ctors {
                let mut vars = params.clone();
                let args = cd
                    .args
                    .iter()
                    .map(|a| self.convert_type(a, &mut vars, GENERIC))
                    .collect::<TResult<Vec<_>>>()?;
                if vars.len() != params.len() {
                    return err(
                        cd.pos,
                        format!(
                            "constructor {} uses a type variable that is not a parameter of {}",
                            cd.name, d.name
                        ),
                    );
                }
                let constant = args.is_empty();
                let tag = if constant {
                    &mut constant_tag
                } else {
                    &mut block_tag
                };
                if !constant && *tag >= 246 {
                    return err(cd.pos, "too many non-constant constructors (at most 246)");
                }
                let id = self.add_ctor(&cd.name, c, args, result, *tag, constant, false);
                if let Some(fields) = &cd.inline_record {
                    let record = self.inline_record_decl(d, cd, fields)?;
                    self.t.ctors[id as usize].inline_record = Some(record);
                }
                *tag += 1;
            }
        }
        Ok(())
    }

    pub(crate) fn exception_decl(&mut self, cd: &ConstrDecl) -> TResult<()> {
        if cd.inline_record.is_some() {
            // Their block holds the exception's identity before the fields.
            return err(cd.pos, "unsupported: an exception with an inline record");
        }
        let mut vars = HashMap::new();
        let args = cd
            .args
            .iter()
            .map(|a| self.convert_type(a, &mut vars, GENERIC))
            .collect::<TResult<Vec<_>>>()?;
        if !vars.is_empty() {
            return err(
                cd.pos,
                format!(
                    "the exception {} has a type variable in its argument",
                    cd.name
                ),
            );
        }
        self.add_exception(&cd.name, args);
        Ok(())
    }

    /// Types pattern `p` against `expected`, collecting the variables it binds.
    pub(crate) fn pattern(
        &mut self,
        p: &Pattern,
        expected: Ty,
        names: &mut Vec<(String, Ty, Pos)>,
    ) -> TResult<()> {
        let found = match &p.kind {
            PatKind::Any => return Ok(()),
            PatKind::Var(n) => {
                names.push((n.clone(), expected, p.pos));
                return Ok(());
            }
            PatKind::Int(_) => self.prim_ty(INT),
            PatKind::Float(_) => self.prim_ty(FLOAT),
            PatKind::Str(_) => self.prim_ty(STRING),
            PatKind::Char(_) => self.prim_ty(CHAR),
            PatKind::Bool(_) => self.prim_ty(BOOL),
            PatKind::Unit => self.prim_ty(UNIT),
            PatKind::Nil => {
                let v = self.t.var(self.level);
                self.t.con(LIST, vec![v])
            }
            PatKind::Cons(h, tl) => {
                let elem = self.t.var(self.level);
                let list = self.t.con(LIST, vec![elem]);
                self.expect_pat(p.pos, list, expected)?;
                self.pattern(h, elem, names)?;
                return self.pattern(tl, list, names);
            }
            PatKind::List(items) => {
                let elem = self.t.var(self.level);
                let list = self.t.con(LIST, vec![elem]);
                self.expect_pat(p.pos, list, expected)?;
                for i in items {
                    self.pattern(i, elem, names)?;
                }
                return Ok(());
            }
            PatKind::Tuple(items) => {
                let ts: Vec<Ty> = items.iter().map(|_| self.t.var(self.level)).collect();
                let tuple = self.t.add(TyNode::Tuple(ts.clone()));
                self.expect_pat(p.pos, tuple, expected)?;
                for (i, t) in items.iter().zip(ts) {
                    self.pattern(i, t, names)?;
                }
                return Ok(());
            }
            PatKind::Constr(name, arg) => {
                let (id, args, result) = self.ctor(name, p.pos, p.id)?;
                self.expect_pat(p.pos, result, expected)?;
                if let Some(record) = self.t.ctors[id as usize].inline_record {
                    return self.inline_record_pattern(
                        p.pos,
                        name,
                        record,
                        result,
                        arg.as_deref(),
                        names,
                    );
                }
                let wildcard_all =
                    args.len() > 1 && matches!(arg.as_deref().map(|a| &a.kind), Some(PatKind::Any));
                if wildcard_all {
                    return Ok(()); // `C _` matches every argument of a multi-argument constructor
                }
                let parts =
                    self.ctor_args(name, p.pos, args.len(), arg.as_deref(), |a| match &a.kind {
                        PatKind::Tuple(items) => Some(&items[..]),
                        _ => None,
                    })?;
                for (part, ty) in parts.into_iter().zip(args) {
                    self.pattern(part, ty, names)?;
                }
                return Ok(());
            }
            PatKind::Or(a, b) => {
                let mut left = Vec::new();
                let mut right = Vec::new();
                self.pattern(a, expected, &mut left)?;
                self.pattern(b, expected, &mut right)?;
                let mut ln: Vec<&String> = left.iter().map(|(n, _, _)| n).collect();
                let mut rn: Vec<&String> = right.iter().map(|(n, _, _)| n).collect();
                ln.sort();
                rn.sort();
                if ln != rn {
                    return err(
                        p.pos,
                        "both sides of this or-pattern must bind the same variables",
                    );
                }
                for (n, t, pos) in &right {
                    let (_, lt, _) = left.iter().find(|(m, _, _)| m == n).expect("same names");
                    self.expect_pat(*pos, *t, *lt)?;
                }
                names.extend(left);
                return Ok(());
            }
            PatKind::As(inner, name) => {
                self.pattern(inner, expected, names)?;
                names.push((name.clone(), expected, p.pos));
                return Ok(());
            }
            PatKind::Record(fields) => {
                return self.record_pattern(p, fields, expected, None, names)
            }
            PatKind::Annot(inner, te) => {
                let mut vars = std::mem::take(&mut self.annot_vars);
                let t = self.convert_type(te, &mut vars, self.level);
                self.annot_vars = vars;
                let t = t?;
                self.expect_pat(p.pos, t, expected)?;
                return self.pattern(inner, t, names);
            }
        };
        self.expect_pat(p.pos, found, expected)
    }

    pub(crate) fn expect_pat(&mut self, pos: Pos, found: Ty, expected: Ty) -> TResult<()> {
        if self.t.unify(found, expected).is_err() {
            let (f, x) = self.show_pair(found, expected);
            return err(pos, format!("this pattern matches values of type {f} but a pattern was expected which matches values of type {x}"));
        }
        Ok(())
    }
}

fn type_mentions(te: &TypeExpr, name: &str) -> bool {
    match &te.kind {
        TypeExprKind::Var(_) | TypeExprKind::Wildcard => false,
        TypeExprKind::Con(n, args) => n == name || args.iter().any(|a| type_mentions(a, name)),
        TypeExprKind::Arrow(a, b) => type_mentions(a, name) || type_mentions(b, name),
        TypeExprKind::Tuple(ts) => ts.iter().any(|t| type_mentions(t, name)),
    }
}

/// The value restriction: only syntactic values are generalised.
pub(crate) fn is_nonexpansive(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::Char(_)
        | ExprKind::Bool(_)
        | ExprKind::Unit => true,
        ExprKind::Var(_) | ExprKind::Fun { .. } | ExprKind::Function(_) => true,
        ExprKind::Constr(_, arg) => arg.as_deref().is_none_or(is_nonexpansive),
        ExprKind::Tuple(items) | ExprKind::List(items) => items.iter().all(is_nonexpansive),
        ExprKind::Cons(a, b) => is_nonexpansive(a) && is_nonexpansive(b),
        ExprKind::Annot(inner, _) => is_nonexpansive(inner),
        ExprKind::Let { bindings, body, .. } => {
            bindings.iter().all(|b| is_nonexpansive(&b.expr)) && is_nonexpansive(body)
        }
        _ => false,
    }
}
