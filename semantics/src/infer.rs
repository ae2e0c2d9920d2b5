//! Hindley–Milner type inference with let-polymorphism (value restriction), user variant
//! types with parameters, type abbreviations, annotations, and exceptions as `exn`.
//!
//! Besides rejecting ill-typed programs before they run, inference decides what the compiler
//! decides from types: which comparisons are word compares, float compares or calls to the
//! polymorphic `caml_compare` ([`Typing::comparisons`]), and which constructor each name
//! denotes at each use ([`Typing::ctor_of`]).
//!
//! Declarations, type expressions and patterns are typed in [`crate::infer_decl`].

use crate::ast::*;
use crate::infer_decl::is_nonexpansive;
use crate::prims;
use crate::types::*;
use std::collections::HashMap;

#[derive(Debug)]
pub(crate) struct TypeError {
    pub pos: Pos,
    pub message: String,
}

pub(crate) type TResult<T> = Result<T, TypeError>;

/// What the compiler needs from typing.
pub(crate) struct Typing {
    pub types: Types,
    /// Operand class of each structural comparison (`BinOp` nodes, and `Var` nodes naming
    /// `compare` or a comparison section).
    pub comparisons: HashMap<NodeId, CmpClass>,
    /// The constructor denoted by each `Constr` expression or pattern.
    pub ctor_of: HashMap<NodeId, CtorId>,
    /// Type and position of each top-level binding, by name (the last one wins), for the
    /// program-shape check.
    pub toplevel: HashMap<String, (Ty, Pos)>,
    /// The record type of each record expression, field access and record pattern.
    pub record_of: HashMap<NodeId, TyCon>,
    /// The representation of the values an array or reference node holds, or a mutable field
    /// receives (see [`crate::infer_imperative`]).
    pub kinds: HashMap<NodeId, ValueKind>,
}

pub(crate) struct Checker {
    pub t: Types,
    pub(crate) level: u32,
    pub(crate) env: Vec<(String, Ty)>,
    pub(crate) ctor_names: HashMap<String, CtorId>,
    pub(crate) type_names: HashMap<String, TypeDef>,
    /// Named type variables of annotations in the current top-level item.
    pub(crate) annot_vars: HashMap<String, Ty>,
    pub(crate) pending_comparisons: Vec<(NodeId, Ty)>,
    /// `x = C`, `x <> C` with `C` a constant constructor: word compares whatever the type.
    pub(crate) constant_ctor_comparisons: Vec<NodeId>,
    pub(crate) ctor_of: HashMap<NodeId, CtorId>,
    pub(crate) toplevel: HashMap<String, (Ty, Pos)>,
    /// The record type each field name denotes (the last declared wins, as in OCaml).
    pub(crate) field_names: HashMap<String, TyCon>,
    pub(crate) record_of: HashMap<NodeId, TyCon>,
    pub(crate) pending_kinds: Vec<(NodeId, Ty)>,
    /// The Stdlib module whose code is being checked (`None`: the program's own).
    pub(crate) module: Option<String>,
}

#[derive(Clone)]
pub(crate) enum TypeDef {
    Con(TyCon),
    Alias { params: Vec<String>, body: TypeExpr },
}

pub(crate) fn err<T>(pos: Pos, message: impl Into<String>) -> TResult<T> {
    Err(TypeError {
        pos,
        message: message.into(),
    })
}

impl Checker {
    pub(crate) fn new() -> Self {
        let mut c = Checker {
            t: Types::new(),
            level: 1,
            env: Vec::new(),
            ctor_names: HashMap::new(),
            type_names: HashMap::new(),
            annot_vars: HashMap::new(),
            pending_comparisons: Vec::new(),
            constant_ctor_comparisons: Vec::new(),
            ctor_of: HashMap::new(),
            toplevel: HashMap::new(),
            field_names: HashMap::new(),
            record_of: HashMap::new(),
            pending_kinds: Vec::new(),
            module: None,
        };
        for (i, name) in [
            "int", "float", "bool", "unit", "string", "char", "exn", "list", "option", "array",
            "ref", "bytes",
        ]
        .iter()
        .enumerate()
        {
            c.type_names
                .insert(name.to_string(), TypeDef::Con(i as TyCon));
        }
        c.declare_builtin_ctors();
        c.declare_ref_record();
        c.declare_prims();
        c
    }

    pub(crate) fn finish(mut self) -> Typing {
        let mut comparisons = HashMap::new();
        for (id, ty) in std::mem::take(&mut self.pending_comparisons) {
            comparisons.insert(id, self.t.classify_comparison(ty));
        }
        for id in std::mem::take(&mut self.constant_ctor_comparisons) {
            comparisons.insert(id, CmpClass::Word);
        }
        let mut kinds = HashMap::new();
        for (id, ty) in std::mem::take(&mut self.pending_kinds) {
            kinds.insert(id, self.t.classify_value(ty));
        }
        Typing {
            types: self.t,
            comparisons,
            ctor_of: self.ctor_of,
            toplevel: self.toplevel,
            record_of: self.record_of,
            kinds,
        }
    }

    pub(crate) fn show_pair(&mut self, a: Ty, b: Ty) -> (String, String) {
        let mut names = HashMap::new();
        (self.t.show(a, &mut names), self.t.show(b, &mut names))
    }

    pub(crate) fn show(&mut self, a: Ty) -> String {
        self.t.show(a, &mut HashMap::new())
    }

    /// Unifies the type `found` of the expression at `pos` with `expected`.
    pub(crate) fn expect(&mut self, pos: Pos, found: Ty, expected: Ty) -> TResult<()> {
        match self.t.unify(found, expected) {
            Ok(()) => Ok(()),
            Err(e) => {
                let (f, x) = self.show_pair(found, expected);
                let why = match e {
                    UnifyError::Cyclic => " (the type would be cyclic)",
                    UnifyError::Mismatch => "",
                };
                err(pos, format!("this expression has type {f} but an expression was expected of type {x}{why}"))
            }
        }
    }

    pub(crate) fn prim_ty(&mut self, c: TyCon) -> Ty {
        self.t.con(c, vec![])
    }

    // ----- top-level items -----

    pub(crate) fn item(&mut self, item: &Item) -> TResult<()> {
        self.annot_vars.clear();
        match item {
            Item::Type(decls) => self.type_decls(decls),
            Item::Exception(cd) => self.exception_decl(cd),
            Item::Expr(e) => {
                self.level += 1;
                self.infer(e)?;
                self.level -= 1;
                Ok(())
            }
            Item::Let { rec_, bindings, .. } => {
                let bound = self.let_bindings(*rec_, bindings)?;
                for (name, ty, pos) in bound {
                    self.toplevel.insert(name.clone(), (ty, pos));
                    self.env.push((name, ty));
                }
                Ok(())
            }
        }
    }

    /// Types the bindings of a `let`, returning the names they bind with their (generalised)
    /// types; the caller brings them into scope.
    fn let_bindings(
        &mut self,
        rec_: bool,
        bindings: &[Binding],
    ) -> TResult<Vec<(String, Ty, Pos)>> {
        let mut bound = Vec::new();
        if rec_ {
            self.level += 1;
            let mark = self.env.len();
            let mut tys = Vec::new();
            for b in bindings {
                let PatKind::Var(name) = &b.pat.kind else {
                    return err(b.pos, "`let rec` binds names only");
                };
                if !matches!(b.expr.kind, ExprKind::Fun { .. } | ExprKind::Function(_)) {
                    return err(b.expr.pos, "unsupported: `let rec` of a non-function value");
                }
                let v = self.t.var(self.level);
                tys.push(v);
                self.env.push((name.clone(), v));
            }
            for (b, &v) in bindings.iter().zip(&tys) {
                let t = self.infer(&b.expr)?;
                self.expect(b.expr.pos, t, v)?;
            }
            self.env.truncate(mark);
            self.level -= 1;
            for (b, v) in bindings.iter().zip(tys) {
                self.t.generalize(v, self.level);
                if let PatKind::Var(name) = &b.pat.kind {
                    bound.push((name.clone(), v, b.pos));
                }
            }
            return Ok(bound);
        }
        for b in bindings {
            self.level += 1;
            let t = self.infer(&b.expr)?;
            let mut names = Vec::new();
            self.pattern(&b.pat, t, &mut names)?;
            self.level -= 1;
            if is_nonexpansive(&b.expr) {
                self.t.generalize(t, self.level);
            }
            for (name, ty, pos) in names {
                if bound.iter().any(|(n, _, _)| *n == name) {
                    return err(
                        pos,
                        format!("variable {name} is bound several times in this `let`"),
                    );
                }
                bound.push((name, ty, pos));
            }
        }
        Ok(bound)
    }

    pub(crate) fn lookup(&mut self, name: &str, pos: Pos) -> TResult<Ty> {
        let module = self.module.as_deref();
        match self.env.iter().rev().find(|(n, _)| binds(n, name, module)) {
            Some(&(_, ty)) => Ok(self.t.instantiate(ty, self.level)),
            None => err(
                pos,
                format!("unbound value {name}{}", unsupported_stdlib(name)),
            ),
        }
    }

    pub(crate) fn ctor(
        &mut self,
        name: &str,
        pos: Pos,
        node: NodeId,
    ) -> TResult<(CtorId, Vec<Ty>, Ty)> {
        let Some(&id) = self.ctor_names.get(name) else {
            return err(pos, format!("unbound constructor {name}"));
        };
        self.ctor_of.insert(node, id);
        let info = self.t.ctors[id as usize].clone();
        let mut map = HashMap::new();
        let args = info
            .args
            .iter()
            .map(|&a| self.t.instantiate_with(a, self.level, &mut map))
            .collect();
        let result = self.t.instantiate_with(info.result, self.level, &mut map);
        Ok((id, args, result))
    }

    /// Splits a constructor's argument into one expression per declared argument.
    pub(crate) fn ctor_args<'e, T>(
        &self,
        name: &str,
        pos: Pos,
        arity: usize,
        arg: Option<&'e T>,
        split: impl Fn(&'e T) -> Option<&'e [T]>,
    ) -> TResult<Vec<&'e T>> {
        match (arity, arg) {
            (0, None) => Ok(vec![]),
            (0, Some(_)) => err(pos, format!("the constructor {name} expects 0 argument(s), but is applied here to 1 argument(s)")),
            (_, None) => err(pos, format!("the constructor {name} expects {arity} argument(s), but is applied here to 0 argument(s)")),
            (1, Some(a)) => Ok(vec![a]),
            (n, Some(a)) => match split(a) {
                Some(parts) if parts.len() == n => Ok(parts.iter().collect()),
                Some(parts) => err(pos, format!("the constructor {name} expects {n} argument(s), but is applied here to {} argument(s)", parts.len())),
                None => err(pos, format!("the constructor {name} expects {n} argument(s), but is applied here to 1 argument(s)")),
            },
        }
    }

    pub(crate) fn infer(&mut self, e: &Expr) -> TResult<Ty> {
        Ok(match &e.kind {
            ExprKind::Int(_) => self.prim_ty(INT),
            ExprKind::Float(_) => self.prim_ty(FLOAT),
            ExprKind::Str(_) => self.prim_ty(STRING),
            ExprKind::Char(_) => self.prim_ty(CHAR),
            ExprKind::Bool(_) => self.prim_ty(BOOL),
            ExprKind::Unit => self.prim_ty(UNIT),
            ExprKind::Var(name) => {
                let ty = self.lookup(name, e.pos)?;
                let module = self.module.as_deref();
                let shadowed = self
                    .env
                    .iter()
                    .rev()
                    .position(|(n, _)| binds(n, name, module));
                let is_prim = shadowed
                    .map(|i| self.env.len() - 1 - i < prims::PRIMS.len())
                    .unwrap_or(false);
                if is_prim {
                    self.note_prim_kind(name, ty, e.id);
                }
                if is_prim && prims::lookup(name).is_some_and(|p| p.prim.is_type_directed()) {
                    let operand = self.t.var(self.level);
                    let rest = self.t.var(self.level);
                    let shape = self.t.arrow(operand, rest);
                    self.t.unify(ty, shape).ok();
                    self.pending_comparisons.push((e.id, operand));
                }
                ty
            }
            ExprKind::Constr(name, arg) => {
                let (id, args, result) = self.ctor(name, e.pos, e.id)?;
                if let Some(record) = self.t.ctors[id as usize].inline_record {
                    self.inline_record_expr(e.pos, name, record, args, arg.as_deref())?;
                    return Ok(result);
                }
                let parts =
                    self.ctor_args(name, e.pos, args.len(), arg.as_deref(), |a| match &a.kind {
                        ExprKind::Tuple(items) => Some(&items[..]),
                        _ => None,
                    })?;
                for (part, ty) in parts.into_iter().zip(args) {
                    self.check(part, ty)?;
                }
                result
            }
            ExprKind::Tuple(items) => {
                let ts = items
                    .iter()
                    .map(|i| self.infer(i))
                    .collect::<TResult<Vec<_>>>()?;
                self.t.add(TyNode::Tuple(ts))
            }
            ExprKind::List(items) => {
                let elem = self.t.var(self.level);
                for i in items {
                    self.check(i, elem)?;
                }
                self.t.con(LIST, vec![elem])
            }
            ExprKind::Cons(h, tl) => {
                let elem = self.infer(h)?;
                let list = self.t.con(LIST, vec![elem]);
                self.check(tl, list)?;
                list
            }
            ExprKind::App { func, args, .. } => {
                let mut fty = self.infer(func)?;
                for (i, arg) in args.iter().enumerate() {
                    let r = self.t.repr(fty);
                    let (param, result) = match self.t.nodes[r as usize].clone() {
                        TyNode::Arrow(p, res) => (p, res),
                        TyNode::Var { .. } => {
                            let (p, res) = (self.t.var(self.level), self.t.var(self.level));
                            let arrow = self.t.arrow(p, res);
                            self.t.unify(r, arrow).ok();
                            (p, res)
                        }
                        _ => {
                            let shown = self.show(fty);
                            let msg = if i == 0 {
                                format!("this expression has type {shown}; it is not a function, it cannot be applied")
                            } else {
                                format!("this function is applied to too many arguments (its result has type {shown})")
                            };
                            return err(func.pos, msg);
                        }
                    };
                    self.check(arg, param)?;
                    fty = result;
                }
                fty
            }
            ExprKind::BinOp(op, a, b) => self.binop(e, *op, a, b)?,
            ExprKind::UnOp(op, a) => {
                let c = if *op == UnOp::Neg { INT } else { FLOAT };
                let t = self.prim_ty(c);
                self.check(a, t)?;
                t
            }
            ExprKind::If(c, th, el) => {
                let b = self.prim_ty(BOOL);
                self.check(c, b)?;
                match el {
                    Some(el) => {
                        let t = self.infer(th)?;
                        self.check(el, t)?;
                        t
                    }
                    None => {
                        let u = self.prim_ty(UNIT);
                        self.check(th, u)?;
                        u
                    }
                }
            }
            ExprKind::Seq(a, b) => {
                self.infer(a)?;
                self.infer(b)?
            }
            ExprKind::Let {
                rec_,
                bindings,
                body,
            } => {
                let bound = self.let_bindings(*rec_, bindings)?;
                let mark = self.env.len();
                self.env.extend(bound.into_iter().map(|(n, t, _)| (n, t)));
                let t = self.infer(body)?;
                self.env.truncate(mark);
                t
            }
            ExprKind::Fun { params, body } => {
                let mark = self.env.len();
                let mut param_tys = Vec::new();
                let mut names = Vec::new();
                for p in params {
                    let v = self.t.var(self.level);
                    self.pattern(p, v, &mut names)?;
                    param_tys.push(v);
                }
                check_distinct(&names)?;
                self.env.extend(names.into_iter().map(|(n, t, _)| (n, t)));
                let mut t = self.infer(body)?;
                self.env.truncate(mark);
                for p in param_tys.into_iter().rev() {
                    t = self.t.arrow(p, t);
                }
                t
            }
            ExprKind::Function(arms) => {
                let arg = self.t.var(self.level);
                let res = self.t.var(self.level);
                self.arms(arms, arg, res)?;
                self.t.arrow(arg, res)
            }
            ExprKind::Match(scrutinee, arms) => {
                let arg = self.infer(scrutinee)?;
                let res = self.t.var(self.level);
                self.arms(arms, arg, res)?;
                res
            }
            ExprKind::Try(body, arms) => {
                let res = self.infer(body)?;
                let exn = self.prim_ty(EXN);
                self.arms(arms, exn, res)?;
                res
            }
            ExprKind::MatchExn(scrutinee, arms, handlers) => {
                let arg = self.infer(scrutinee)?;
                let res = self.t.var(self.level);
                self.arms(arms, arg, res)?;
                let exn = self.prim_ty(EXN);
                self.arms(handlers, exn, res)?;
                res
            }
            ExprKind::Annot(inner, te) => {
                let mut vars = std::mem::take(&mut self.annot_vars);
                let t = self.convert_type(te, &mut vars, self.level);
                self.annot_vars = vars;
                let t = t?;
                self.check(inner, t)?;
                t
            }
            ExprKind::Record(..)
            | ExprKind::Field(..)
            | ExprKind::SetField(..)
            | ExprKind::Array(_)
            | ExprKind::ArrayGet(..)
            | ExprKind::ArraySet(..)
            | ExprKind::For { .. }
            | ExprKind::While(..) => self.infer_imperative(e)?,
        })
    }

    pub(crate) fn check(&mut self, e: &Expr, expected: Ty) -> TResult<()> {
        let t = self.infer(e)?;
        self.expect(e.pos, t, expected)
    }

    fn binop(&mut self, e: &Expr, op: BinOp, a: &Expr, b: &Expr) -> TResult<Ty> {
        use BinOp::*;
        let (operand, result) = match op {
            Add | Sub | Mul | Div | Mod | Land | Lor | Lxor | Lsl | Lsr | Asr => {
                (self.prim_ty(INT), self.prim_ty(INT))
            }
            FAdd | FSub | FMul | FDiv => (self.prim_ty(FLOAT), self.prim_ty(FLOAT)),
            And | Or => (self.prim_ty(BOOL), self.prim_ty(BOOL)),
            Eq | Ne | Lt | Le | Gt | Ge | PhysEq | PhysNe => {
                let v = self.t.var(self.level);
                if matches!(op, Eq | Ne) && (self.is_constant_ctor(a) || self.is_constant_ctor(b)) {
                    self.constant_ctor_comparisons.push(e.id);
                } else if op.is_structural_comparison() {
                    self.pending_comparisons.push((e.id, v));
                }
                (v, self.prim_ty(BOOL))
            }
        };
        self.check(a, operand)?;
        self.check(b, operand)?;
        Ok(result)
    }

    /// Whether `e` is a constant constructor written out (`[]`, `None`, `Leaf`; not an
    /// exception): Translcore compiles `x = C` and `x <> C` to a word compare whatever `x`'s
    /// type (`has_constant_constructor` in 4.13's `Translprim.specialize_primitive`), as
    /// stack.ml's `is_empty s = (s.c = [])` runs: `cmpq $1`.
    fn is_constant_ctor(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Constr(name, None) => self.ctor_names.get(name).is_some_and(|&id| {
                let info = &self.t.ctors[id as usize];
                info.constant && !info.exception
            }),
            _ => false,
        }
    }

    fn arms(&mut self, arms: &[Arm], arg: Ty, res: Ty) -> TResult<()> {
        for arm in arms {
            let mut names = Vec::new();
            self.pattern(&arm.pat, arg, &mut names)?;
            check_distinct(&names)?;
            let mark = self.env.len();
            self.env.extend(names.into_iter().map(|(n, t, _)| (n, t)));
            if let Some(g) = &arm.guard {
                let b = self.prim_ty(BOOL);
                self.check(g, b)?;
            }
            self.check(&arm.body, res)?;
            self.env.truncate(mark);
        }
        Ok(())
    }
}

/// Why a well-known Stdlib name is not available in the subset.
fn unsupported_stdlib(name: &str) -> &'static str {
    match name {
        "print_string" | "print_int" | "print_endline" | "print_newline" | "print_float" | "print_char" => {
            " (input/output is not supported: `run` returns its result)"
        }
        "int_of_string" | "string_of_float" | "float_of_string" => " (string conversions are not supported)",
        "frexp" | "ldexp" | "modf" | "classify_float" | "float_of_string_opt" => {
            " (the float library's functions that return a pair, take an untagged int or return a variant are not supported; `floor`, `exp`, `sin`, `**`, `mod_float` and the other float-to-float ones are)"
        }
        _ if ["String.", "Bytes.", "Char.", "Int.", "Float."].iter().any(|m| name.starts_with(m)) => {
            " (String, Bytes, Char, Int and Float functions are read from the installed compiler's sources: this one is not defined there, or is an external with no primitive in the interpreter)"
        }
        _ => "",
    }
}

pub(crate) fn check_distinct(names: &[(String, Ty, Pos)]) -> TResult<()> {
    for (i, (n, _, pos)) in names.iter().enumerate() {
        if names[..i].iter().any(|(m, _, _)| m == n) {
            return err(
                *pos,
                format!("variable {n} is bound several times in this matching"),
            );
        }
    }
    Ok(())
}
