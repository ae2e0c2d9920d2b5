//! Typing records, arrays, references and loops.
//!
//! Besides the types, inference records what ocamlopt decides from them: the record type of
//! each record node ([`Typing::record_of`](crate::infer::Typing::record_of)), and the
//! representation of what an array holds or a mutable field receives
//! ([`Typing::kinds`](crate::infer::Typing::kinds)): whether an array is flat floats, whether a
//! store goes through the write barrier.

use crate::ast::*;
use crate::infer::{check_distinct, err, Checker, TResult};
use crate::types::*;
use std::collections::HashMap;

/// Primitives whose code depends on the type of what they hold: the element of an array, the
/// content of a reference (its type variable is `'a` in the signature).
const KIND_DIRECTED: &[&str] = &[
    "ref",
    "!",
    ":=",
    "Array.length",
    "Array.get",
    "Array.set",
    "Array.make",
    "Array.unsafe_get",
    "Array.unsafe_set",
];

impl Checker {
    /// `type 'a ref = { mutable contents : 'a }`, as in the Stdlib.
    pub(crate) fn declare_ref_record(&mut self) {
        let a = self.t.add(TyNode::Var {
            level: GENERIC,
            link: None,
        });
        self.t.records.insert(
            REF,
            RecordInfo {
                params: vec![a],
                fields: vec![FieldInfo {
                    name: "contents".into(),
                    ty: a,
                    mutable: true,
                }],
                flat_float: false,
            },
        );
        self.field_names.insert("contents".into(), REF);
    }

    /// Declares the fields of record type `c` (already named, so that fields may refer to it).
    pub(crate) fn record_decl(
        &mut self,
        c: TyCon,
        d: &TypeDecl,
        fields: &[FieldDecl],
    ) -> TResult<()> {
        let info = self.record_info(d, fields)?;
        for f in &info.fields {
            self.field_names.insert(f.name.clone(), c);
        }
        self.t.records.insert(c, info);
        Ok(())
    }

    /// The fields of a record type declared with `d`'s parameters.
    pub(crate) fn record_info(
        &mut self,
        d: &TypeDecl,
        fields: &[FieldDecl],
    ) -> TResult<RecordInfo> {
        let mut params = HashMap::new();
        let mut param_tys = Vec::new();
        for p in &d.params {
            let v = self.t.add(TyNode::Var {
                level: GENERIC,
                link: None,
            });
            params.insert(p.clone(), v);
            param_tys.push(v);
        }
        let mut infos = Vec::new();
        for f in fields {
            if infos.iter().any(|i: &FieldInfo| i.name == f.name) {
                return err(
                    f.pos,
                    format!("the field {} is defined several times", f.name),
                );
            }
            let mut vars = params.clone();
            let ty = self.convert_type(&f.ty, &mut vars, GENERIC)?;
            if vars.len() != params.len() {
                return err(
                    f.pos,
                    format!(
                        "the field {} uses a type variable that is not a parameter of {}",
                        f.name, d.name
                    ),
                );
            }
            infos.push(FieldInfo {
                name: f.name.clone(),
                ty,
                mutable: f.mutable,
            });
        }
        let flat_float = infos.iter().all(|f| {
            let t = self.t.repr(f.ty);
            matches!(self.t.nodes[t as usize], TyNode::Con(FLOAT, _))
        });
        Ok(RecordInfo {
            params: param_tys,
            fields: infos,
            flat_float,
        })
    }

    /// Checks each `name = value` of a record expression against the field of `declared` it
    /// names (once each), typed `tys`; returns the indices given. `owner` names the record
    /// type in errors.
    pub(crate) fn check_fields(
        &mut self,
        fields: &[(String, Expr)],
        declared: &[FieldInfo],
        tys: &[Ty],
        owner: &str,
    ) -> TResult<Vec<usize>> {
        let mut seen = Vec::new();
        for (name, value) in fields {
            let Some(i) = declared.iter().position(|f| &f.name == name) else {
                return err(
                    value.pos,
                    format!("the field {name} does not belong to {owner}"),
                );
            };
            if seen.contains(&i) {
                return err(
                    value.pos,
                    format!("the field {name} is defined several times"),
                );
            }
            seen.push(i);
            self.check(value, tys[i])?;
        }
        Ok(seen)
    }

    /// Notes the kind of `'a` for a primitive whose code depends on it.
    pub(crate) fn note_prim_kind(&mut self, name: &str, ty: Ty, node: NodeId) {
        if !KIND_DIRECTED.contains(&name) {
            return;
        }
        let Some(p) = crate::prims::lookup(name) else {
            return;
        };
        let toks = crate::lexer::tokenize(p.signature).expect("primitive signatures lex");
        let texpr = crate::parser::Parser::new(&toks)
            .type_expr()
            .expect("primitive signatures parse");
        let mut vars = HashMap::new();
        let Ok(shape) = self.convert_type(&texpr, &mut vars, self.level) else {
            return;
        };
        if self.t.unify(ty, shape).is_ok() {
            if let Some(&a) = vars.get("a") {
                self.pending_kinds.push((node, a));
            }
        }
    }

    /// The record type that `field` belongs to, instantiated: (type constructor, record type,
    /// field types, index of `field`).
    fn field(&mut self, field: &str, pos: Pos) -> TResult<(TyCon, Ty, Vec<Ty>, usize)> {
        let Some(&c) = self.field_names.get(field) else {
            return err(pos, format!("unbound record field {field}"));
        };
        Ok(self.record_field(c, field))
    }

    /// The record type `record.field` reads: the one `record`'s type is already known to be,
    /// when it has `field` (OCaml's type-directed disambiguation, the only way to reach an
    /// inline record's fields), else the last one declaring `field` ([`Self::field`]).
    fn field_of(
        &mut self,
        record: &Expr,
        field: &str,
        pos: Pos,
    ) -> TResult<(TyCon, Ty, Vec<Ty>, usize)> {
        let found = self.infer(record)?;
        let found_repr = self.t.repr(found);
        let known = match self.t.nodes[found_repr as usize] {
            TyNode::Con(c, _) => self
                .t
                .records
                .get(&c)
                .is_some_and(|r| r.fields.iter().any(|f| f.name == field))
                .then_some(c),
            _ => None,
        };
        let typed = match known {
            Some(c) => self.record_field(c, field),
            None => self.field(field, pos)?,
        };
        self.expect(record.pos, found, typed.1)?;
        Ok(typed)
    }

    /// Record type `c` instantiated, with its `field`'s index.
    pub(crate) fn record_field(&mut self, c: TyCon, field: &str) -> (TyCon, Ty, Vec<Ty>, usize) {
        let info = self.t.records[&c].clone();
        let mut map = HashMap::new();
        let params = info
            .params
            .iter()
            .map(|&p| self.t.instantiate_with(p, self.level, &mut map))
            .collect();
        let record = self.t.con(c, params);
        let tys = info
            .fields
            .iter()
            .map(|f| self.t.instantiate_with(f.ty, self.level, &mut map))
            .collect();
        let index = info
            .fields
            .iter()
            .position(|f| f.name == field)
            .expect("declared");
        (c, record, tys, index)
    }

    pub(crate) fn infer_imperative(&mut self, e: &Expr) -> TResult<Ty> {
        let int = self.prim_ty(INT);
        let unit = self.prim_ty(UNIT);
        Ok(match &e.kind {
            ExprKind::Record(fields, base) => {
                let Some((first, _)) = fields.first() else {
                    return err(e.pos, "a record needs at least one field");
                };
                let (c, record, tys, _) = self.field(first, e.pos)?;
                self.record_of.insert(e.id, c);
                let declared = self.t.records[&c].fields.clone();
                let seen = self.check_fields(
                    fields,
                    &declared,
                    &tys,
                    &format!("the record type of {first}"),
                )?;
                match base {
                    Some(b) => self.check(b, record)?,
                    None => missing_fields(e.pos, &declared, &seen)?,
                }
                record
            }
            ExprKind::Field(r, name) => {
                let (c, _, tys, i) = self.field_of(r, name, e.pos)?;
                self.record_of.insert(e.id, c);
                tys[i]
            }
            ExprKind::SetField(r, name, v) => {
                let (c, _, tys, i) = self.field_of(r, name, e.pos)?;
                if !self.t.records[&c].fields[i].mutable {
                    return err(e.pos, format!("the record field {name} is not mutable"));
                }
                self.record_of.insert(e.id, c);
                self.check(v, tys[i])?;
                self.pending_kinds.push((e.id, tys[i]));
                unit
            }
            ExprKind::Array(items) => {
                let elem = self.t.var(self.level);
                for i in items {
                    self.check(i, elem)?;
                }
                self.pending_kinds.push((e.id, elem));
                self.t.con(ARRAY, vec![elem])
            }
            ExprKind::ArrayGet(a, i) | ExprKind::ArraySet(a, i, _) => {
                let elem = self.t.var(self.level);
                let array = self.t.con(ARRAY, vec![elem]);
                self.check(a, array)?;
                self.check(i, int)?;
                self.pending_kinds.push((e.id, elem));
                match &e.kind {
                    ExprKind::ArraySet(_, _, v) => {
                        self.check(v, elem)?;
                        unit
                    }
                    _ => elem,
                }
            }
            ExprKind::For {
                var,
                from,
                until,
                body,
                ..
            } => {
                self.check(from, int)?;
                self.check(until, int)?;
                self.env.push((var.clone(), int));
                let r = self.infer(body);
                self.env.pop();
                r?;
                unit
            }
            ExprKind::While(cond, body) => {
                let b = self.prim_ty(BOOL);
                self.check(cond, b)?;
                self.infer(body)?;
                unit
            }
            _ => unreachable!("only imperative expressions come here"),
        })
    }

    /// A record pattern against `expected`, collecting the variables it binds. Its record type
    /// is `owner` when given (an inline record's), else its first field's.
    pub(crate) fn record_pattern(
        &mut self,
        p: &Pattern,
        fields: &[(String, Pattern)],
        expected: Ty,
        owner: Option<TyCon>,
        names: &mut Vec<(String, Ty, Pos)>,
    ) -> TResult<()> {
        let Some((first, _)) = fields.first() else {
            return err(p.pos, "a record pattern needs at least one field");
        };
        let (c, record, tys, _) = match owner {
            Some(c) => self.record_field(c, first),
            None => self.field(first, p.pos)?,
        };
        self.record_of.insert(p.id, c);
        self.expect_pat(p.pos, record, expected)?;
        let declared = self.t.records[&c].fields.clone();
        let mut own = Vec::new();
        for (name, sub) in fields {
            let Some(i) = declared.iter().position(|f| &f.name == name) else {
                return err(
                    sub.pos,
                    format!("the field {name} does not belong to the record type of {first}"),
                );
            };
            self.pattern(sub, tys[i], &mut own)?;
        }
        check_distinct(&own)?;
        names.extend(own);
        Ok(())
    }
}

/// The error for a record built without every field of `declared` (`seen`: the indices given).
pub(crate) fn missing_fields(pos: Pos, declared: &[FieldInfo], seen: &[usize]) -> TResult<()> {
    let missing: Vec<&str> = (0..declared.len())
        .filter(|i| !seen.contains(i))
        .map(|i| declared[i].name.as_str())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    err(
        pos,
        format!("some record fields are undefined: {}", missing.join(" ")),
    )
}
