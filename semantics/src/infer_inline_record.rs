//! Typing constructors whose argument is an inline record, as `queue.ml` declares its cells:
//! `type 'a cell = Nil | Cons of { content : 'a; mutable next : 'a cell }`.
//!
//! An inline record is the constructor's own block (the constructor's tag, one field a word),
//! so it compiles as a constructor of as many arguments as it has fields. What differs is in
//! the types: each such constructor has a record type of its own (named `cell.Cons`), whose
//! fields are not in the program's field namespace. A pattern `Cons c` binds `c` to the block
//! itself at that type, and `c.next` finds its field from `c`'s type, by the type-directed
//! disambiguation OCaml uses for them too
//! (see `Checker::field_of`).

use crate::ast::*;
use crate::infer::{err, Checker, TResult};
use crate::infer_imperative::missing_fields;
use crate::types::*;

impl Checker {
    /// Declares the record type of constructor `cd`'s inline record `fields` in type `d`.
    pub(crate) fn inline_record_decl(
        &mut self,
        d: &TypeDecl,
        cd: &ConstrDecl,
        fields: &[FieldDecl],
    ) -> TResult<TyCon> {
        let c = self.t.tycons.len() as TyCon;
        self.t.tycons.push(TyConInfo {
            name: format!("{}.{}", d.name, cd.name),
            arity: d.params.len(),
            ctors: Vec::new(),
        });
        let mut info = self.record_info(d, fields)?;
        // The block carries the constructor's tag, so it cannot be a flat float array.
        info.flat_float = false;
        self.t.records.insert(c, info);
        Ok(c)
    }

    /// `C { f = e; … }`: every field of `C`'s inline record `record`, given once, each checked
    /// against its type in `field_tys` (the constructor's arguments, instantiated).
    pub(crate) fn inline_record_expr(
        &mut self,
        pos: Pos,
        ctor: &str,
        record: TyCon,
        field_tys: Vec<Ty>,
        arg: Option<&Expr>,
    ) -> TResult<()> {
        let Some(Expr {
            kind: ExprKind::Record(fields, None),
            id,
            ..
        }) = arg
        else {
            return err(
                pos,
                format!(
                    "the constructor {ctor} takes an inline record: write {ctor} {{ f = …; … }}"
                ),
            );
        };
        self.record_of.insert(*id, record);
        let declared = self.t.records[&record].fields.clone();
        let seen = self.check_fields(
            fields,
            &declared,
            &field_tys,
            &format!("the inline record of {ctor}"),
        )?;
        missing_fields(pos, &declared, &seen)
    }

    /// `C { f = p; … }` or `C x` against constructor `C` of type `result`: the record pattern is
    /// typed against `C`'s inline record, any other pattern matches the record itself.
    pub(crate) fn inline_record_pattern(
        &mut self,
        pos: Pos,
        ctor: &str,
        record: TyCon,
        result: Ty,
        arg: Option<&Pattern>,
        names: &mut Vec<(String, Ty, Pos)>,
    ) -> TResult<()> {
        let Some(arg) = arg else {
            return err(
                pos,
                format!("the constructor {ctor} expects 1 argument(s), but is applied here to 0 argument(s)"),
            );
        };
        let result = self.t.repr(result);
        let TyNode::Con(_, params) = self.t.nodes[result as usize].clone() else {
            unreachable!("a constructor's result is its type applied to its parameters")
        };
        let record_ty = self.t.con(record, params);
        match &arg.kind {
            PatKind::Record(fields) => {
                self.record_pattern(arg, fields, record_ty, Some(record), names)
            }
            _ => self.pattern(arg, record_ty, names),
        }
    }
}
