//! Stdlib functions read from the installed compiler's own sources: a program that calls
//! `List.map` or `Array.iter` is counted with the `map` of the `list.ml` (the `iter` of the
//! `array.ml`) that `ocamlopt -where` names, the code native programs link, not with a summary
//! written here that could drift from it. `array.ml`'s externals are the interpreter's
//! primitives of the same qualified names (`Array.length`, `Array.unsafe_get`,
//! `Array.create`, …), so no `external` phrase is ever taken. `min` and `max`, called
//! unqualified, come from `stdlib.ml` the same way, under their own names. `String`, `Bytes`,
//! `Char`, `Int` and `Float` are read the same way from `string.ml`, …, with their aliases
//! (`module B = Bytes`, `let bts = B.unsafe_to_string`) and externals followed across files
//! ([`crate::stdlib_link`]); a program's `String.blit` is renamed to what it aliases.
//! `Option` is read from `option.ml` as `List` is (its labelled `value o ~default` and `fold
//! ~none ~some` through [`crate::labels`]), and `Fun` from `fun.ml` (`Fun.id` the primitive of
//! its `%identity`).
//!
//! **Phrases.** A module's source is tokenised whole (comments and the code commented out in
//! them are skipped) and cut into phrases at every token in the first column; `and` in the
//! first column continues a `let rec`, `|` a `match` whose arms start there (option.ml's
//! `equal`). A `let` phrase defines the names after `let [rec]` and after each such `and`.
//!
//! **What is taken.** For each `List.f` the program mentions, the last phrase defining `f`,
//! and, for every identifier a taken phrase mentions, the last phrase before it that defines
//! that name (over-approximated: a local variable named like an earlier top-level function
//! takes that function along; it is compiled, never run). Phrases keep their order and their
//! positions in the module's file, so an error in them names the file and line — a type
//! error, and an exception their code raises that nothing catches (`String.index`'s
//! `Not_found`): each token carries its file ([`crate::ast::Pos::file`]).
//!
//! **Names.** A taken phrase's top-level names become `List.f` (see [`qualify`]); inside the
//! module's own code, `f` finds `List.f` in scope order (see [`crate::ast::binds`]), so
//! shadowing between the module's phrases (`let rec mapi i f` then `let mapi f l = mapi 0 f l`)
//! resolves as in OCaml.

use crate::ast::{Item, PatKind, Pattern};
use crate::error::SemanticsError;
use crate::lexer::{Kw, Tok, Token};
use crate::stdlib_link::{Linked, Meaning, Sources};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The Stdlib modules whose functions a program may call, and their source files.
pub(crate) const MODULES: &[(&str, &str)] = &[
    ("List", "list.ml"),
    ("Array", "array.ml"),
    ("Char", "char.ml"),
    ("Int", "int.ml"),
    ("Float", "float.ml"),
    ("Bytes", "bytes.ml"),
    ("String", "string.ml"),
    ("Option", "option.ml"),
    ("Fun", "fun.ml"),
];

/// The Stdlib modules with types and exceptions of their own (`Stack.t`, `Stack.Empty`, the
/// record `Buffer.t`), read as a structure, `module Stack = struct … end` before the program,
/// so that their names are qualified as a program's own module's are (see
/// [`crate::user_module`]); their code is the Stdlib's, inlined by its threshold.
pub(crate) const STRUCTURES: &[(&str, &str)] = &[
    ("Stack", "stack.ml"),
    ("Buffer", "buffer.ml"),
    ("Queue", "queue.ml"),
];

/// Whether `module` is one of the [`STRUCTURES`].
pub(crate) fn is_structure(module: &str) -> bool {
    STRUCTURES.iter().any(|(m, _)| *m == module)
}

/// The modules whose phrases are linked across aliases and externals (see
/// [`crate::stdlib_link`]), in an order where a module's phrases only need earlier ones':
/// `string.ml`'s need `bytes.ml`'s, which need `char.ml`'s and `int.ml`'s.
const LINKED: &[&str] = &["Char", "Int", "Float", "Bytes", "String"];

/// The module of the values a program calls unqualified, and its source file.
const PERVASIVES: (&str, &str) = ("Stdlib", "stdlib.ml");

/// `stdlib.ml`'s functions written in OCaml that native code calls rather than inlines (at
/// `-inline 0`, `min` and `max` are calls of `camlStdlib__min`/`max`, whose polymorphic
/// comparison calls the runtime; `char_of_int` a call that checks the range): a program
/// naming one unqualified gets its definition, under its own name, before the program's code,
/// which may shadow it. `abs`, which ocamlopt inlines,
/// is a primitive ([`crate::prims`]).
pub(crate) const PERVASIVE_FUNCTIONS: &[&str] = &[
    "min",
    "max",
    "char_of_int",
    "string_of_int",
    "string_of_bool",
];

/// Whether `module`'s functions keep their own names (the Stdlib's unqualified values) rather
/// than `module.f`.
pub(crate) fn unqualified(module: &str) -> bool {
    module == PERVASIVES.0
}

/// The directory of the Stdlib's sources: `MLCOST_OCAML_STDLIB`, else what `ocamlopt -where`
/// prints, else Debian's `/usr/lib/ocaml`.
pub fn stdlib_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        if let Some(dir) = std::env::var_os("MLCOST_OCAML_STDLIB").filter(|d| !d.is_empty()) {
            return PathBuf::from(dir);
        }
        std::process::Command::new("ocamlopt")
            .arg("-where")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| PathBuf::from(s.trim()))
            .filter(|p| p.is_dir())
            .unwrap_or_else(|| PathBuf::from("/usr/lib/ocaml"))
    })
    .clone()
}

/// The functions of each supported module that `toks` mention as `Module.f`, by module.
pub(crate) fn mentioned(toks: &[Token]) -> Vec<(&'static str, BTreeSet<String>)> {
    MODULES
        .iter()
        .chain(STRUCTURES)
        // A program's own `module Stack = …` hides the Stdlib's.
        .filter(|(module, _)| !(is_structure(module) && defines_module(toks, module)))
        .filter_map(|&(module, _)| {
            let names: BTreeSet<String> = toks
                .windows(3)
                .filter_map(|w| match (&w[0].tok, &w[1].tok, &w[2].tok) {
                    (Tok::Uident(m), Tok::Op(dot), Tok::Ident(f)) if m == module && dot == "." => {
                        Some(f.clone())
                    }
                    // A structure's exception (`Stack.Empty`).
                    (Tok::Uident(m), Tok::Op(dot), Tok::Uident(c))
                        if m == module && dot == "." && is_structure(module) =>
                    {
                        Some(c.clone())
                    }
                    _ => None,
                })
                .collect();
            (!names.is_empty()).then_some((module, names))
        })
        .chain(pervasives_mentioned(toks))
        .collect()
}

/// Whether `toks` define a module named `name` (`module Stack = …`, `module Stack : …`).
fn defines_module(toks: &[Token], name: &str) -> bool {
    toks.windows(2).any(|w| {
        matches!(&w[0].tok, Tok::Kw(Kw::Unsupported(k)) if *k == "module")
            && matches!(&w[1].tok, Tok::Uident(m) if m == name)
    })
}

/// The [`PERVASIVE_FUNCTIONS`] that `toks` mention unqualified.
fn pervasives_mentioned(toks: &[Token]) -> Option<(&'static str, BTreeSet<String>)> {
    let names: BTreeSet<String> = toks
        .iter()
        .enumerate()
        .filter_map(|(i, t)| match &t.tok {
            Tok::Ident(f)
                if PERVASIVE_FUNCTIONS.contains(&f.as_str())
                    && !(i > 0 && matches!(&toks[i - 1].tok, Tok::Op(dot) if dot == ".")) =>
            {
                Some(f.clone())
            }
            _ => None,
        })
        .collect();
    (!names.is_empty()).then_some((PERVASIVES.0, names))
}

/// One top-level phrase of a module's source: its tokens and the names it defines.
struct Phrase {
    toks: Vec<Token>,
    defines: Vec<String>,
}

/// `toks` cut into phrases; a structure's `type` phrases define the names they declare (the
/// other modules' types are the prelude's: option.ml's `type 'a t = 'a option = …`).
fn phrases(toks: &[Token], structure: bool) -> Vec<Phrase> {
    let mut out: Vec<Phrase> = Vec::new();
    for t in toks {
        if matches!(t.tok, Tok::Eof) {
            break;
        }
        // `and` continues a `let rec`; `|` a `match` whose arms start in the first column
        // (option.ml's `equal`); `}` a record type's declaration (queue.ml's `t`).
        let continues = matches!(t.tok, Tok::Kw(Kw::And))
            || matches!(&t.tok, Tok::Op(o) if o == "|" || o == "}");
        // buffer.ml indents its `add_utf_*_uchar` by one column, after a blank line.
        let indented_phrase = t.pos.col == 2
            && matches!(t.tok, Tok::Kw(Kw::Let))
            && out
                .last()
                .and_then(|p| p.toks.last())
                .is_some_and(|last| t.pos.line > last.pos.line + 1);
        if t.pos.col == 1 && !continues || indented_phrase || out.is_empty() {
            out.push(Phrase {
                toks: Vec::new(),
                defines: Vec::new(),
            });
        }
        out.last_mut()
            .expect("a phrase was pushed")
            .toks
            .push(t.clone());
    }
    for phrase in &mut out {
        let mut defines = Vec::new();
        // `exception Bottom of int`: array.ml's `sort` raises and catches it.
        if let [first, second, ..] = &phrase.toks[..] {
            if let (Tok::Kw(Kw::Exception), Tok::Uident(name)) = (&first.tok, &second.tok) {
                defines.push(name.clone());
            }
        }
        defines.extend(let_bound(&phrase.toks, |col| col == 1).cloned());
        // An indented phrase's own `let` (its body's are further in).
        let head = &phrase.toks[..phrase.toks.len().min(3)];
        defines.extend(let_bound(head, |col| col == 2).cloned());
        if structure && matches!(phrase.toks.first().map(|t| &t.tok), Some(Tok::Kw(Kw::Type))) {
            defines.extend(type_declared(&phrase.toks));
        }
        phrase.defines = defines;
    }
    out
}

/// The names a `type` phrase declares — its types (a name before `=`), record fields (a name
/// before `:`) and constructors — so that code using one takes the phrase along.
fn type_declared(toks: &[Token]) -> impl Iterator<Item = String> + '_ {
    toks.windows(2)
        .filter_map(|w| match (&w[0].tok, &w[1].tok) {
            (Tok::Ident(name), Tok::Op(next)) if next == "=" || next == ":" => Some(name.clone()),
            (Tok::Uident(name), _) => Some(name.clone()),
            _ => None,
        })
}

/// The file of `module`'s source, as shown in errors, and its phrases.
fn read_phrases(module: &str) -> Result<(String, Vec<Phrase>), SemanticsError> {
    let file_name = MODULES
        .iter()
        .chain(STRUCTURES)
        .chain([&PERVASIVES])
        .find(|(m, _)| *m == module)
        .map(|(_, f)| *f)
        .ok_or_else(|| SemanticsError::Internal {
            file: module.into(),
            message: format!("no source known for the Stdlib module {module}"),
        })?;
    let path = stdlib_dir().join(file_name);
    let shown = path.display().to_string();
    let source = std::fs::read_to_string(&path).map_err(|source| SemanticsError::Io {
        path: format!("{shown} (the Stdlib source `{module}.…` is counted from; install ocaml-nox or set MLCOST_OCAML_STDLIB)"),
        source,
    })?;
    let mut toks = crate::lexer::tokenize_library(&source).map_err(|e| SemanticsError::Syntax {
        file: shown.clone(),
        pos: e.pos,
        message: e.message,
    })?;
    crate::ast::mark_file(&mut toks, &shown);
    let toks = unqualify_constructors(toks);
    Ok((shown, phrases(&toks, is_structure(module))))
}

/// One module's taken phrases, as tokens (each phrase ends with `;;`), and their file.
pub(crate) struct Taken {
    pub module: &'static str,
    pub file: String,
    pub toks: Vec<Token>,
}

/// The Stdlib code a program that names the functions `wanted` (see [`mentioned`]) needs, module by module in the order
/// they must be compiled, and the renames of its own `M.f` (`String.blit` is
/// `Bytes.blit_string`; see [`crate::stdlib_link`]).
pub(crate) fn load(
    mut wanted: Vec<(&'static str, BTreeSet<String>)>,
) -> Result<(Vec<Taken>, BTreeMap<String, String>), SemanticsError> {
    // A structure's code names other modules' functions (`Buffer.resize` calls `Bytes.blit`):
    // those are taken with the program's own, before the structure.
    let mut structures = Vec::new();
    for (module, names) in wanted.iter().filter(|(m, _)| is_structure(m)) {
        let (file, toks) = needed_tokens(module, names)?;
        structures.push(Taken {
            module,
            toks: as_structure(module, &file, toks)?,
            file,
        });
    }
    wanted.retain(|(m, _)| !is_structure(m));
    for structure in &structures {
        for (module, names) in mentioned(&structure.toks) {
            match wanted.iter_mut().find(|(m, _)| *m == module) {
                Some((_, known)) => known.extend(names),
                None => wanted.push((module, names)),
            }
        }
    }
    let mut out = Vec::new();
    for (module, names) in &wanted {
        if !LINKED.contains(module) && *module != PERVASIVES.0 {
            let (file, toks) = needed_tokens(module, names)?;
            out.push(Taken { module, file, toks });
        }
    }
    let linked: Vec<_> = wanted.iter().filter(|(m, _)| LINKED.contains(m)).collect();
    let renames = if linked.is_empty() {
        BTreeMap::new()
    } else {
        link(&linked, &mut out)?
    };
    if let Some((module, names)) = wanted.iter().find(|(m, _)| *m == PERVASIVES.0) {
        let (file, toks) = needed_tokens(module, names)?;
        out.push(Taken { module, file, toks });
    }
    out.extend(structures);
    Ok((out, renames))
}

/// `module M = struct <phrases> end`, the phrases' tokens (ending with `;;`s and the end of
/// input) wrapped as the program's own module would be written.
fn as_structure(
    module: &str,
    file: &str,
    phrases: Vec<Token>,
) -> Result<Vec<Token>, SemanticsError> {
    let wrap = |text: &str| {
        crate::lexer::tokenize_library(text)
            .map(|mut toks| {
                toks.pop(); // the end of input
                crate::ast::mark_file(&mut toks, file);
                toks
            })
            .map_err(|e| SemanticsError::Internal {
                file: file.into(),
                message: e.message,
            })
    };
    let mut toks = wrap(&format!("module {module} = struct"))?;
    let end = phrases.len().saturating_sub(1);
    toks.extend(phrases[..end].iter().cloned());
    toks.extend(wrap("end")?);
    toks.extend(phrases[end..].iter().cloned());
    Ok(toks)
}

/// The phrases of the [`LINKED`] modules that the functions `wanted` need, pushed on `out` in
/// the order they compile, and the program's renames.
fn link(
    wanted: &[&(&'static str, BTreeSet<String>)],
    out: &mut Vec<Taken>,
) -> Result<BTreeMap<String, String>, SemanticsError> {
    let mut store = Store {
        modules: BTreeMap::new(),
        prelude: crate::stdlib_link::prelude_functions(),
        error: None,
    };
    let mut take = Vec::new();
    let mut renames = BTreeMap::new();
    for (module, names) in wanted {
        for f in names {
            let qualified = format!("{module}.{f}");
            match crate::stdlib_link::meaning(&mut store, module, f, usize::MAX, &mut take) {
                Meaning::Take(i) => take.push((module.to_string(), i)),
                Meaning::Name(n) if n != qualified => {
                    renames.insert(qualified, n);
                }
                Meaning::Name(_) | Meaning::Free => {}
            }
        }
    }
    let mut done: BTreeMap<(String, usize), Vec<Token>> = BTreeMap::new();
    while let Some((module, i)) = take.pop() {
        if done.contains_key(&(module.clone(), i)) {
            continue;
        }
        let local = match store.phrases(&module) {
            Some(phrases) => locally_defined(&phrases[i].toks),
            None => continue,
        };
        let toks = crate::stdlib_link::rewrite(&mut store, &module, i, &local, &mut take);
        done.insert((module, i), toks);
    }
    if let Some(e) = store.error {
        return Err(e);
    }
    for module in LINKED {
        let phrases: Vec<&Vec<Token>> = done
            .iter()
            .filter(|((m, _), _)| m == module)
            .map(|(_, toks)| toks)
            .collect();
        if phrases.is_empty() {
            continue;
        }
        let file = store.modules[*module]
            .as_ref()
            .map_or(String::new(), |(f, _)| f.clone());
        out.push(Taken {
            module,
            file,
            toks: terminated(phrases.into_iter()),
        });
    }
    Ok(renames)
}

/// Each phrase followed by `;;`, then the end.
fn terminated<'a>(phrases: impl Iterator<Item = &'a Vec<Token>>) -> Vec<Token> {
    let mut out = Vec::new();
    for toks in phrases {
        out.extend(toks.iter().cloned());
        let end = toks.last().map_or(
            crate::ast::Pos {
                line: 1,
                col: 1,
                file: 0,
            },
            |t| t.pos,
        );
        out.push(Token::new(Tok::Op(";;".into()), end));
    }
    out.push(Token::new(
        Tok::Eof,
        crate::ast::Pos {
            line: 1,
            col: 1,
            file: 0,
        },
    ));
    out
}

/// The linked modules' phrases, read when first needed.
struct Store {
    modules: BTreeMap<String, Option<(String, Vec<Linked>)>>,
    prelude: BTreeSet<String>,
    error: Option<SemanticsError>,
}

impl Sources for Store {
    fn phrases(&mut self, module: &str) -> Option<&[Linked]> {
        if !LINKED.contains(&module) {
            return None;
        }
        if !self.modules.contains_key(module) {
            let read = match read_phrases(module) {
                Ok((file, phrases)) => Some((file, phrases.into_iter().map(linked).collect())),
                Err(e) => {
                    self.error.get_or_insert(e);
                    None
                }
            };
            self.modules.insert(module.to_string(), read);
        }
        self.modules[module].as_ref().map(|(_, p)| &p[..])
    }

    fn prelude(&self) -> &BTreeSet<String> {
        &self.prelude
    }
}

fn linked(phrase: Phrase) -> Linked {
    let (names, def) = crate::stdlib_link::classify(&phrase.toks);
    Linked {
        defines: if names.is_empty() {
            phrase.defines
        } else {
            names
        },
        def,
        toks: phrase.toks,
    }
}

/// The phrases of `module` that the functions `wanted` need, in the file's order, as tokens
/// (each phrase ends with `;;`), and the file they come from.
fn needed_tokens(
    module: &str,
    wanted: &BTreeSet<String>,
) -> Result<(String, Vec<Token>), SemanticsError> {
    let (shown, phrases) = read_phrases(module)?;
    // The last phrase before `before` that defines `name`.
    let definer = |name: &str, before: usize| {
        (0..before)
            .rev()
            .find(|&i| phrases[i].defines.iter().any(|d| d == name))
    };
    let mut taken = vec![false; phrases.len()];
    let mut todo = Vec::new();
    for name in wanted {
        // A name the module does not define stays unbound: the type checker names it.
        if let Some(i) = definer(name, phrases.len()) {
            todo.push(i);
        }
    }
    while let Some(i) = todo.pop() {
        if std::mem::replace(&mut taken[i], true) {
            continue;
        }
        let local = locally_defined(&phrases[i].toks);
        for t in &phrases[i].toks {
            if let Tok::Ident(name) | Tok::Uident(name) = &t.tok {
                if local.contains(name) {
                    continue;
                }
                if let Some(j) = definer(name, i) {
                    todo.push(j);
                }
            }
        }
    }
    let taken = phrases.iter().zip(&taken).filter(|(_, &t)| t);
    Ok((shown, terminated(taken.map(|(p, _)| &p.toks))))
}

/// The names a phrase defines with a nested `let [rec]` or `and` (not in the first column): its
/// own helpers, such as `of_list`'s local `fill`, which must not take the module's top-level
/// function of the same name along (array.ml's `fill`, which would then be compiled for nothing).
fn locally_defined(toks: &[Token]) -> BTreeSet<String> {
    let_bound(toks, |col| col > 1).cloned().collect()
}

/// The names bound by `let [rec] name` or `and name` whose keyword's column `col` accepts.
fn let_bound(toks: &[Token], col: impl Fn(u32) -> bool) -> impl Iterator<Item = &String> {
    toks.iter().enumerate().filter_map(move |(i, t)| {
        if !matches!(t.tok, Tok::Kw(Kw::Let) | Tok::Kw(Kw::And)) || !col(t.pos.col) {
            return None;
        }
        let rec = matches!(toks.get(i + 1).map(|t| &t.tok), Some(Tok::Kw(Kw::Rec)));
        match toks.get(i + 1 + usize::from(rec)).map(|t| &t.tok) {
            Some(Tok::Ident(name)) => Some(name),
            _ => None,
        }
    })
}

/// `Sys.Native` as the prelude spells it, `Sys__Native`: the subset has no module paths to
/// constructors, and the Stdlib's own code uses these (list.ml's `rev_init_threshold`), in its
/// sources or spliced into a program.
pub(crate) fn unqualify_constructors(toks: Vec<Token>) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if let (Tok::Uident(m), Some(Tok::Op(dot)), Some(Tok::Uident(c))) = (
            &toks[i].tok,
            toks.get(i + 1).map(|t| &t.tok),
            toks.get(i + 2).map(|t| &t.tok),
        ) {
            if m == "Sys" && dot == "." {
                out.push(Token::new(Tok::Uident(format!("{m}__{c}")), toks[i].pos));
                i += 3;
                continue;
            }
        }
        out.push(toks[i].clone());
        i += 1;
    }
    out
}

/// Renames the top-level names `items` define to `module.name`.
pub(crate) fn qualify(module: &str, items: &mut [Item]) {
    fn rename(p: &mut Pattern, module: &str) {
        match &mut p.kind {
            PatKind::Annot(inner, _) => rename(inner, module),
            PatKind::Var(name) => *name = format!("{module}.{name}"),
            _ => {}
        }
    }
    for item in items {
        if let Item::Let { bindings, .. } = item {
            bindings.iter_mut().for_each(|b| rename(&mut b.pat, module));
        }
    }
}
