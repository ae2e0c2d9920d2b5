//! Parsing of a program's own modules and of the paths that reach into them (see
//! [`crate::user_module`] for what they compile to): `module` items, signatures (read past),
//! and `M.x`, `M.N.C`, `M.t`, `r.M.f`, `M.(e)` wherever a value, constructor, type or field
//! may be written.

use crate::ast::*;
use crate::lexer::{Kw, Tok};
use crate::parser::{PResult, Parser};
use crate::user_module::{Kind, UserModule};
use std::rc::Rc;

/// What a capitalised name starts in an expression.
pub(crate) enum Capitalised {
    /// A value (`M.x`, `List.map`) or an expression in an opened module (`M.(e)`).
    Value(Expr),
    /// A constructor, resolved (`C`, `M.C`).
    Constructor(String),
}

/// Whether a module of this name would hide a Stdlib module the subset reads or knows.
fn hides_stdlib(name: &str) -> bool {
    crate::stdlib_source::MODULES
        .iter()
        .any(|(m, _)| *m == name)
        || crate::prelude::MODULES.contains(&name)
}

impl Parser<'_> {
    /// A `module` item (the keyword is the current token): the items its structure flattens
    /// to (none for an alias or a module type).
    pub(crate) fn module_item(&mut self) -> PResult<Vec<Item>> {
        let pos = self.pos();
        self.advance();
        if self.eat_kw(Kw::Type) {
            // `module type S = sig … end`: a signature constrains, it computes nothing.
            self.module_name()?;
            if self.eat_op("=") {
                self.skip_module_type()?;
            }
            return Ok(Vec::new());
        }
        if self.is_kw(Kw::Rec) {
            return self.unsupported(pos, "recursive modules (`module rec`)");
        }
        self.module_definition()
    }

    /// `let module M = … in e` (the `let` was just read, `module` is the current token): the
    /// body with the structure's items around it as nested `let`s, in their order. ocamlopt
    /// compiles a local structure's functions as the unit's own, called directly (`M.f x` is
    /// a call of a known function), so its items count as the same bindings written as `let`s;
    /// they bind the qualified names (`M.f`) the body's paths resolve to. `M` and the modules
    /// declared in it are visible in the body only.
    pub(crate) fn let_module(&mut self, pos: Pos) -> PResult<Expr> {
        self.advance();
        if self.is_kw(Kw::Rec) {
            return self.unsupported(pos, "recursive modules (`module rec`)");
        }
        let visible = self.modules.module_count();
        let name = match self.peek() {
            Tok::Uident(name) => name.clone(),
            _ => return self.unexpected("a module name"),
        };
        let items = self.module_definition()?;
        let block = match self.modules.module(&name).cloned() {
            Some(module) if !items.is_empty() => Some(self.module_block(pos, &module)),
            _ => None,
        };
        self.expect_kw(Kw::In, "in")?;
        let mut body = self.seq_expr()?;
        self.modules.forget_modules(visible);
        // Translmod builds the structure's block from its values once they are all defined
        // (ocamlopt -S: `M` of `let module M = struct let sq x = x * x let go … end` is a block
        // of 3 words, allocated though every call of `M.go` is direct): the block is a tuple
        // here, bound to the module's name, which no value can be.
        if let Some(block) = block {
            let pat = self.var_pattern(pos, name.clone());
            body = self.bind_in(pos, pat, block, body);
        }
        for item in items.into_iter().rev() {
            body = match item {
                Item::Let { rec_, bindings } => {
                    let at = bindings.first().map_or(pos, |b| b.pos);
                    self.let_in(at, rec_, bindings, body)
                }
                Item::Expr(e) => {
                    let at = e.pos;
                    self.mk(at, ExprKind::Seq(Box::new(e), Box::new(body)))
                }
                Item::Type(_) | Item::Exception(_) => {
                    return self.unsupported(
                        pos,
                        "a type or an exception declared in a local module (`let module`)",
                    )
                }
            };
        }
        Ok(body)
    }

    /// The block a local structure's values make (one field per value, and one per module
    /// declared in it, itself such a block), as the tuple that allocates the same words.
    fn module_block(&mut self, pos: Pos, module: &UserModule) -> Expr {
        let mut direct = Vec::new();
        let mut nested = std::collections::BTreeSet::new();
        for value in &module.values {
            match value.split_once('.') {
                None => direct.push(value.clone()),
                Some((inner, _)) => {
                    nested.insert(inner.to_string());
                }
            }
        }
        let mut fields: Vec<Expr> = direct
            .into_iter()
            .map(|v| {
                let qualified = format!("{}.{v}", module.path);
                self.mk(pos, ExprKind::Var(qualified))
            })
            .collect();
        for inner in nested {
            let prefix = format!("{inner}.");
            let inner_module = UserModule {
                path: format!("{}.{inner}", module.path),
                values: module
                    .values
                    .iter()
                    .filter_map(|v| v.strip_prefix(&prefix).map(str::to_string))
                    .collect(),
                ..UserModule::default()
            };
            fields.push(self.module_block(pos, &inner_module));
        }
        self.mk(pos, ExprKind::Tuple(fields))
    }

    /// What follows `module` in a definition: `M [: S] = struct … end` or `M [: S] = N`; the
    /// items the structure flattens to (none for an alias).
    fn module_definition(&mut self) -> PResult<Vec<Item>> {
        let name_pos = self.pos();
        let name = self.module_name()?;
        if self.is_op("(") {
            return self.unsupported(self.pos(), "functors (`module F (X : S) = …`)");
        }
        if hides_stdlib(&name) {
            return self.unsupported(
                name_pos,
                format!("a module named `{name}`, which would hide the Stdlib's"),
            );
        }
        if self.eat_op(":") {
            self.skip_module_type()?;
        }
        self.expect_op("=")?;
        match self.peek().clone() {
            Tok::Kw(Kw::Unsupported("struct")) => {
                self.advance();
                let path = self.modules.enter_structure(&name);
                let mut items = self.structure_items(true)?;
                let module = crate::user_module::flatten(&path, &mut items);
                self.modules.leave_structure(&name, module);
                Ok(items)
            }
            Tok::Uident(target) => {
                let at = self.pos();
                self.advance();
                let module = match self.user_module_path(&target)? {
                    Some(m) => m,
                    None if hides_stdlib(&target) => Rc::new(UserModule::stdlib_alias(&target)),
                    None => return self.unknown_module(at, &target),
                };
                if self.is_op("(") {
                    return self.unsupported(self.pos(), "functor applications");
                }
                self.modules.add_module(&name, module);
                Ok(Vec::new())
            }
            Tok::Kw(Kw::Unsupported("functor")) => {
                self.unsupported(self.pos(), "functors (`functor`)")
            }
            _ => self.unexpected("`struct` or a module name"),
        }
    }

    fn module_name(&mut self) -> PResult<String> {
        match self.peek().clone() {
            Tok::Uident(name) => {
                self.advance();
                Ok(name)
            }
            _ => self.unexpected("a module name"),
        }
    }

    /// Reads past a module type, `sig … end` or a name (`S`, `M.S`), up to the `=` of the
    /// module's definition or the next item.
    fn skip_module_type(&mut self) -> PResult<()> {
        let start = self.pos();
        let mut depth = 0u32;
        loop {
            match self.peek() {
                Tok::Eof if depth > 0 => {
                    return Err(crate::parser::ParseError::Syntax {
                        pos: start,
                        message: "this signature has no `end`".into(),
                    })
                }
                // The end of the file or of the structure around a named module type.
                Tok::Eof | Tok::Kw(Kw::End) if depth == 0 => return Ok(()),
                Tok::Kw(Kw::Unsupported("sig" | "struct" | "object")) | Tok::Kw(Kw::Begin) => {
                    depth += 1
                }
                Tok::Kw(Kw::End) => {
                    depth -= 1;
                    if depth == 0 {
                        self.advance();
                        if self.is_kw(Kw::With) {
                            return self.skip_constraints();
                        }
                        return Ok(());
                    }
                }
                Tok::Kw(Kw::With) if depth == 0 => return self.skip_constraints(),
                Tok::Op(o) if depth == 0 && (o == "=" || o == ";;") => return Ok(()),
                Tok::Kw(Kw::Let | Kw::Type | Kw::Exception | Kw::Unsupported("module"))
                    if depth == 0 =>
                {
                    return Ok(())
                }
                _ => {}
            }
            self.advance();
        }
    }

    /// Reads past `with type t = u and type 'a v := w …` after a module type (the `with` is the
    /// current token): a type expression has no `=`, so each ends at the next `and` or `=`.
    fn skip_constraints(&mut self) -> PResult<()> {
        self.advance();
        loop {
            if !self.eat_kw(Kw::Type) {
                return self.unsupported(self.pos(), "`with module` constraints");
            }
            while !self.is_op("=") && !self.is_op(":=") {
                if matches!(self.peek(), Tok::Eof) {
                    return self.unexpected("`=` in the constraint");
                }
                self.advance();
            }
            self.advance();
            loop {
                match self.peek() {
                    Tok::Kw(Kw::And) => break,
                    Tok::Op(o) if o == "=" || o == ";;" => return Ok(()),
                    Tok::Eof
                    | Tok::Kw(Kw::End | Kw::Let | Kw::Type | Kw::Exception)
                    | Tok::Kw(Kw::Unsupported("module" | "open")) => return Ok(()),
                    _ => {}
                }
                self.advance();
            }
            self.advance();
        }
    }

    fn unknown_module<T>(&self, pos: Pos, name: &str) -> PResult<T> {
        if crate::stdlib_source::is_structure(name) {
            // Which of their phrases a program needs is read off its `Queue.f` tokens.
            return self.unsupported(
                pos,
                format!("module `{name}` other than by its qualified names (`{name}.f`, `{name}.C`: Stack, Queue and Buffer are read only so)"),
            );
        }
        self.unsupported(
            pos,
            format!("module `{name}` (the subset knows the program's own modules and the Stdlib's List, Array, String, Bytes, Char, Int, Float, Option, Fun, Sys, Stack, Queue and Buffer)"),
        )
    }

    /// The program's module that `first` (just read) and the `.N` after it name, reading them;
    /// `None` (nothing read) when `first` is no module of the program's.
    pub(crate) fn user_module_path(&mut self, first: &str) -> PResult<Option<Rc<UserModule>>> {
        let Some(mut module) = self.modules.module(first).cloned() else {
            return Ok(None);
        };
        let mut written = first.to_string();
        while self.is_op(".") {
            let Tok::Uident(next) = self.peek_at(1).clone() else {
                break;
            };
            let longer = format!("{written}.{next}");
            let Some(inner) = self.modules.module(&longer) else {
                break;
            };
            module = inner.clone();
            written = longer;
            self.advance();
            self.advance();
        }
        Ok(Some(module))
    }

    /// What a capitalised name (just read) starts in an expression: a constructor, or a path
    /// to a value, a constructor or `M.(e)`.
    pub(crate) fn capitalised(&mut self, name: String, pos: Pos) -> PResult<Capitalised> {
        if !self.is_op(".") {
            let c = self.modules.resolve(Kind::Constructor, &name);
            return Ok(Capitalised::Constructor(c));
        }
        let Some(module) = self.user_module_path(&name)? else {
            return match self.module_value(&name, pos)? {
                Some(e) => Ok(Capitalised::Value(e)),
                None => self.unknown_module(pos, &name),
            };
        };
        if module.stdlib {
            return match self.module_value(&module.path, pos)? {
                Some(e) => Ok(Capitalised::Value(e)),
                None => self.unexpected("a value of the module"),
            };
        }
        self.expect_op(".")?;
        match self.peek().clone() {
            Tok::Ident(x) => {
                self.advance();
                let var = ExprKind::Var(format!("{}.{x}", module.path));
                Ok(Capitalised::Value(self.mk(pos, var)))
            }
            Tok::Uident(c) => {
                let at = self.pos();
                self.advance();
                self.member(&module, Kind::Constructor, &c, at)
                    .map(Capitalised::Constructor)
            }
            Tok::Op(o) if o == "(" => {
                self.advance();
                let frames = self.modules.frame_count();
                self.modules.open(&module);
                let mut e = self.seq_expr()?;
                self.modules.close_frames(frames);
                self.expect_op(")")?;
                crate::open_module::Opened::of_names(&module.path, module.values.clone())
                    .qualify_expr(&mut e);
                Ok(Capitalised::Value(e))
            }
            _ => self.unexpected("a value, a constructor or `(` after the module path"),
        }
    }

    /// A constructor in a pattern: `C` or `M.C` (the capitalised name was just read).
    pub(crate) fn constructor_path(&mut self, name: String, pos: Pos) -> PResult<String> {
        if !self.is_op(".") {
            return Ok(self.modules.resolve(Kind::Constructor, &name));
        }
        let module = self.module_prefix(&name, pos)?;
        let at = self.pos();
        match self.peek().clone() {
            Tok::Uident(c) => {
                self.advance();
                self.member(&module, Kind::Constructor, &c, at)
            }
            _ => self.unexpected("a constructor after the module path"),
        }
    }

    /// A type name in a type expression, bare (resolved) or after a module path; `None` when
    /// the current token starts none.
    pub(crate) fn type_name(&mut self) -> PResult<Option<String>> {
        match self.peek().clone() {
            Tok::Ident(s) if s != "_" => {
                self.advance();
                Ok(Some(self.modules.resolve(Kind::Type, &s)))
            }
            Tok::Uident(m) => {
                let pos = self.pos();
                self.advance();
                let module = self.module_prefix(&m, pos)?;
                let at = self.pos();
                let t = self.ident("a type name")?;
                self.member(&module, Kind::Type, &t, at).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// A record field's name: `f` (resolved) or `M.f`.
    pub(crate) fn field_name(&mut self) -> PResult<String> {
        if let Tok::Uident(m) = self.peek().clone() {
            let pos = self.pos();
            self.advance();
            let module = self.module_prefix(&m, pos)?;
            let at = self.pos();
            let f = self.ident("a field name")?;
            return self.member(&module, Kind::Field, &f, at);
        }
        let f = self.ident("a field name")?;
        Ok(self.modules.resolve(Kind::Field, &f))
    }

    /// The last name of the field path ahead, as written (`f` of `M.f`): the variable a
    /// punned field (`{ M.f; … }`) names.
    pub(crate) fn field_written(&self) -> String {
        let mut i = 0;
        while matches!(self.peek_at(i), Tok::Uident(_)) {
            i += 2;
        }
        match self.peek_at(i) {
            Tok::Ident(f) => f.clone(),
            _ => String::new(),
        }
    }

    /// Whether the tokens ahead are a qualified field (`M.N.f` then `=`, `;` or `}`), as the
    /// first field of a record expression is written.
    pub(crate) fn qualified_field_ahead(&self) -> bool {
        let mut i = 0;
        while matches!(self.peek_at(i), Tok::Uident(_))
            && matches!(self.peek_at(i + 1), Tok::Op(o) if o == ".")
        {
            i += 2;
        }
        i > 0
            && matches!(self.peek_at(i), Tok::Ident(_))
            && matches!(self.peek_at(i + 1), Tok::Op(o) if o == "=" || o == ";" || o == "}")
    }

    /// The program's module a path names (its first name just read, the rest and the final
    /// `.` read here), for a constructor, type or field after it.
    fn module_prefix(&mut self, first: &str, pos: Pos) -> PResult<Rc<UserModule>> {
        let Some(module) = self.user_module_path(first)? else {
            return self.unknown_module(pos, first);
        };
        if module.stdlib {
            return self.unsupported(pos, format!("types and constructors of `{}`", module.path));
        }
        self.expect_op(".")?;
        Ok(module)
    }

    fn member(&self, module: &UserModule, kind: Kind, name: &str, pos: Pos) -> PResult<String> {
        crate::user_module::Scope::member(module, kind, name).ok_or_else(|| {
            let what = match kind {
                Kind::Constructor => "constructor",
                Kind::Type => "type",
                Kind::Field => "field",
            };
            crate::parser::ParseError::Syntax {
                pos,
                message: format!("module `{}` has no {what} `{name}`", module.path),
            }
        })
    }
}
