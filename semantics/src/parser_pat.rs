//! Parsing of patterns (precedences, lowest first: `as`, `|`, `,`, `::`, constructor
//! application), and of the cases they head: `match`, `function` and `try` arms.

use crate::ast::*;
use crate::lexer::{Kw, Tok};
use crate::parser::{PResult, ParseError, Parser};

impl Parser<'_> {
    pub(crate) fn pattern(&mut self) -> PResult<Pattern> {
        self.enter()?;
        let mut p = self.or_pattern()?;
        while self.eat_kw(Kw::As) {
            let name = self.ident("a name after `as`")?;
            p = Pattern {
                id: self.fresh_id(),
                pos: p.pos,
                kind: PatKind::As(Box::new(p), name),
            };
        }
        self.leave();
        Ok(p)
    }

    pub(crate) fn or_pattern(&mut self) -> PResult<Pattern> {
        let mut p = self.tuple_pattern()?;
        while self.eat_op("|") {
            let rhs = self.tuple_pattern()?;
            p = Pattern {
                id: self.fresh_id(),
                pos: p.pos,
                kind: PatKind::Or(Box::new(p), Box::new(rhs)),
            };
        }
        Ok(p)
    }

    pub(crate) fn tuple_pattern(&mut self) -> PResult<Pattern> {
        let first = self.cons_pattern()?;
        if !self.is_op(",") {
            return Ok(first);
        }
        let pos = first.pos;
        let mut parts = vec![first];
        while self.eat_op(",") {
            parts.push(self.cons_pattern()?);
        }
        Ok(Pattern {
            id: self.fresh_id(),
            pos,
            kind: PatKind::Tuple(parts),
        })
    }

    pub(crate) fn cons_pattern(&mut self) -> PResult<Pattern> {
        let head = self.constr_pattern()?;
        if self.eat_op("::") {
            self.enter()?;
            let tail = self.cons_pattern()?;
            self.leave();
            return Ok(Pattern {
                id: self.fresh_id(),
                pos: head.pos,
                kind: PatKind::Cons(Box::new(head), Box::new(tail)),
            });
        }
        Ok(head)
    }

    pub(crate) fn constr_pattern(&mut self) -> PResult<Pattern> {
        if let Tok::Uident(name) = self.peek().clone() {
            let pos = self.pos();
            self.advance();
            let name = self.constructor_path(name, pos)?;
            let arg = if self.starts_simple_pattern() {
                Some(Box::new(self.simple_pattern()?))
            } else {
                None
            };
            return Ok(Pattern {
                id: self.fresh_id(),
                pos,
                kind: PatKind::Constr(name, arg),
            });
        }
        self.simple_pattern()
    }

    pub(crate) fn starts_simple_pattern(&self) -> bool {
        match self.peek() {
            Tok::Ident(_)
            | Tok::Uident(_)
            | Tok::Int(_)
            | Tok::Float(_)
            | Tok::Str(_)
            | Tok::Char(_) => true,
            Tok::Kw(Kw::True | Kw::False) => true,
            Tok::Op(o) => {
                o == "("
                    || o == "["
                    || o == "{"
                    || (o == "-" && matches!(self.peek_at(1), Tok::Int(_) | Tok::Float(_)))
            }
            _ => false,
        }
    }

    pub(crate) fn simple_pattern(&mut self) -> PResult<Pattern> {
        let pos = self.pos();
        let kind = match self.peek().clone() {
            Tok::Ident(s) => {
                self.advance();
                if s == "_" {
                    PatKind::Any
                } else {
                    PatKind::Var(s)
                }
            }
            Tok::Uident(name) => {
                self.advance();
                PatKind::Constr(self.constructor_path(name, pos)?, None)
            }
            Tok::Int(i) => {
                self.advance();
                PatKind::Int(i)
            }
            Tok::Float(f) => {
                self.advance();
                PatKind::Float(f)
            }
            Tok::Op(o) if o == "-" => {
                self.advance();
                match self.advance() {
                    Tok::Int(i) => PatKind::Int(crate::value::wrap63(i.wrapping_neg())),
                    Tok::Float(f) => PatKind::Float(-f),
                    _ => return self.syntax("expected a number after `-` in a pattern"),
                }
            }
            Tok::Str(s) => {
                self.advance();
                PatKind::Str(s)
            }
            Tok::Char(c) => {
                self.advance();
                if self.is_op("..") {
                    return self.unsupported(pos, "character range patterns");
                }
                PatKind::Char(c)
            }
            Tok::Kw(Kw::True) => {
                self.advance();
                PatKind::Bool(true)
            }
            Tok::Kw(Kw::False) => {
                self.advance();
                PatKind::Bool(false)
            }
            Tok::Op(o) if o == "[" => {
                self.advance();
                let mut items = Vec::new();
                while !self.is_op("]") {
                    items.push(self.pattern()?);
                    if !self.eat_op(";") {
                        break;
                    }
                }
                self.expect_op("]")?;
                if items.is_empty() {
                    PatKind::Nil
                } else {
                    PatKind::List(items)
                }
            }
            Tok::Op(o) if o == "(" => {
                self.advance();
                if self.eat_op(")") {
                    PatKind::Unit
                } else {
                    let inner = self.pattern()?;
                    let kind = if self.eat_op(":") {
                        let t = self.type_expr()?;
                        PatKind::Annot(Box::new(inner), t)
                    } else {
                        self.expect_op(")")?;
                        return Ok(inner);
                    };
                    self.expect_op(")")?;
                    kind
                }
            }
            Tok::Op(o) if o == "{" => return self.record_pattern(),
            Tok::Op(o) if o == "#" || o == "`" => {
                return self.unsupported(pos, "polymorphic variants")
            }
            Tok::Kw(Kw::Unsupported("lazy")) => return self.unsupported(pos, "lazy patterns"),
            Tok::Kw(Kw::Exception) => {
                return self.unsupported(pos, "exception patterns other than a `match` case")
            }
            _ => return self.unexpected("a pattern"),
        };
        Ok(Pattern {
            id: self.fresh_id(),
            pos,
            kind,
        })
    }
}

/// Cases: a pattern, maybe a guard, a body.
impl Parser<'_> {
    /// `match e with …`, after `match`: with `exception` cases, a [`ExprKind::MatchExn`].
    pub(crate) fn match_expr(&mut self, pos: Pos) -> PResult<Expr> {
        let scrutinee = self.seq_expr()?;
        self.expect_kw(Kw::With, "with")?;
        let (arms, handlers) = self.match_arms()?;
        if handlers.is_empty() {
            return Ok(self.mk(pos, ExprKind::Match(Box::new(scrutinee), arms)));
        }
        if let ExprKind::Tuple(_) = scrutinee.kind {
            return self.unsupported(
                scrutinee.pos,
                "a tuple as the scrutinee of a `match` with `exception` cases \
                 (bind it with `let` first)",
            );
        }
        if arms.is_empty() {
            return Err(ParseError::Syntax {
                pos,
                message: "this `match` has only `exception` cases: it needs one for the value"
                    .into(),
            });
        }
        Ok(self.mk(pos, ExprKind::MatchExn(Box::new(scrutinee), arms, handlers)))
    }

    /// `[|] p [when g] -> e | …`.
    pub(crate) fn arms(&mut self) -> PResult<Vec<Arm>> {
        self.eat_op("|");
        let mut arms = Vec::new();
        loop {
            arms.push(self.arm()?);
            if !self.eat_op("|") {
                return Ok(arms);
            }
        }
    }

    /// A `match`'s cases: those on the value, and those marked `exception`, which catch what
    /// the scrutinee raises.
    fn match_arms(&mut self) -> PResult<(Vec<Arm>, Vec<Arm>)> {
        self.eat_op("|");
        let (mut arms, mut handlers) = (Vec::new(), Vec::new());
        loop {
            if self.eat_kw(Kw::Exception) {
                handlers.push(self.arm()?);
            } else {
                arms.push(self.arm()?);
            }
            if !self.eat_op("|") {
                return Ok((arms, handlers));
            }
        }
    }

    fn arm(&mut self) -> PResult<Arm> {
        let pat = self.pattern()?;
        let guard = if self.eat_kw(Kw::When) {
            Some(self.seq_expr()?)
        } else {
            None
        };
        self.expect_op("->")?;
        let body = self.seq_expr()?;
        Ok(Arm { pat, guard, body })
    }
}
