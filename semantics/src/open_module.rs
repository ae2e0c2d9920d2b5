//! `open` of a Stdlib module, resolved on the syntax tree as the parser reads it: `let open
//! List in e`, `List.(e)` and a top-level `open List` make `length` in their scope mean
//! `List.length` — when `list.ml` defines `length` at top level and nothing inside the scope
//! binds `length` again, as OCaml's scoping has it. What a name becomes is the qualified
//! variable a program writing `List.length` gets, so an opened name is counted, typed and
//! taken from the Stdlib's sources exactly as the qualified one.
//!
//! The Stdlib modules the subset knows can be opened (those of [`crate::stdlib_source`] and of
//! [`crate::prelude`]), and the program's own ([`crate::user_module`], which qualifies its
//! names through [`Opened::of_names`]); what a Stdlib module defines is read from its `.ml` file in the
//! installed compiler's Stdlib directory (a top-level `let`, `let rec`, `and` or
//! `external`), so an opened name the interpreter lacks gets the same "unbound value
//! `String.f`" error as the qualified one would.

use crate::ast::{Expr, ExprKind, Item};
use crate::lexer::{Kw, Tok};
use crate::scoped_walk::{look_items, walk_expr, walk_items, Binder};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, OnceLock};

/// What a top-level `open` of a module brings into scope: the names its `.ml` file defines.
#[derive(Debug, Clone)]
pub(crate) struct Opened {
    module: String,
    names: BTreeSet<String>,
}

/// Whether the subset can open `module`.
pub(crate) fn openable(module: &str) -> bool {
    crate::stdlib_source::MODULES
        .iter()
        .any(|(m, _)| *m == module)
        || crate::prelude::MODULES.contains(&module)
}

impl Opened {
    /// The names `module`'s source defines at top level, or why they cannot be read (read
    /// once per module and process: a program may open one module many times).
    pub(crate) fn read(module: &str) -> Result<Opened, String> {
        static READ: OnceLock<Mutex<NamesByModule>> = OnceLock::new();
        let mut read = READ
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let names = read
            .entry(module.to_string())
            .or_insert_with(|| top_level_names(module))
            .clone()?;
        Ok(Opened {
            module: module.to_string(),
            names,
        })
    }

    /// A module defining `names` (a program's own, see [`crate::user_module`]).
    pub(crate) fn of_names(module: &str, names: BTreeSet<String>) -> Opened {
        Opened {
            module: module.to_string(),
            names,
        }
    }

    /// Qualifies the names of `e` this module defines and `e` does not bind itself.
    pub(crate) fn qualify_expr(&self, e: &mut Expr) {
        walk_expr(e, &mut Vec::new(), &mut |e, scope| self.qualify(e, scope));
    }

    /// Qualifies the names the items after a top-level `open` take from the module: those the
    /// program does not define again after the `open`.
    pub(crate) fn qualify_items(&self, items: &mut [Item]) {
        walk_items(items, &mut |e, scope| self.qualify(e, scope));
    }

    fn qualify(&self, e: &mut Expr, scope: &[Binder]) {
        if let ExprKind::Var(n) = &mut e.kind {
            if self.names.contains(n.as_str()) && !scope.iter().any(|b| b.name == *n) {
                *n = format!("{}.{n}", self.module);
            }
        }
    }
}

/// What each Stdlib module read so far defines at top level, or why it could not be read.
type NamesByModule = HashMap<String, Result<BTreeSet<String>, String>>;

/// The names `module`'s `.ml` file defines at top level (`let`, `let rec`, `and`,
/// `external` in the first column).
fn top_level_names(module: &str) -> Result<BTreeSet<String>, String> {
    let mut file = module.to_ascii_lowercase();
    file.push_str(".ml");
    let path = crate::stdlib_source::stdlib_dir().join(&file);
    let source = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {} to open {module}: {e}", path.display()))?;
    let toks = crate::lexer::tokenize(&source)
        .map_err(|e| format!("{}:{}: {}", path.display(), e.pos, e.message))?;
    let mut names = BTreeSet::new();
    for (i, t) in toks.iter().enumerate() {
        let defines = matches!(
            t.tok,
            Tok::Kw(Kw::Let | Kw::And | Kw::Unsupported("external"))
        );
        if !defines || t.pos.col != 1 {
            continue;
        }
        let rec = matches!(toks.get(i + 1).map(|t| &t.tok), Some(Tok::Kw(Kw::Rec)));
        if let Some(Tok::Ident(name)) = toks.get(i + 1 + usize::from(rec)).map(|t| &t.tok) {
            names.insert(name.clone());
        }
    }
    Ok(names)
}

/// Whether `toks` open a module (`open M`, `let open M in`, `M.(…)`) or define one (an alias
/// `module L = List`), so that the Stdlib functions the program names can only be read off
/// its syntax tree, not its tokens.
pub(crate) fn opens_a_module(toks: &[crate::lexer::Token]) -> bool {
    toks.windows(3).any(|w| {
        matches!(w[0].tok, Tok::Kw(Kw::Unsupported("open" | "module")))
            || matches!((&w[0].tok, &w[1].tok, &w[2].tok),
                (Tok::Uident(_), Tok::Op(dot), Tok::Op(paren)) if dot == "." && paren == "(")
    })
}

/// Adds to `wanted` (by module, as [`crate::stdlib_source::mentioned`] gives them) the Stdlib
/// functions `items` name, qualified or through an `open`.
pub(crate) fn add_named_functions(
    items: &[Item],
    wanted: &mut Vec<(&'static str, BTreeSet<String>)>,
) {
    let mut free = BTreeSet::new();
    look_items(items, &mut |e, _| {
        if let ExprKind::Var(n) = &e.kind {
            free.insert(n.clone());
        }
    });
    for name in free {
        let Some((module, f)) = name.split_once('.') else {
            continue;
        };
        let Some(&(module, _)) = crate::stdlib_source::MODULES
            .iter()
            .find(|(m, _)| *m == module)
        else {
            continue;
        };
        match wanted.iter_mut().find(|(m, _)| *m == module) {
            Some((_, names)) => {
                names.insert(f.to_string());
            }
            None => wanted.push((module, BTreeSet::from([f.to_string()]))),
        }
    }
}

/// Renames the qualified names of `items` that [`crate::stdlib_link`] renames in a program's
/// tokens (`String.blit` is `Bytes.blit_string`): an `open` qualifies names after those
/// tokens were read.
pub(crate) fn rename_qualified(
    items: &mut [Item],
    renames: &std::collections::BTreeMap<String, String>,
) {
    if renames.is_empty() {
        return;
    }
    walk_items(items, &mut |e, _| {
        if let ExprKind::Var(n) = &mut e.kind {
            if let Some(to) = renames.get(n.as_str()) {
                *n = to.clone();
            }
        }
    });
}
