//! Parsing the imperative part of the subset: records (literals, `{ r with … }`, field access,
//! patterns, declarations), arrays (`[| … |]`, `a.(i)`), assignments (`<-`, `:=`), `!`, `for`
//! and `while` loops, and the `Array.…` and `List.…` names.

use crate::ast::*;
use crate::lexer::{Kw, Tok};
use crate::parser::{PResult, Parser};

impl Parser<'_> {
    fn node(&mut self, pos: Pos, kind: ExprKind) -> Expr {
        Expr {
            id: self.fresh_id(),
            pos,
            kind,
        }
    }

    /// `Array.f` or `List.f` (the module is the current token) as the variable of that name:
    /// the interpreter's primitive (`Array.length`, `Array.make`, …) or the function read
    /// from the Stdlib's sources (see [`crate::stdlib_source`]); `None` for a module that is
    /// no Stdlib module (see [`Parser::capitalised`]).
    pub(crate) fn module_value(&mut self, module: &str, pos: Pos) -> PResult<Option<Expr>> {
        if !self.is_op(".") {
            return Ok(None);
        }
        let stdlib = crate::stdlib_source::MODULES
            .iter()
            .any(|(m, _)| *m == module)
            || crate::prelude::MODULES.contains(&module);
        if !stdlib {
            return Ok(None);
        }
        if let Tok::Ident(f) = self.peek_at(1).clone() {
            self.advance();
            self.advance();
            return Ok(Some(self.node(pos, ExprKind::Var(format!("{module}.{f}")))));
        }
        if matches!(self.peek_at(1), Tok::Op(o) if o == "(") {
            // `List.(e)`: `e` with `List` opened.
            let opened = crate::open_module::Opened::read(module)
                .or_else(|why| self.unsupported(pos, why))?;
            self.advance();
            self.advance();
            let mut e = self.seq_expr()?;
            self.expect_op(")")?;
            opened.qualify_expr(&mut e);
            return Ok(Some(e));
        }
        self.unsupported(pos, format!("this use of `{module}.`"))
    }

    /// `assert cond` as Translcore compiles it: `if cond then () else raise (Assert_failure
    /// (file, line, column))`, and `assert false` as the raise alone (of any type). The file is
    /// left empty: it only shows in the message of a program that fails its assertion.
    pub(crate) fn assertion(&mut self, pos: Pos, cond: Expr) -> Expr {
        let location = vec![
            self.node(pos, ExprKind::Str(String::new())),
            self.node(pos, ExprKind::Int(i64::from(pos.line))),
            self.node(pos, ExprKind::Int(i64::from(pos.col) - 1)),
        ];
        let location = self.node(pos, ExprKind::Tuple(location));
        let exn = self.node(
            pos,
            ExprKind::Constr("Assert_failure".into(), Some(Box::new(location))),
        );
        let raise = self.node(pos, ExprKind::Var("raise".into()));
        let raise = self.node(
            pos,
            ExprKind::App {
                func: Box::new(raise),
                args: vec![exn],
                tail: false,
            },
        );
        if matches!(cond.kind, ExprKind::Bool(false)) {
            return raise;
        }
        let unit = self.node(pos, ExprKind::Unit);
        self.node(
            pos,
            ExprKind::If(Box::new(cond), Box::new(unit), Some(Box::new(raise))),
        )
    }

    /// Field accesses and array indexing after a simple expression: `e.f`, `e.(i)`.
    pub(crate) fn postfix(&mut self, mut e: Expr) -> PResult<Expr> {
        while self.is_op(".") {
            let pos = self.pos();
            match self.peek_at(1).clone() {
                Tok::Ident(_) | Tok::Uident(_) => {
                    self.advance();
                    let f = self.field_name()?;
                    let start = e.pos;
                    e = self.node(start, ExprKind::Field(Box::new(e), f));
                }
                Tok::Op(o) if o == "(" => {
                    self.advance();
                    self.advance();
                    let index = self.seq_expr()?;
                    self.expect_op(")")?;
                    let start = e.pos;
                    e = self.node(start, ExprKind::ArrayGet(Box::new(e), Box::new(index)));
                }
                // `s.[i]` is `String.get s i` (the parser's own desugaring in OCaml).
                Tok::Op(o) if o == "[" => {
                    self.advance();
                    self.advance();
                    let index = self.seq_expr()?;
                    self.expect_op("]")?;
                    if self.is_op("<-") {
                        return self.unsupported(self.pos(), "`s.[i] <- c` (use `Bytes.set`)");
                    }
                    let get = self.node(pos, ExprKind::Var("String.get".into()));
                    let start = e.pos;
                    e = self.node(
                        start,
                        ExprKind::App {
                            func: Box::new(get),
                            args: vec![e, index],
                            tail: false,
                        },
                    );
                }
                _ => return self.unsupported(pos, "module paths and this use of `.`"),
            }
        }
        Ok(e)
    }

    /// `!e`: the dereference of the atom that follows (`!r.f` is `(!r).f`).
    pub(crate) fn deref(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        self.expect_op("!")?;
        let operand = self.atom()?;
        let bang = self.node(pos, ExprKind::Var("!".into()));
        Ok(self.node(
            pos,
            ExprKind::App {
                func: Box::new(bang),
                args: vec![operand],
                tail: false,
            },
        ))
    }

    /// `lhs <- rhs` (a field or an array element) and `lhs := rhs`.
    pub(crate) fn assignment(&mut self, op: &str, pos: Pos, lhs: Expr, rhs: Expr) -> PResult<Expr> {
        if op == ":=" {
            let f = self.node(pos, ExprKind::Var(":=".into()));
            return Ok(self.node(
                pos,
                ExprKind::App {
                    func: Box::new(f),
                    args: vec![lhs, rhs],
                    tail: false,
                },
            ));
        }
        let start = lhs.pos;
        let kind = match lhs.kind {
            ExprKind::Field(r, f) => ExprKind::SetField(r, f, Box::new(rhs)),
            ExprKind::ArrayGet(a, i) => ExprKind::ArraySet(a, i, Box::new(rhs)),
            _ => return Err(crate::parser::ParseError::Syntax {
                pos,
                message:
                    "`<-` assigns a record field (`r.f <- v`) or an array element (`a.(i) <- v`)"
                        .into(),
            }),
        };
        Ok(self.node(start, kind))
    }

    /// `{ f = e; … }`, `{ e with f = e; … }` (the `{` is the current token).
    pub(crate) fn record_expr(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        self.expect_op("{")?;
        let starts_field = matches!(self.peek(), Tok::Ident(_))
            && !matches!(self.peek_at(1), Tok::Kw(Kw::With))
            || self.qualified_field_ahead();
        let base = if !starts_field {
            let e = self.atom()?;
            let e = self.postfix(e)?;
            self.expect_kw(Kw::With, "with")?;
            Some(Box::new(e))
        } else {
            None
        };
        let mut fields = Vec::new();
        loop {
            let fpos = self.pos();
            let written = self.field_written();
            let name = self.field_name()?;
            let value = if self.eat_op("=") {
                self.expr()?
            } else {
                // `{ x; … }` is `{ x = x; … }`.
                self.node(fpos, ExprKind::Var(written))
            };
            fields.push((name, value));
            if !self.eat_op(";") || self.is_op("}") {
                break;
            }
        }
        self.expect_op("}")?;
        Ok(self.node(pos, ExprKind::Record(fields, base)))
    }

    /// `[| e1; …; en |]` (the `[|` is the current token).
    pub(crate) fn array_expr(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        self.expect_op("[|")?;
        let mut items = Vec::new();
        while !self.closes_array() {
            items.push(self.expr()?);
            if !self.eat_op(";") {
                break;
            }
        }
        if !self.closes_array() {
            return self.unexpected("`|]`");
        }
        self.advance();
        self.advance();
        Ok(self.node(pos, ExprKind::Array(items)))
    }

    fn closes_array(&self) -> bool {
        self.is_op("|") && matches!(self.peek_at(1), Tok::Op(o) if o == "]")
    }

    /// `for i = a to b do … done` and `while c do … done` (the keyword is the current token).
    pub(crate) fn loop_expr(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        if self.eat_kw(Kw::While) {
            let cond = self.seq_expr()?;
            self.expect_kw(Kw::Do, "do")?;
            let body = self.loop_body()?;
            return Ok(self.node(pos, ExprKind::While(Box::new(cond), Box::new(body))));
        }
        self.expect_kw(Kw::For, "for")?;
        let var = self.ident("the loop variable")?;
        self.expect_op("=")?;
        let from = self.seq_expr()?;
        let down = if self.eat_kw(Kw::Downto) {
            true
        } else {
            self.expect_kw(Kw::To, "to")?;
            false
        };
        let until = self.seq_expr()?;
        self.expect_kw(Kw::Do, "do")?;
        let body = self.loop_body()?;
        Ok(self.node(
            pos,
            ExprKind::For {
                var,
                from: Box::new(from),
                until: Box::new(until),
                down,
                body: Box::new(body),
            },
        ))
    }

    fn loop_body(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let body = if self.is_kw(Kw::Done) {
            self.node(pos, ExprKind::Unit)
        } else {
            self.seq_expr()?
        };
        self.expect_kw(Kw::Done, "done")?;
        Ok(body)
    }

    /// `{ f = p; g; _ }` in a pattern (the `{` is the current token).
    pub(crate) fn record_pattern(&mut self) -> PResult<Pattern> {
        let pos = self.pos();
        self.expect_op("{")?;
        let mut fields = Vec::new();
        loop {
            if self.is_op("}") {
                break;
            }
            let fpos = self.pos();
            if matches!(self.peek(), Tok::Ident(s) if s == "_") {
                self.advance();
                self.eat_op(";");
                continue;
            }
            let written = self.field_written();
            let name = self.field_name()?;
            let pat = if self.eat_op("=") {
                self.pattern()?
            } else {
                Pattern {
                    id: self.fresh_id(),
                    pos: fpos,
                    kind: PatKind::Var(written),
                }
            };
            fields.push((name, pat));
            if !self.eat_op(";") {
                break;
            }
        }
        self.expect_op("}")?;
        Ok(Pattern {
            id: self.fresh_id(),
            pos,
            kind: PatKind::Record(fields),
        })
    }

    /// The fields of `type t = { mutable a : int; b : t list }` (the `{` is the current token).
    pub(crate) fn record_decl(&mut self) -> PResult<TypeDeclBody> {
        Ok(TypeDeclBody::Record(self.field_decls()?))
    }

    /// `{ mutable a : int; b : t list }`, a record's or an inline record's fields (the `{` is
    /// the current token).
    pub(crate) fn field_decls(&mut self) -> PResult<Vec<FieldDecl>> {
        self.expect_op("{")?;
        let mut fields = Vec::new();
        while !self.is_op("}") {
            let pos = self.pos();
            let mutable = self.eat_kw(Kw::Mutable);
            let name = self.ident("a field name")?;
            let name = self.modules.declare(crate::user_module::Kind::Field, &name);
            self.expect_op(":")?;
            let ty = self.type_expr()?;
            fields.push(FieldDecl {
                name,
                mutable,
                ty,
                pos,
            });
            if !self.eat_op(";") {
                break;
            }
        }
        self.expect_op("}")?;
        Ok(fields)
    }
}
