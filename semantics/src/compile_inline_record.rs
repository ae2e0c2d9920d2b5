//! Compiling inline records (`C of { f : a; mutable g : b }`): `C { f = e; g = e' }` builds
//! the constructor's block with its fields in declaration order, and `C { g; _ }` or `C r`
//! matches it. Their typing is in `infer_inline_record`.

use crate::ast::*;
use crate::compile::*;
use crate::compile_pat::PatNames;
use crate::ir::*;
use crate::types::TyCon;

impl Compiler<'_> {
    /// `C { f = e; … }`'s field values in the order `C`'s inline record declares them, the
    /// order of its block's fields (type checking made sure each is given once).
    pub(crate) fn inline_record_fields<'e>(
        &self,
        record: TyCon,
        arg: Option<&'e Expr>,
    ) -> Vec<&'e Expr> {
        let Some(Expr {
            kind: ExprKind::Record(fields, None),
            ..
        }) = arg
        else {
            unreachable!("type checking accepts only `C {{ f = e; … }}` for an inline record")
        };
        let info = &self.typing.types.records[&record];
        let mut ordered: Vec<(usize, &Expr)> = fields
            .iter()
            .map(|(name, value)| (info.field_index(name), value))
            .collect();
        ordered.sort_by_key(|&(i, _)| i);
        ordered.into_iter().map(|(_, value)| value).collect()
    }

    /// The pattern `arg` of constructor `C` (block tag `tag`, `arity` fields) whose argument is
    /// the inline record `record`: a record pattern tests its fields, a name binds the block
    /// itself (the record is the constructor's block). Also says whether the fields' patterns
    /// can fail.
    pub(crate) fn inline_record_pat(
        &mut self,
        arg: &Pattern,
        tag: u32,
        arity: usize,
        record: TyCon,
        names: &mut PatNames,
    ) -> CResult<(Pat, bool)> {
        let any_fields =
            || Pat::Block(tag, (0..arity).map(|_| Pat::Any).collect::<Vec<_>>().into());
        Ok(match &arg.kind {
            PatKind::Record(fields) => {
                let mut pats = (0..arity).map(|_| Pat::Any).collect::<Vec<_>>();
                let mut refutable = false;
                for (name, sub) in fields {
                    let index = self.typing.types.records[&record].field_index(name);
                    let (q, r) = self.pat(sub, names)?;
                    refutable |= r;
                    pats[index] = q;
                }
                (Pat::Block(tag, pats.into()), refutable)
            }
            PatKind::Any => (any_fields(), false),
            PatKind::Var(n) => (
                Pat::As(Box::new(any_fields()), self.pat_slot(n, names)),
                false,
            ),
            PatKind::As(inner, n) => {
                let (inner, r) = self.inline_record_pat(inner, tag, arity, record, names)?;
                (Pat::As(Box::new(inner), self.pat_slot(n, names)), r)
            }
            PatKind::Annot(inner, _) => self.inline_record_pat(inner, tag, arity, record, names)?,
            _ => {
                return err(
                    arg.pos,
                    "unsupported: this pattern of an inline record (match its fields or name it)",
                )
            }
        })
    }
}
