//! Parsing of type declarations (variants and abbreviations) and type expressions.

use crate::ast::*;
use crate::lexer::{Kw, Tok};
use crate::parser::{PResult, Parser};
use crate::user_module::Kind;

impl Parser<'_> {
    pub(crate) fn type_item(&mut self) -> PResult<Item> {
        self.declare_type_group();
        self.expect_kw(Kw::Type, "type")?;
        let mut decls = vec![self.type_decl()?];
        while self.eat_kw(Kw::And) {
            decls.push(self.type_decl()?);
        }
        Ok(Item::Type(decls))
    }

    /// Declares the names a `type … and …` group defines (the `type` is the current token)
    /// before its bodies are read: each is in scope in all of them.
    fn declare_type_group(&mut self) {
        let mut i = 1;
        loop {
            // The parameters: `'a`, `('a, 'b)`.
            if matches!(self.peek_at(i), Tok::TyVar(_)) {
                i += 1;
            } else if matches!(self.peek_at(i), Tok::Op(o) if o == "(") {
                while !matches!(self.peek_at(i), Tok::Op(o) if o == ")" )
                    && !matches!(self.peek_at(i), Tok::Eof)
                {
                    i += 1;
                }
                i += 1;
            }
            if let Tok::Ident(name) = self.peek_at(i).clone() {
                self.modules.declare(Kind::Type, &name);
            }
            loop {
                i += 1;
                match self.peek_at(i) {
                    Tok::Kw(Kw::And) => break,
                    Tok::Kw(Kw::Let | Kw::Type | Kw::Exception | Kw::End | Kw::Unsupported(_))
                    | Tok::Eof => return,
                    Tok::Op(o) if o == ";;" => return,
                    _ => {}
                }
            }
            i += 1;
        }
    }

    pub(crate) fn type_decl(&mut self) -> PResult<TypeDecl> {
        let pos = self.pos();
        let mut params = Vec::new();
        if let Tok::TyVar(v) = self.peek().clone() {
            self.advance();
            params.push(v);
        } else if self.is_op("(") && matches!(self.peek_at(1), Tok::TyVar(_)) {
            self.advance();
            loop {
                match self.advance() {
                    Tok::TyVar(v) => params.push(v),
                    _ => return self.syntax("expected a type parameter"),
                }
                if !self.eat_op(",") {
                    break;
                }
            }
            self.expect_op(")")?;
        }
        let written = self.ident("a type name")?;
        let name = self.modules.resolve(Kind::Type, &written);
        if !self.eat_op("=") {
            return self.unsupported(
                pos,
                format!("abstract type `{written}` (a type needs a definition)"),
            );
        }
        let is_variant = self.is_op("|")
            || matches!(self.peek(), Tok::Uident(_))
                && !matches!(self.peek_at(1), Tok::Op(o) if o == ".");
        let body = if self.is_op("{") {
            self.record_decl()?
        } else if is_variant {
            self.eat_op("|");
            let mut ctors = vec![self.constr_decl()?];
            while self.eat_op("|") {
                ctors.push(self.constr_decl()?);
            }
            TypeDeclBody::Variant(ctors)
        } else {
            TypeDeclBody::Alias(self.type_expr()?)
        };
        if self.is_op("=") {
            return self.unsupported(
                self.pos(),
                "re-exported type definitions (`type t = u = …`)",
            );
        }
        Ok(TypeDecl {
            name,
            params,
            pos,
            body,
        })
    }

    pub(crate) fn constr_decl(&mut self) -> PResult<ConstrDecl> {
        let pos = self.pos();
        let name = match self.peek().clone() {
            Tok::Uident(s) => {
                self.advance();
                self.modules.declare(Kind::Constructor, &s)
            }
            Tok::Op(o) if o == "(" => {
                return self.unsupported(pos, "operator constructors such as `(::)`")
            }
            _ => return self.unexpected("a constructor name"),
        };
        let mut args = Vec::new();
        if self.eat_kw(Kw::Of) {
            if self.is_op("{") {
                let fields = self.field_decls()?;
                let args = fields.iter().map(|f| f.ty.clone()).collect();
                return Ok(ConstrDecl {
                    name,
                    args,
                    inline_record: Some(fields),
                    pos,
                });
            }
            args.push(self.app_type()?);
            while self.eat_op("*") {
                args.push(self.app_type()?);
            }
            if self.is_op("->") {
                return self.syntax("a constructor argument of function type needs parentheses");
            }
        } else if self.is_op(":") {
            return self.unsupported(pos, "GADT constructors");
        }
        Ok(ConstrDecl {
            name,
            args,
            inline_record: None,
            pos,
        })
    }

    // ----- type expressions -----

    pub(crate) fn type_expr(&mut self) -> PResult<TypeExpr> {
        self.enter()?;
        let pos = self.pos();
        let first = self.app_type()?;
        let mut parts = vec![first];
        while self.eat_op("*") {
            parts.push(self.app_type()?);
        }
        let lhs = if parts.len() == 1 {
            parts.pop().expect("one part")
        } else {
            TypeExpr {
                pos,
                kind: TypeExprKind::Tuple(parts),
            }
        };
        let result = if self.eat_op("->") {
            let rhs = self.type_expr()?;
            TypeExpr {
                pos,
                kind: TypeExprKind::Arrow(Box::new(lhs), Box::new(rhs)),
            }
        } else {
            lhs
        };
        self.leave();
        Ok(result)
    }

    pub(crate) fn app_type(&mut self) -> PResult<TypeExpr> {
        let pos = self.pos();
        let mut args: Vec<TypeExpr> = match self.peek().clone() {
            Tok::TyVar(v) => {
                self.advance();
                vec![TypeExpr {
                    pos,
                    kind: TypeExprKind::Var(v),
                }]
            }
            Tok::Ident(s) if s == "_" => {
                self.advance();
                vec![TypeExpr {
                    pos,
                    kind: TypeExprKind::Wildcard,
                }]
            }
            Tok::Ident(_) | Tok::Uident(_) => {
                let name = self.type_name()?.expect("a type name starts here");
                vec![TypeExpr {
                    pos,
                    kind: TypeExprKind::Con(name, Vec::new()),
                }]
            }
            Tok::Op(o) if o == "(" => {
                self.advance();
                let mut inner = vec![self.type_expr()?];
                while self.eat_op(",") {
                    inner.push(self.type_expr()?);
                }
                self.expect_op(")")?;
                inner
            }
            _ => return self.unexpected("a type"),
        };
        loop {
            let p = self.pos();
            let Some(name) = self.type_name()? else {
                break;
            };
            args = vec![TypeExpr {
                pos: p,
                kind: TypeExprKind::Con(name, std::mem::take(&mut args)),
            }];
        }
        if args.len() != 1 {
            return self
                .syntax("a parenthesised list of types must be followed by a type constructor");
        }
        Ok(args.pop().expect("one type"))
    }
}
