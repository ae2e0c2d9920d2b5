//! Hand-written recursive-descent parser: items, type expressions and patterns here,
//! expressions (a Pratt parser with OCaml's precedence and associativity) in
//! [`crate::parser_expr`], types in [`crate::parser_types`], patterns in
//! [`crate::parser_pat`].
//!
//! Anything outside the subset is refused with [`ParseError::Unsupported`], naming the
//! construct, rather than a generic syntax error: the user should learn that `for` loops are
//! not supported, not that a token was unexpected.

use crate::ast::*;
use crate::lexer::{Kw, Tok, Token};

/// Nesting beyond this is refused: it keeps every later recursive pass (typing, compiling,
/// dropping the tree) far from the end of its thread's stack.
pub(crate) const MAX_NESTING: u32 = 2_000;

#[derive(Debug)]
pub(crate) enum ParseError {
    Syntax { pos: Pos, message: String },
    Unsupported { pos: Pos, construct: String },
}

pub(crate) type PResult<T> = Result<T, ParseError>;

pub(crate) struct Parser<'t> {
    toks: &'t [Token],
    at: usize,
    next_id: NodeId,
    depth: u32,
    /// The labels of the labelled functions and applications read so far.
    pub(crate) labels: crate::labels::Labels,
    /// The program's own modules and the names they declare, where the parser reads.
    pub(crate) modules: crate::user_module::Scope,
}

pub(crate) fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Ident(s) | Tok::Uident(s) => format!("`{s}`"),
        Tok::Int(i) => format!("integer {i}"),
        Tok::Float(f) => format!("float {f}"),
        Tok::Str(_) => "a string literal".into(),
        Tok::Char(_) => "a character literal".into(),
        Tok::TyVar(v) => format!("type variable '{v}"),
        Tok::Kw(Kw::Unsupported(k)) => format!("`{k}`"),
        Tok::Kw(k) => format!("`{}`", format!("{k:?}").to_lowercase()),
        Tok::Op(o) => format!("`{o}`"),
        Tok::Eof => "end of file".into(),
    }
}

/// What an unsupported keyword is called in an error message.
pub(crate) fn unsupported_keyword(k: &str) -> String {
    match k {
        "module" | "struct" | "sig" | "functor" | "open" | "include" => format!("modules (`{k}`)"),
        "object" | "method" | "class" | "new" | "inherit" | "initializer" | "virtual" => {
            format!("objects and classes (`{k}`)")
        }
        _ => format!("`{k}`"),
    }
}

impl<'t> Parser<'t> {
    pub(crate) fn new(toks: &'t [Token]) -> Self {
        Self::with_first_id(toks, 0)
    }

    /// A parser numbering its nodes after `first_id` (ids must be unique across the prelude
    /// and the program, which are typed together).
    pub(crate) fn with_first_id(toks: &'t [Token], first_id: NodeId) -> Self {
        Parser {
            toks,
            at: 0,
            next_id: first_id,
            depth: 0,
            labels: Default::default(),
            modules: Default::default(),
        }
    }

    pub(crate) fn node_count(&self) -> NodeId {
        self.next_id
    }

    pub(crate) fn fresh_id(&mut self) -> NodeId {
        self.next_id += 1;
        self.next_id
    }

    pub(crate) fn peek(&self) -> &Tok {
        &self.toks[self.at].tok
    }

    pub(crate) fn peek_at(&self, ahead: usize) -> &Tok {
        let i = (self.at + ahead).min(self.toks.len() - 1);
        &self.toks[i].tok
    }

    pub(crate) fn pos(&self) -> Pos {
        self.toks[self.at].pos
    }

    pub(crate) fn advance(&mut self) -> Tok {
        let t = self.toks[self.at].tok.clone();
        if self.at + 1 < self.toks.len() {
            self.at += 1;
        }
        t
    }

    pub(crate) fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if o == op)
    }

    pub(crate) fn is_kw(&self, kw: Kw) -> bool {
        matches!(self.peek(), Tok::Kw(k) if *k == kw)
    }

    pub(crate) fn eat_op(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.advance();
            true
        } else {
            false
        }
    }

    pub(crate) fn eat_kw(&mut self, kw: Kw) -> bool {
        if self.is_kw(kw) {
            self.advance();
            true
        } else {
            false
        }
    }

    pub(crate) fn syntax<T>(&self, message: impl Into<String>) -> PResult<T> {
        Err(ParseError::Syntax {
            pos: self.pos(),
            message: message.into(),
        })
    }

    pub(crate) fn unsupported<T>(&self, pos: Pos, construct: impl Into<String>) -> PResult<T> {
        Err(ParseError::Unsupported {
            pos,
            construct: construct.into(),
        })
    }

    /// The error for a token that cannot appear here; unsupported syntax is named as such.
    pub(crate) fn unexpected<T>(&self, wanted: &str) -> PResult<T> {
        let pos = self.pos();
        match self.peek() {
            Tok::Kw(Kw::Unsupported(k)) => self.unsupported(pos, unsupported_keyword(k)),
            Tok::Op(o) if o == "~" || o == "?" => {
                self.unsupported(pos, "labelled and optional arguments")
            }
            Tok::Op(o) if o == "`" => self.unsupported(pos, "polymorphic variants"),
            Tok::Op(o)
                if !matches!(
                    o.as_str(),
                    ")" | "]"
                        | ";"
                        | ";;"
                        | ","
                        | "|"
                        | "->"
                        | ":"
                        | "="
                        | "("
                        | "["
                        | "-"
                        | "-."
                        | "{"
                        | "}"
                        | "[|"
                        | "!"
                        | "<-"
                        | ":="
                ) =>
            {
                self.unsupported(pos, format!("the operator `{o}`"))
            }
            t => self.syntax(format!("expected {wanted}, found {}", describe(t))),
        }
    }

    pub(crate) fn expect_op(&mut self, op: &str) -> PResult<()> {
        if self.eat_op(op) {
            Ok(())
        } else {
            self.unexpected(&format!("`{op}`"))
        }
    }

    pub(crate) fn expect_kw(&mut self, kw: Kw, shown: &str) -> PResult<()> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            self.unexpected(&format!("`{shown}`"))
        }
    }

    pub(crate) fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return self.unsupported(
                self.pos(),
                format!("nesting deeper than {MAX_NESTING} levels"),
            );
        }
        Ok(())
    }

    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    pub(crate) fn ident(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.advance();
                Ok(s)
            }
            _ => self.unexpected(what),
        }
    }

    /// The module named by the current token, for `open`: one of the program's (whose
    /// constructors, types and fields are then in scope until [`crate::user_module::Scope::close_frames`])
    /// or a Stdlib module the subset knows (see [`crate::open_module`]), with the values it
    /// defines.
    pub(crate) fn opened_module(&mut self) -> PResult<crate::open_module::Opened> {
        let pos = self.pos();
        let Tok::Uident(module) = self.peek().clone() else {
            return self.unexpected("a module name");
        };
        self.advance();
        let module = match self.user_module_path(&module)? {
            Some(m) if !m.stdlib => {
                self.modules.open(&m);
                return Ok(crate::open_module::Opened::of_names(
                    &m.path,
                    m.values.clone(),
                ));
            }
            Some(alias) => alias.path.clone(),
            None => module,
        };
        if crate::stdlib_source::is_structure(&module) {
            return self.unsupported(
                pos,
                format!("opening `{module}` (Stack, Queue and Buffer are read only by their qualified names, `{module}.f`)"),
            );
        }
        if !crate::open_module::openable(&module) {
            return self.unsupported(
                pos,
                format!("opening `{module}` (only the program's modules and the Stdlib modules the subset supports)"),
            );
        }
        crate::open_module::Opened::read(&module).or_else(|why| self.unsupported(pos, why))
    }

    // ----- items -----

    pub(crate) fn program(&mut self) -> PResult<Vec<Item>> {
        self.structure_items(false)
    }

    /// The items of the program, or of a structure up to its `end` (read) when `inside`.
    pub(crate) fn structure_items(&mut self, inside: bool) -> PResult<Vec<Item>> {
        let mut items = Vec::new();
        // Each `open`, with the index of the first item in its scope.
        let mut opens = Vec::new();
        loop {
            while self.eat_op(";;") {}
            let end = if inside {
                self.eat_kw(Kw::End)
            } else {
                matches!(self.peek(), Tok::Eof)
            };
            if end {
                // The last `open` first: a name it qualifies is no longer one an earlier
                // `open` could take.
                for (first, opened) in opens.iter().rev() {
                    crate::open_module::Opened::qualify_items(opened, &mut items[*first..]);
                }
                return Ok(items);
            }
            match self.peek() {
                Tok::Eof => return self.unexpected("`end` (of the structure)"),
                Tok::Kw(Kw::Unsupported("open")) => {
                    self.advance();
                    opens.push((items.len(), self.opened_module()?));
                }
                Tok::Kw(Kw::Unsupported("module")) => items.extend(self.module_item()?),
                Tok::Kw(Kw::Let) => items.push(self.let_item()?),
                Tok::Kw(Kw::Type) => items.push(self.type_item()?),
                Tok::Kw(Kw::Exception) => {
                    self.advance();
                    items.push(Item::Exception(self.constr_decl()?));
                }
                Tok::Kw(Kw::Unsupported(_)) => return self.unexpected("a definition"),
                _ => items.push(Item::Expr(self.seq_expr()?)),
            }
        }
    }

    fn let_item(&mut self) -> PResult<Item> {
        let pos = self.pos();
        self.expect_kw(Kw::Let, "let")?;
        let rec_ = self.eat_kw(Kw::Rec);
        let bindings = self.bindings(rec_)?;
        if self.eat_kw(Kw::In) {
            // `let … in e` at top level is an expression.
            let body = self.seq_expr()?;
            return Ok(Item::Expr(self.let_in(pos, rec_, bindings, body)));
        }
        Ok(Item::Let { rec_, bindings })
    }

    /// `binding (and binding)*`.
    pub(crate) fn bindings(&mut self, rec_: bool) -> PResult<Vec<Binding>> {
        let mut out = vec![self.attributed_binding(rec_)?];
        while self.eat_kw(Kw::And) {
            out.push(self.attributed_binding(rec_)?);
        }
        Ok(out)
    }

    /// A binding with its inline attribute: `let[@inline never] f …`, `let[@inline] rec f …`,
    /// `and[@inline] g …` (on the keyword before it), or `… [@@inline never]` after it.
    fn attributed_binding(&mut self, rec_: bool) -> PResult<Binding> {
        let before = |at: usize| {
            (1..=2)
                .filter_map(|back| at.checked_sub(back).map(|i| &self.toks[i]))
                .take_while(|t| matches!(t.tok, Tok::Kw(Kw::Let | Kw::Rec | Kw::And)))
                .find_map(|t| t.inline.filter(|a| !a.item))
        };
        let on_keyword = before(self.at);
        let mut binding = self.binding(rec_)?;
        let after = self
            .at
            .checked_sub(1)
            .and_then(|i| self.toks[i].inline)
            .filter(|a| a.item);
        if let Some(attribute) = after.or(on_keyword) {
            binding.inline = attribute.inline;
        }
        Ok(binding)
    }

    fn binding(&mut self, rec_: bool) -> PResult<Binding> {
        let pos = self.pos();
        let is_function_binding = matches!(self.peek(), Tok::Ident(_))
            && !matches!(self.peek_at(1), Tok::Op(o) if o == "=" || o == ":" || o == "," || o == "::" || o == "|")
            && !matches!(self.peek_at(1), Tok::Kw(Kw::As));
        if is_function_binding {
            let name = self.ident("a name")?;
            let mut params = Vec::new();
            let mut labels = Vec::new();
            let mut defaults = Vec::new();
            while !self.is_op("=") && !self.is_op(":") {
                let (param, label) = self.param(&mut defaults)?;
                params.push(param);
                labels.push(label);
            }
            let annot = if self.eat_op(":") {
                Some(self.type_expr()?)
            } else {
                None
            };
            self.expect_op("=")?;
            let mut body = self.seq_expr()?;
            if let Some(t) = annot {
                body = Expr {
                    id: self.fresh_id(),
                    pos: t.pos,
                    kind: ExprKind::Annot(Box::new(body), t),
                };
            }
            let body = self.with_defaults(defaults, body);
            let id = self.fresh_id();
            let expr = Expr {
                id,
                pos,
                kind: ExprKind::Fun {
                    params,
                    body: Box::new(body),
                },
            };
            self.record_param_labels(&expr, labels);
            let pat = Pattern {
                id: self.fresh_id(),
                pos,
                kind: PatKind::Var(name),
            };
            return Ok(Binding {
                pat,
                expr,
                pos,
                inline: Inline::Default,
            });
        }
        let mut pat = self.pattern()?;
        if rec_ && !matches!(pat.kind, PatKind::Var(_)) {
            return self.unsupported(pos, "`let rec` of a pattern (only `let rec f … = …`)");
        }
        if self.eat_op(":") {
            let t = self.type_expr()?;
            pat = Pattern {
                id: self.fresh_id(),
                pos: t.pos,
                kind: PatKind::Annot(Box::new(pat), t),
            };
        }
        self.expect_op("=")?;
        let expr = self.seq_expr()?;
        Ok(Binding {
            pat,
            expr,
            pos,
            inline: Inline::Default,
        })
    }
}
