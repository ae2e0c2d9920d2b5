//! A program's own modules: `module M = struct … end` (nested ones too), `module M : sig … end
//! = struct … end` and `module M : S = …` (a signature is read past: it changes no count),
//! aliases (`module L = List`, `module N = M`), and `open M`, `let open M in e`, `M.(e)` of
//! them.
//!
//! **As ocamlopt compiles them.** A structure nested in a compilation unit is part of the
//! unit's code: its functions are the unit's functions (`camlProg__f_12`), called directly
//! from inside and outside alike, inlined by the same rules; its other values are fields of
//! the unit's global data, read from outside as from inside (`ocamlopt -S`: `M.tbl` is
//! `camlProg + 24`, no load of `M`'s block), as a top-level `let`'s are. So a module is flattened into the
//! program's items in its place, each name it defines qualified by its path (`M.f`,
//! `M.N.x`), and counted exactly as the same code written at top level.
//!
//! **Names.** Values are qualified after the structure is read, on the syntax tree, as OCaml's
//! scoping resolves them: inside the structure, a name its earlier items define becomes the
//! qualified one wherever nothing in between binds it again (the walk of
//! [`crate::open_module`]). Constructors, exception constructors, types and record fields are
//! resolved as the parser reads them ([`Scope`]): a name the module being read (or a module
//! opened around the code) declared is the qualified one; a later declaration of the same name
//! takes over, as in OCaml. A bare field name no declaration in scope binds is the field of the
//! one module that declares it — what OCaml's type-directed disambiguation finds for `r.x` when
//! `r`'s type is known.

use crate::ast::{ExprKind, Item, PatKind, Pattern, TypeDeclBody};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// What a module defines, under the names written in it; `path` qualifies them.
#[derive(Debug, Clone, Default)]
pub(crate) struct UserModule {
    /// The module's full path (`M`, `M.N`), or the Stdlib module an alias names.
    pub path: String,
    /// An alias of a Stdlib module (`module L = List`): its values are the Stdlib's.
    pub stdlib: bool,
    /// Values, by their names inside the module (a nested module's as `N.x`).
    pub values: BTreeSet<String>,
    /// Constructors (exceptions included), types and record fields, by their names inside the
    /// module, each with its qualified name.
    pub constructors: BTreeMap<String, String>,
    pub types: BTreeMap<String, String>,
    pub fields: BTreeMap<String, String>,
}

impl UserModule {
    pub(crate) fn stdlib_alias(module: &str) -> UserModule {
        UserModule {
            path: module.to_string(),
            stdlib: true,
            ..UserModule::default()
        }
    }
}

/// What the names of constructors, types and fields are where the parser reads: a frame per
/// structure being read and per `open`, innermost last.
#[derive(Debug, Clone, Default)]
struct Frame {
    constructors: BTreeMap<String, String>,
    types: BTreeMap<String, String>,
    fields: BTreeMap<String, String>,
    /// The number of visible modules before the frame: an `open`'s frame makes the opened
    /// module's own modules visible by their short names until it closes.
    modules_before: usize,
}

/// A module visible where the parser reads.
#[derive(Debug, Clone)]
struct Visible {
    /// The path written to reach it (`M`, `M.N`, an alias, or `N` after an `open M`).
    written: String,
    /// Shared: every path written to a module reads it, and a path is read per reference.
    module: Rc<UserModule>,
    /// Made visible by an `open` (not defined where it is visible).
    opened: bool,
}

/// The modules visible where the parser reads, and the resolution of declared names.
#[derive(Debug, Default)]
pub(crate) struct Scope {
    /// Visible modules, latest last (a later module of the same name hides an earlier one).
    modules: Vec<Visible>,
    frames: Vec<Frame>,
    /// Each structure being read, outermost first: its path, and the number of modules and
    /// frames before it.
    open_structures: Vec<(String, usize, usize)>,
    /// Every field a module declares, for bare field names no declaration in scope binds.
    module_fields: BTreeMap<String, BTreeSet<String>>,
}

/// What a kind of declared name is, to pick its table.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    Constructor,
    Type,
    Field,
}

impl Frame {
    fn table(&mut self, kind: Kind) -> &mut BTreeMap<String, String> {
        match kind {
            Kind::Constructor => &mut self.constructors,
            Kind::Type => &mut self.types,
            Kind::Field => &mut self.fields,
        }
    }
}

impl Scope {
    /// The module a path written in the program names (`M`, `M.N`, an alias).
    pub(crate) fn module(&self, path: &str) -> Option<&Rc<UserModule>> {
        self.modules
            .iter()
            .rev()
            .find(|v| v.written == path)
            .map(|v| &v.module)
    }

    /// What a later parse sees of the code read: its modules and their fields, not the
    /// declarations it made at top level (a Stdlib module's own, read before the program).
    pub(crate) fn into_modules(self) -> Scope {
        Scope {
            modules: self.modules,
            module_fields: self.module_fields,
            ..Scope::default()
        }
    }

    /// Whether the parser is inside a structure.
    pub(crate) fn in_structure(&self) -> bool {
        !self.open_structures.is_empty()
    }

    /// Starts reading the structure of module `name`; returns its full path.
    pub(crate) fn enter_structure(&mut self, name: &str) -> String {
        let path = match self.open_structures.last() {
            Some((outer, ..)) => format!("{outer}.{name}"),
            None => name.to_string(),
        };
        self.open_structures
            .push((path.clone(), self.modules.len(), self.frames.len()));
        self.frames.push(Frame {
            modules_before: self.modules.len(),
            ..Frame::default()
        });
        path
    }

    /// Ends the structure being read, whose items (flattened, see [`flatten`]) define `module`:
    /// its frames close, the modules declared inside it become reachable through its name.
    pub(crate) fn leave_structure(&mut self, name: &str, module: UserModule) {
        let (_, modules_at_entry, frames_at_entry) =
            self.open_structures.pop().expect("a structure is open");
        self.frames.truncate(frames_at_entry);
        let inner: Vec<Visible> = self.modules.drain(modules_at_entry..).collect();
        self.add_module(name, Rc::new(module));
        for v in inner.into_iter().filter(|v| !v.opened) {
            self.add_module(&format!("{name}.{}", v.written), v.module);
        }
    }

    /// The number of frames now: what [`Scope::close_frames`] returns to.
    pub(crate) fn frame_count(&self) -> usize {
        self.frames.len()
    }

    pub(crate) fn close_frames(&mut self, count: usize) {
        if let Some(first_closed) = self.frames.get(count) {
            self.modules.truncate(first_closed.modules_before);
        }
        self.frames.truncate(count);
    }

    /// The number of visible modules now: what [`Scope::forget_modules`] returns to.
    pub(crate) fn module_count(&self) -> usize {
        self.modules.len()
    }

    /// Ends the visibility of the modules added since [`Scope::module_count`] said `count`: a
    /// `let module`'s, after its body.
    pub(crate) fn forget_modules(&mut self, count: usize) {
        self.modules.truncate(count);
    }

    /// Adds a module under the name written to reach it (an alias, or one just read).
    pub(crate) fn add_module(&mut self, name: &str, module: Rc<UserModule>) {
        self.modules.push(Visible {
            written: name.to_string(),
            module,
            opened: false,
        });
    }

    /// Opens a module's constructors, types, fields and modules for what the parser reads
    /// next, until [`Scope::close_frames`].
    pub(crate) fn open(&mut self, module: &UserModule) {
        self.frames.push(Frame {
            constructors: module.constructors.clone(),
            types: module.types.clone(),
            fields: module.fields.clone(),
            modules_before: self.modules.len(),
        });
        let prefix = format!("{}.", module.path);
        let inner: Vec<Visible> = self
            .modules
            .iter()
            .filter_map(|v| {
                let short = v.module.path.strip_prefix(&prefix)?;
                (!v.module.stdlib && !short.contains('.')).then(|| Visible {
                    written: short.to_string(),
                    module: v.module.clone(),
                    opened: true,
                })
            })
            .collect();
        self.modules.extend(inner);
    }

    /// Declares a constructor, type or field in the code being read; returns its qualified name.
    pub(crate) fn declare(&mut self, kind: Kind, name: &str) -> String {
        let qualified = match self.open_structures.last() {
            Some((path, ..)) => format!("{path}.{name}"),
            None => name.to_string(),
        };
        if self.frames.is_empty() {
            // The program's own frame: a top-level declaration hides a module's field of the
            // same name from bare field names.
            self.frames.push(Frame {
                modules_before: self.modules.len(),
                ..Frame::default()
            });
        }
        let frame = self.frames.last_mut().expect("a frame");
        frame
            .table(kind)
            .insert(name.to_string(), qualified.clone());
        if matches!(kind, Kind::Field) && self.in_structure() {
            self.module_fields
                .entry(name.to_string())
                .or_default()
                .insert(qualified.clone());
        }
        qualified
    }

    /// What a constructor, type or field written bare names here.
    pub(crate) fn resolve(&mut self, kind: Kind, name: &str) -> String {
        if let Some(q) = self
            .frames
            .iter_mut()
            .rev()
            .find_map(|f| f.table(kind).get(name))
        {
            return q.clone();
        }
        if matches!(kind, Kind::Field) {
            if let Some(only) = self.module_fields.get(name).filter(|q| q.len() == 1) {
                return only.iter().next().expect("one field").clone();
            }
        }
        name.to_string()
    }

    /// What `module`'s constructor, type or field `name` is, when it declares one.
    pub(crate) fn member(module: &UserModule, kind: Kind, name: &str) -> Option<String> {
        let table = match kind {
            Kind::Constructor => &module.constructors,
            Kind::Type => &module.types,
            Kind::Field => &module.fields,
        };
        table.get(name).cloned()
    }
}

/// Qualifies the values `items` (a structure's, in order) define by `path`, and every
/// reference to them inside the structure that OCaml's scoping resolves to them; returns what
/// the module defines. Constructors, types and fields were qualified as they were read.
pub(crate) fn flatten(path: &str, items: &mut [Item]) -> UserModule {
    let mut module = UserModule {
        path: path.to_string(),
        ..UserModule::default()
    };
    for item in items.iter_mut() {
        match item {
            Item::Let { bindings, .. } => {
                for b in bindings.iter_mut() {
                    qualify_pattern(&mut b.pat, path, &mut module.values);
                }
            }
            Item::Type(decls) => {
                for d in decls {
                    declared_names(&d.body, path, &d.name, &mut module);
                }
            }
            Item::Exception(c) => add_member(&mut module.constructors, path, &c.name),
            Item::Expr(_) => {}
        }
    }
    // One walk: a bare name is the module's where the innermost binder of it in scope is the
    // module's definition (now qualified), as a `let rec`'s own names are in its bodies and
    // a `let`'s only after it.
    crate::scoped_walk::walk_items(items, &mut |e, scope| {
        let values = &module.values;
        if let ExprKind::Var(n) = &mut e.kind {
            if !values.contains(n.as_str()) {
                return;
            }
            let qualified = format!("{path}.{n}");
            let innermost = scope
                .iter()
                .rev()
                .find(|b| b.name == *n || b.name == qualified);
            if innermost.is_some_and(|b| b.name == qualified) {
                *n = qualified;
            }
        }
    });
    module
}

/// Qualifies the names a structure's binding defines (those not already qualified: a nested
/// module's were, by its own path), collecting them as written.
fn qualify_pattern(p: &mut Pattern, path: &str, defined: &mut BTreeSet<String>) {
    match &mut p.kind {
        PatKind::Var(n) => {
            if n.starts_with(&format!("{path}.")) {
                // `M.N.x` of a nested `N`: reached from `M`'s code as `N.x`.
                defined.insert(n[path.len() + 1..].to_string());
            } else {
                defined.insert(n.clone());
                *n = format!("{path}.{n}");
            }
        }
        PatKind::As(inner, n) => {
            qualify_pattern(inner, path, defined);
            defined.insert(n.clone());
            *n = format!("{path}.{n}");
        }
        // Both sides of an or-pattern bind the same names.
        PatKind::Cons(a, b) | PatKind::Or(a, b) => {
            qualify_pattern(a, path, defined);
            qualify_pattern(b, path, defined);
        }
        PatKind::List(items) | PatKind::Tuple(items) => items
            .iter_mut()
            .for_each(|i| qualify_pattern(i, path, defined)),
        PatKind::Constr(_, Some(arg)) | PatKind::Annot(arg, _) => {
            qualify_pattern(arg, path, defined)
        }
        PatKind::Record(fields) => fields
            .iter_mut()
            .for_each(|(_, p)| qualify_pattern(p, path, defined)),
        // Constants, `_`, constant constructors: they bind nothing.
        _ => {}
    }
}

/// Records a type declaration's name, constructors and fields (already qualified by the
/// parser) under the names written in the module.
fn declared_names(body: &TypeDeclBody, path: &str, name: &str, module: &mut UserModule) {
    add_member(&mut module.types, path, name);
    match body {
        TypeDeclBody::Variant(constructors) => constructors
            .iter()
            .for_each(|c| add_member(&mut module.constructors, path, &c.name)),
        TypeDeclBody::Record(fields) => fields
            .iter()
            .for_each(|f| add_member(&mut module.fields, path, &f.name)),
        TypeDeclBody::Alias(_) => {}
    }
}

/// Adds a qualified name (`M.t`, or `M.N.t` of a nested module) under the name `M`'s code
/// reaches it by (`t`, `N.t`).
fn add_member(table: &mut BTreeMap<String, String>, path: &str, qualified: &str) {
    let local = qualified
        .strip_prefix(path)
        .and_then(|rest| rest.strip_prefix('.'))
        .unwrap_or(qualified);
    table.insert(local.to_string(), qualified.to_string());
}
