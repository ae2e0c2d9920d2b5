//! Parsing applications and parameters, labelled or not (see [`crate::labels`] for what
//! labels become).

use crate::ast::*;
use crate::labels::{ArgLabel, ParamLabel};
use crate::lexer::{Kw, Tok};
use crate::parser::{PResult, Parser};
use crate::parser_module::Capitalised;

/// An optional parameter's default, for the `let` that starts its function's body.
pub(crate) struct Default {
    name: String,
    holder: String,
    ty: Option<TypeExpr>,
    value: Expr,
}

impl Parser<'_> {
    /// Function and constructor application: `f a b`, `Some x`, `Node (l, v, r)`.
    pub(crate) fn application(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        if matches!(self.peek(), Tok::Kw(Kw::Unsupported("assert"))) {
            self.advance();
            let cond = self.simple_expr()?;
            return Ok(self.assertion(pos, cond));
        }
        let mut head = None;
        if let Tok::Uident(name) = self.peek().clone() {
            self.advance();
            match self.capitalised(name, pos)? {
                // `Array.f …`: an application of a function, below.
                Capitalised::Value(e) => head = Some(e),
                Capitalised::Constructor(name) if !self.starts_simple_expr() => {
                    return Ok(self.mk(pos, ExprKind::Constr(name, None)));
                }
                Capitalised::Constructor(name) => {
                    let arg = self.simple_expr()?;
                    if self.starts_simple_expr() {
                        return self.syntax(format!(
                            "constructor {name} is applied to more than one argument (use a tuple)"
                        ));
                    }
                    return Ok(self.mk(pos, ExprKind::Constr(name, Some(Box::new(arg)))));
                }
            }
        }
        let head = match head {
            Some(h) => self.postfix(h)?,
            None => self.simple_expr()?,
        };
        let mut args = Vec::new();
        let mut arg_labels = Vec::new();
        while self.starts_simple_expr() {
            if self.starts_labelled_arg() {
                let (label, arg) = self.labelled_arg()?;
                args.push(arg);
                arg_labels.resize(args.len() - 1, None);
                arg_labels.push(Some(label));
                continue;
            }
            if let Tok::Uident(name) = self.peek().clone() {
                // `f C x` would apply f to C and x; OCaml reads a constructor argument as `(C x)`
                // only when parenthesised, so a bare constructor here is an argument of its own.
                let p = self.pos();
                self.advance();
                match self.capitalised(name, p)? {
                    Capitalised::Value(f) => {
                        let f = self.postfix(f)?;
                        args.push(f)
                    }
                    Capitalised::Constructor(c) => args.push(self.mk(p, ExprKind::Constr(c, None))),
                }
                continue;
            }
            args.push(self.simple_expr()?);
        }
        if args.is_empty() {
            return Ok(head);
        }
        let labelled = !arg_labels.is_empty();
        arg_labels.resize(args.len(), None);
        let app = self.mk(
            pos,
            ExprKind::App {
                func: Box::new(head),
                args,
                tail: false,
            },
        );
        if labelled {
            self.labels.apps.insert(app.id, arg_labels);
        }
        Ok(app)
    }

    pub(crate) fn starts_simple_expr(&self) -> bool {
        match self.peek() {
            Tok::Ident(_)
            | Tok::Uident(_)
            | Tok::Int(_)
            | Tok::Float(_)
            | Tok::Str(_)
            | Tok::Char(_) => true,
            Tok::Kw(Kw::True | Kw::False | Kw::Begin) => true,
            Tok::Op(o) => matches!(o.as_str(), "(" | "[" | "[|" | "{" | "!" | "~" | "?"),
            _ => false,
        }
    }

    /// A function parameter, labelled or not; an optional one's default is added to
    /// `defaults`.
    pub(crate) fn param(&mut self, defaults: &mut Vec<Default>) -> PResult<(Pattern, ParamLabel)> {
        let pos = self.pos();
        let optional = match self.peek() {
            Tok::Op(o) if o == "~" => false,
            Tok::Op(o) if o == "?" => true,
            _ => return Ok((self.simple_pattern()?, ParamLabel::Plain)),
        };
        self.advance();
        let (label, pattern) = if self.eat_op("(") {
            let name = self.ident("a parameter name")?;
            let ty = if self.eat_op(":") {
                Some(self.type_expr()?)
            } else {
                None
            };
            let mut pattern = self.var_pattern(pos, name.clone());
            if optional && self.eat_op("=") {
                let value = self.expr()?;
                let holder = format!("*opt*{name}");
                defaults.push(Default {
                    name: name.clone(),
                    holder: holder.clone(),
                    ty,
                    value,
                });
                pattern = self.var_pattern(pos, holder);
            } else if let Some(t) = ty {
                pattern = self.annotated(pattern, t, optional);
            }
            self.expect_op(")")?;
            (name, pattern)
        } else {
            let name = self.ident("a label")?;
            let pattern = if self.eat_op(":") {
                self.simple_pattern()?
            } else {
                self.var_pattern(pos, name.clone())
            };
            (name, pattern)
        };
        let label = if optional {
            ParamLabel::Optional(label)
        } else {
            ParamLabel::Labelled(label)
        };
        Ok((pattern, label))
    }

    /// `body` after the `let`s that give optional parameters their defaults, as Translcore
    /// writes them: `let x = match *opt*x with Some x -> x | None -> default in body`.
    pub(crate) fn with_defaults(&mut self, defaults: Vec<Default>, mut body: Expr) -> Expr {
        for Default {
            name,
            holder,
            ty,
            value,
        } in defaults.into_iter().rev()
        {
            let pos = value.pos;
            let some = Arm {
                pat: Pattern {
                    id: self.fresh_id(),
                    pos,
                    kind: PatKind::Constr(
                        "Some".into(),
                        Some(Box::new(self.var_pattern(pos, name.clone()))),
                    ),
                },
                guard: None,
                body: self.mk(pos, ExprKind::Var(name.clone())),
            };
            let none = Arm {
                pat: Pattern {
                    id: self.fresh_id(),
                    pos,
                    kind: PatKind::Constr("None".into(), None),
                },
                guard: None,
                body: value,
            };
            let scrutinee = self.mk(pos, ExprKind::Var(holder));
            let chosen = self.mk(pos, ExprKind::Match(Box::new(scrutinee), vec![some, none]));
            let mut pat = self.var_pattern(pos, name);
            if let Some(t) = ty {
                pat = self.annotated(pat, t, false);
            }
            body = self.bind_in(pos, pat, chosen, body);
        }
        body
    }

    /// Records the labels of the `fun` `f` when any of its parameters has one.
    pub(crate) fn record_param_labels(&mut self, f: &Expr, labels: Vec<ParamLabel>) {
        if labels.iter().any(|l| *l != ParamLabel::Plain) {
            self.labels.funs.insert(f.id, labels);
        }
    }

    /// Whether the current token starts a labelled argument (`~x`, `?x`; not `~-`).
    pub(crate) fn starts_labelled_arg(&self) -> bool {
        matches!(self.peek(), Tok::Op(o) if o == "~" || o == "?")
            && matches!(self.peek_at(1), Tok::Ident(_))
    }

    /// `~x`, `~x:e`, `?x` or `?x:e` (`e` a simple expression).
    pub(crate) fn labelled_arg(&mut self) -> PResult<(ArgLabel, Expr)> {
        let optional = matches!(self.peek(), Tok::Op(o) if o == "?");
        self.advance();
        let pos = self.pos();
        let name = self.ident("a label")?;
        let arg = if self.eat_op(":") {
            self.simple_expr()?
        } else {
            self.mk(pos, ExprKind::Var(name.clone()))
        };
        let label = if optional {
            ArgLabel::Optional(name)
        } else {
            ArgLabel::Labelled(name)
        };
        Ok((label, arg))
    }

    pub(crate) fn var_pattern(&mut self, pos: Pos, name: String) -> Pattern {
        Pattern {
            id: self.fresh_id(),
            pos,
            kind: PatKind::Var(name),
        }
    }

    /// `(x : t)`; for an optional parameter without a default, `t` is the option's content.
    fn annotated(&mut self, pattern: Pattern, t: TypeExpr, optional: bool) -> Pattern {
        let t = if optional {
            TypeExpr {
                pos: t.pos,
                kind: TypeExprKind::Con("option".into(), vec![t]),
            }
        } else {
            t
        };
        Pattern {
            id: self.fresh_id(),
            pos: t.pos,
            kind: PatKind::Annot(Box::new(pattern), t),
        }
    }
}
