//! Expressions: a Pratt parser for the infix operators, with OCaml's precedence and
//! associativity (manual §11.7.1), plus the "open-ended" constructs (`let`, `match`, `fun`,
//! `function`, `try`, `if`) that extend as far to the right as possible.

use crate::ast::*;
use crate::lexer::{Kw, Tok};
use crate::parser::{PResult, Parser};
use crate::parser_module::Capitalised;

/// Binding power of a prefix minus: tighter than every infix operator (`-a ** b` is
/// `(-a) ** b`), looser than application (`- f x` is `-(f x)`).
const PREFIX_MINUS_BP: u8 = 60;
const COMMA_BP: u8 = 10;

/// Punctuation that may follow a complete expression; any other operator there is an infix
/// operator outside the subset (custom operators such as `>>=`).
const ENDS_EXPRESSION: &[&str] = &[
    ")", "]", ";", ";;", ",", "|", "->", ":", "}", "|]", ":>", ".",
];

#[derive(Clone, Copy)]
enum Infix {
    Bin(BinOp),
    Cons,
    /// An operator that is a Stdlib function: `@` and `^` (list append and string
    /// concatenation, the prelude's `( @ )` and `( ^ )`), `**` (the C library's `pow`).
    Call(&'static str),
    /// `x |> f` is `f x`.
    RevApply,
    /// `f @@ x` is `f x`.
    Apply,
    /// `:=` or `<-`.
    Assign(&'static str),
}

/// (left binding power, right binding power, operator). Left-associative operators have
/// rbp = lbp + 1, right-associative ones rbp = lbp - 1.
fn infix(tok: &Tok) -> Option<(u8, u8, Infix)> {
    use BinOp::*;
    let (l, r, op) = match tok {
        Tok::Kw(Kw::Or) => (20, 19, Infix::Bin(Or)),
        Tok::Kw(Kw::Mod) => (50, 51, Infix::Bin(Mod)),
        Tok::Kw(Kw::Land) => (50, 51, Infix::Bin(Land)),
        Tok::Kw(Kw::Lor) => (50, 51, Infix::Bin(Lor)),
        Tok::Kw(Kw::Lxor) => (50, 51, Infix::Bin(Lxor)),
        Tok::Kw(Kw::Lsl) => (56, 55, Infix::Bin(Lsl)),
        Tok::Kw(Kw::Lsr) => (56, 55, Infix::Bin(Lsr)),
        Tok::Kw(Kw::Asr) => (56, 55, Infix::Bin(Asr)),
        Tok::Op(o) => match o.as_str() {
            ":=" => (5, 4, Infix::Assign(":=")),
            "<-" => (5, 4, Infix::Assign("<-")),
            "||" => (20, 19, Infix::Bin(Or)),
            "&&" | "&" => (25, 24, Infix::Bin(And)),
            "=" => (30, 31, Infix::Bin(Eq)),
            "<>" => (30, 31, Infix::Bin(Ne)),
            "<" => (30, 31, Infix::Bin(Lt)),
            "<=" => (30, 31, Infix::Bin(Le)),
            ">" => (30, 31, Infix::Bin(Gt)),
            ">=" => (30, 31, Infix::Bin(Ge)),
            "==" => (30, 31, Infix::Bin(PhysEq)),
            "!=" => (30, 31, Infix::Bin(PhysNe)),
            "|>" => (30, 31, Infix::RevApply),
            "@" => (36, 35, Infix::Call("( @ )")),
            "^" => (36, 35, Infix::Call("( ^ )")),
            "@@" => (36, 35, Infix::Apply),
            "::" => (41, 40, Infix::Cons),
            "+" => (45, 46, Infix::Bin(Add)),
            "-" => (45, 46, Infix::Bin(Sub)),
            "+." => (45, 46, Infix::Bin(FAdd)),
            "-." => (45, 46, Infix::Bin(FSub)),
            "*" => (50, 51, Infix::Bin(Mul)),
            "/" => (50, 51, Infix::Bin(Div)),
            "*." => (50, 51, Infix::Bin(FMul)),
            "/." => (50, 51, Infix::Bin(FDiv)),
            "**" => (56, 55, Infix::Call("( ** )")),
            _ => return None,
        },
        _ => return None,
    };
    Some((l, r, op))
}

/// Operators that may be written as values, `( + )`, and the prelude names they stand for.
pub(crate) fn operator_section(op: &str) -> Option<&'static str> {
    Some(match op {
        "+" => "( + )",
        "-" => "( - )",
        "*" => "( * )",
        "/" => "( / )",
        "+." => "( +. )",
        "-." => "( -. )",
        "*." => "( *. )",
        "/." => "( /. )",
        "=" => "( = )",
        "<>" => "( <> )",
        "<" => "( < )",
        "<=" => "( <= )",
        ">" => "( > )",
        ">=" => "( >= )",
        "==" => "( == )",
        "!=" => "( != )",
        "&&" => "( && )",
        "||" => "( || )",
        "@" => "( @ )",
        "^" => "( ^ )",
        "mod" => "( mod )",
        "land" => "( land )",
        "lor" => "( lor )",
        "lxor" => "( lxor )",
        "lsl" => "( lsl )",
        "lsr" => "( lsr )",
        "asr" => "( asr )",
        "**" => "( ** )",
        _ => return None,
    })
}

impl Parser<'_> {
    pub(crate) fn mk(&mut self, pos: Pos, kind: ExprKind) -> Expr {
        Expr {
            id: self.fresh_id(),
            pos,
            kind,
        }
    }

    /// `let [rec] bindings in body`, at `pos`.
    pub(crate) fn let_in(
        &mut self,
        pos: Pos,
        rec_: bool,
        bindings: Vec<Binding>,
        body: Expr,
    ) -> Expr {
        self.mk(
            pos,
            ExprKind::Let {
                rec_,
                bindings,
                body: Box::new(body),
            },
        )
    }

    /// `let pat = expr in body`, at `pos`: a binding the parser makes up (a default argument,
    /// a local module's block), left to the inliner's defaults.
    pub(crate) fn bind_in(&mut self, pos: Pos, pat: Pattern, expr: Expr, body: Expr) -> Expr {
        let binding = Binding {
            pat,
            expr,
            pos,
            inline: Inline::Default,
        };
        self.let_in(pos, false, vec![binding], body)
    }

    /// `e1; e2; …` (right-associative; a trailing `;` before a closing token is allowed).
    pub(crate) fn seq_expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let first = self.expr()?;
        let result = if self.is_op(";") {
            let pos = self.pos();
            self.advance();
            if self.starts_expr() {
                let rest = self.seq_expr()?;
                self.mk(pos, ExprKind::Seq(Box::new(first), Box::new(rest)))
            } else {
                first
            }
        } else {
            first
        };
        self.leave();
        Ok(result)
    }

    fn starts_expr(&self) -> bool {
        match self.peek() {
            Tok::Ident(_)
            | Tok::Uident(_)
            | Tok::Int(_)
            | Tok::Float(_)
            | Tok::Str(_)
            | Tok::Char(_) => true,
            Tok::Kw(k) => matches!(
                k,
                Kw::Let
                    | Kw::Fun
                    | Kw::Function
                    | Kw::Match
                    | Kw::If
                    | Kw::Try
                    | Kw::Begin
                    | Kw::True
                    | Kw::False
                    | Kw::For
                    | Kw::While
                    | Kw::Unsupported("assert")
            ),
            Tok::Op(o) => matches!(o.as_str(), "(" | "[" | "-" | "-." | "[|" | "{" | "!"),
            _ => false,
        }
    }

    /// An expression without a top-level sequence.
    pub(crate) fn expr(&mut self) -> PResult<Expr> {
        self.binary(0)
    }

    fn binary(&mut self, min_bp: u8) -> PResult<Expr> {
        self.enter()?;
        let mut lhs = self.prefix()?;
        let mut chain = 0;
        loop {
            if self.is_op(",") && COMMA_BP >= min_bp {
                let pos = lhs.pos;
                let mut items = vec![lhs];
                while self.eat_op(",") {
                    items.push(self.binary(COMMA_BP + 1)?);
                }
                lhs = self.mk(pos, ExprKind::Tuple(items));
                continue;
            }
            let Some((lbp, rbp, op)) = infix(self.peek()) else {
                if let Tok::Op(o) = self.peek() {
                    if !ENDS_EXPRESSION.contains(&o.as_str()) {
                        return self.unexpected("an infix operator of the subset");
                    }
                }
                break;
            };
            if lbp < min_bp {
                break;
            }
            // A long left-associative chain nests as deeply as a parenthesised one.
            chain += 1;
            self.enter()?;
            let pos = self.pos();
            self.advance();
            let rhs = self.binary(rbp)?;
            lhs = match op {
                Infix::Bin(b) => self.mk(pos, ExprKind::BinOp(b, Box::new(lhs), Box::new(rhs))),
                Infix::Cons => self.mk(pos, ExprKind::Cons(Box::new(lhs), Box::new(rhs))),
                Infix::Call(name) => {
                    let f = self.mk(pos, ExprKind::Var(name.into()));
                    self.mk(
                        pos,
                        ExprKind::App {
                            func: Box::new(f),
                            args: vec![lhs, rhs],
                            tail: false,
                        },
                    )
                }
                Infix::RevApply => self.mk(
                    pos,
                    ExprKind::App {
                        func: Box::new(rhs),
                        args: vec![lhs],
                        tail: false,
                    },
                ),
                Infix::Apply => self.mk(
                    pos,
                    ExprKind::App {
                        func: Box::new(lhs),
                        args: vec![rhs],
                        tail: false,
                    },
                ),
                Infix::Assign(op) => self.assignment(op, pos, lhs, rhs)?,
            };
        }
        for _ in 0..chain {
            self.leave();
        }
        self.leave();
        Ok(lhs)
    }

    fn prefix(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        match self.peek().clone() {
            Tok::Op(o) if o == "-" || o == "-." => {
                self.advance();
                let float = o == "-.";
                let operand = self.binary(PREFIX_MINUS_BP)?;
                // OCaml folds the sign into a literal operand: `-1` is a constant, not a negation.
                Ok(match operand.kind {
                    ExprKind::Int(i) if !float => {
                        self.mk(pos, ExprKind::Int(crate::value::wrap63(i.wrapping_neg())))
                    }
                    ExprKind::Float(f) => self.mk(pos, ExprKind::Float(-f)),
                    _ => {
                        let op = if float { UnOp::FNeg } else { UnOp::Neg };
                        self.mk(pos, ExprKind::UnOp(op, Box::new(operand)))
                    }
                })
            }
            Tok::Op(o) if o == "+" || o == "+." => {
                self.advance();
                self.binary(PREFIX_MINUS_BP)
            }
            Tok::Kw(Kw::Let) => self.let_expr(),
            Tok::Kw(Kw::For | Kw::While) => self.loop_expr(),
            Tok::Kw(Kw::Fun) => {
                self.advance();
                let mut params = Vec::new();
                let mut labels = Vec::new();
                let mut defaults = Vec::new();
                loop {
                    let (param, label) = self.param(&mut defaults)?;
                    params.push(param);
                    labels.push(label);
                    if self.is_op("->") {
                        break;
                    }
                    if self.is_op(":") {
                        return self.unsupported(self.pos(), "return type annotations on `fun`");
                    }
                }
                self.advance();
                let body = self.seq_expr()?;
                let body = self.with_defaults(defaults, body);
                Ok(self.fun(pos, params, labels, body))
            }
            Tok::Kw(Kw::Function) => {
                self.advance();
                let arms = self.arms()?;
                Ok(self.mk(pos, ExprKind::Function(arms)))
            }
            Tok::Kw(Kw::Match) => {
                self.advance();
                self.match_expr(pos)
            }
            Tok::Kw(Kw::Try) => {
                self.advance();
                let body = self.seq_expr()?;
                self.expect_kw(Kw::With, "with")?;
                let arms = self.arms()?;
                Ok(self.mk(pos, ExprKind::Try(Box::new(body), arms)))
            }
            Tok::Kw(Kw::If) => {
                self.advance();
                let cond = self.seq_expr()?;
                self.expect_kw(Kw::Then, "then")?;
                let then = self.expr()?;
                let els = if self.eat_kw(Kw::Else) {
                    Some(Box::new(self.expr()?))
                } else {
                    None
                };
                Ok(self.mk(pos, ExprKind::If(Box::new(cond), Box::new(then), els)))
            }
            _ => self.application(),
        }
    }

    /// Builds `fun params -> body`, merging a directly nested `fun` into one n-ary function,
    /// as the compiler does (Translcore), so that `fun x -> fun y -> e` has arity 2.
    fn fun(
        &mut self,
        pos: Pos,
        mut params: Vec<Pattern>,
        mut labels: Vec<crate::labels::ParamLabel>,
        body: Expr,
    ) -> Expr {
        let body = match body.kind {
            ExprKind::Fun {
                params: inner,
                body: inner_body,
            } => {
                let inner_labels = self.labels.funs.remove(&body.id);
                labels.extend(
                    inner_labels
                        .unwrap_or_else(|| vec![crate::labels::ParamLabel::Plain; inner.len()]),
                );
                params.extend(inner);
                *inner_body
            }
            _ => body,
        };
        let f = self.mk(
            pos,
            ExprKind::Fun {
                params,
                body: Box::new(body),
            },
        );
        self.record_param_labels(&f, labels);
        f
    }

    fn let_expr(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        self.expect_kw(Kw::Let, "let")?;
        if matches!(self.peek(), Tok::Kw(Kw::Unsupported("open"))) {
            self.advance();
            let frames = self.modules.frame_count();
            let opened = self.opened_module()?;
            self.expect_kw(Kw::In, "in")?;
            let mut body = self.seq_expr()?;
            self.modules.close_frames(frames);
            opened.qualify_expr(&mut body);
            return Ok(body);
        }
        if matches!(self.peek(), Tok::Kw(Kw::Unsupported("module"))) {
            return self.let_module(pos);
        }
        if self.is_kw(Kw::Exception) {
            return self.unsupported(pos, "local exceptions (`let exception`)");
        }
        let rec_ = self.eat_kw(Kw::Rec);
        let mut bindings = self.bindings(rec_)?;
        self.expect_kw(Kw::In, "in")?;
        let mut body = self.seq_expr()?;
        // ocamlopt's Translcore nests `let p1 = e1 and p2 = e2 in b` as `let p1 = e1 in let p2 =
        // e2 in b` (so Simplif turns each `ref` into a variable of its own, and nothing is
        // tupled): so does the tree, unless a later right-hand side names what an earlier
        // binding binds and nesting would capture it.
        if !rec_ && bindings.len() > 1 && nests_as_written(&bindings) {
            while bindings.len() > 1 {
                let last = bindings.pop().expect("more than one binding");
                body = self.let_in(last.pos, false, vec![last], body);
            }
        }
        Ok(self.let_in(pos, rec_, bindings, body))
    }

    /// A simple expression and the field accesses and indexing after it.
    pub(crate) fn simple_expr(&mut self) -> PResult<Expr> {
        let e = self.atom()?;
        self.postfix(e)
    }

    /// A simple expression without what follows it (`!r.f` is `(!r).f`).
    pub(crate) fn atom(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let kind = match self.peek().clone() {
            Tok::Ident(s) => {
                self.advance();
                ExprKind::Var(s)
            }
            Tok::Uident(name) => {
                self.advance();
                match self.capitalised(name, pos)? {
                    Capitalised::Value(e) => return Ok(e),
                    Capitalised::Constructor(c) => ExprKind::Constr(c, None),
                }
            }
            Tok::Op(o) if o == "{" => return self.record_expr(),
            Tok::Op(o) if o == "[|" => return self.array_expr(),
            Tok::Op(o) if o == "!" => return self.deref(),
            Tok::Int(i) => {
                self.advance();
                ExprKind::Int(i)
            }
            Tok::Float(f) => {
                self.advance();
                ExprKind::Float(f)
            }
            Tok::Str(s) => {
                self.advance();
                ExprKind::Str(s)
            }
            Tok::Char(c) => {
                self.advance();
                ExprKind::Char(c)
            }
            Tok::Kw(Kw::True) => {
                self.advance();
                ExprKind::Bool(true)
            }
            Tok::Kw(Kw::False) => {
                self.advance();
                ExprKind::Bool(false)
            }
            Tok::Kw(Kw::Begin) => {
                self.advance();
                if self.eat_kw(Kw::End) {
                    ExprKind::Unit
                } else {
                    let e = self.seq_expr()?;
                    self.expect_kw(Kw::End, "end")?;
                    return Ok(e);
                }
            }
            Tok::Op(o) if o == "(" => return self.paren_expr(),
            Tok::Op(o) if o == "[" => {
                self.advance();
                let mut items = Vec::new();
                while !self.is_op("]") {
                    items.push(self.expr()?);
                    if !self.eat_op(";") {
                        break;
                    }
                }
                self.expect_op("]")?;
                if items.is_empty() {
                    ExprKind::Constr("[]".into(), None)
                } else {
                    ExprKind::List(items)
                }
            }
            _ => return self.unexpected("an expression"),
        };
        Ok(self.mk(pos, kind))
    }

    fn paren_expr(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        self.expect_op("(")?;
        if self.eat_op(")") {
            return Ok(self.mk(pos, ExprKind::Unit));
        }
        // Operator sections: `( + )`, `( mod )`.
        let op_text = match self.peek() {
            Tok::Op(o) => Some(o.clone()),
            Tok::Kw(
                k
                @ (Kw::Mod | Kw::Land | Kw::Lor | Kw::Lxor | Kw::Lsl | Kw::Lsr | Kw::Asr | Kw::Or),
            ) => Some(format!("{k:?}").to_lowercase()),
            _ => None,
        };
        if let Some(op) = op_text {
            if matches!(self.peek_at(1), Tok::Op(c) if c == ")") && op != "-"
                || op == "-" && matches!(self.peek_at(1), Tok::Op(c) if c == ")")
            {
                let Some(name) = operator_section(&op) else {
                    return self.unsupported(pos, format!("the operator `{op}`"));
                };
                self.advance();
                self.advance();
                return Ok(self.mk(pos, ExprKind::Var(name.into())));
            }
        }
        let inner = self.seq_expr()?;
        let result = if self.eat_op(":") {
            let t = self.type_expr()?;
            self.mk(pos, ExprKind::Annot(Box::new(inner), t))
        } else {
            inner
        };
        if self.is_op(":>") {
            return self.unsupported(self.pos(), "coercions (`:>`)");
        }
        self.expect_op(")")?;
        Ok(result)
    }
}

/// Whether the bindings of a `let … and …` mean the same nested one inside the next: no
/// right-hand side names a variable an earlier binding binds.
fn nests_as_written(bindings: &[Binding]) -> bool {
    let mut bound = Vec::new();
    bindings.iter().all(|b| {
        let free = crate::fv::of_function(&[], &b.expr);
        let independent = bound.iter().all(|n: &String| !free.contains(n));
        crate::fv::pattern_vars(&b.pat, &mut bound);
        independent
    })
}
