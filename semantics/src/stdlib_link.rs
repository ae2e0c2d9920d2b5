//! Linking the phrases of several Stdlib modules: which phrase each name a taken phrase
//! mentions stands for, across `module B = Bytes`, aliases and externals (see
//! [`crate::stdlib_source`] for the phrases themselves).
//!
//! In `string.ml`, `bytes.ml`, `char.ml`, `int.ml` and `float.ml` a name a taken phrase
//! mentions is, by the last phrase before it that defines it:
//! - an **external** (`external length : string -> int = "%string_length"`): never taken; the
//!   name becomes the interpreter's primitive for that C or `%` primitive with the same type
//!   ([`primitive`]), or `Module.name`, unbound, when there is none (the type checker then
//!   names the function, and the program that does not call it is not affected);
//! - an **alias** (`let blit = B.blit_string`, `let bts = B.unsafe_to_string`): never taken;
//!   the name becomes what the alias names, as Closure's approximations make a call through it
//!   a direct call of the target (`bts`, an alias of `%bytes_to_string`, is that primitive:
//!   the call under it is never a jump, see [`crate::tail`]);
//! - a function of [`crate::prelude`] (`String.sub`, `Bytes.copy`, …): that definition;
//! - any other `let`: that phrase, taken.
//!
//! `B.f` and `Bytes.f` (and `Char.f`, `Int.f` in `bytes.ml`) name the function `f` of the
//! aliased module, resolved the same way in its file, and taken from there; `Stdlib.f` is the
//! unqualified `f`. A type abbreviation `type t = int` is read through in annotations (`: t`).
//!
//! A character range in a pattern (`'a' .. 'z' as c`, in `char.ml`) is the or-pattern of its
//! characters: one arm, tested once, as native code tests `c - 97 <= 25` once (an arm of
//! several ranges, in the deprecated `Char.uppercase`, is several tests there, one here).

use crate::lexer::{Kw, Tok, Token};
use std::collections::{BTreeMap, BTreeSet};

/// What a phrase defines its names as.
#[derive(Clone)]
pub(crate) enum Def {
    Let,
    /// `external name : ty = "prim" …`: the primitive's first name and the type's tokens.
    External {
        prim: String,
        ty: String,
    },
    /// `let name = other` or `let name = M.other`: the named value's tokens.
    Alias(Vec<Tok>),
    /// `module B = Bytes`.
    Module(String),
    /// `type t = int`.
    Abbrev(String),
}

/// What a phrase is: reads `external …`, `let x = y`, `module B = M` and `type t = u`.
pub(crate) fn classify(toks: &[Token]) -> (Vec<String>, Def) {
    let tok = |i: usize| toks.get(i).map(|t| &t.tok);
    let ident = |i: usize| match tok(i) {
        Some(Tok::Ident(n)) => Some(n.clone()),
        _ => None,
    };
    let is_op = |i: usize, op: &str| matches!(tok(i), Some(Tok::Op(o)) if o == op);
    match tok(0) {
        Some(Tok::Kw(Kw::Unsupported("external"))) => {
            if let (Some(name), true) = (ident(1), is_op(2, ":")) {
                let eq = (3..toks.len()).find(|&i| is_op(i, "="));
                if let Some(eq) = eq {
                    let ty = toks[3..eq]
                        .iter()
                        .map(|t| show(&t.tok))
                        .collect::<Vec<_>>()
                        .join(" ");
                    if let Some(Tok::Str(prim)) = tok(eq + 1) {
                        let prim = prim.clone();
                        return (vec![name], Def::External { prim, ty });
                    }
                }
            }
            (Vec::new(), Def::Let)
        }
        Some(Tok::Kw(Kw::Unsupported("module"))) => match (tok(1), is_op(2, "="), tok(3)) {
            (Some(Tok::Uident(alias)), true, Some(Tok::Uident(m))) if toks.len() == 4 => {
                (vec![alias.clone()], Def::Module(m.clone()))
            }
            _ => (Vec::new(), Def::Let),
        },
        Some(Tok::Kw(Kw::Type)) => match (ident(1), is_op(2, "="), ident(3)) {
            (Some(t), true, Some(u)) if toks.len() == 4 => (vec![t], Def::Abbrev(u)),
            _ => (Vec::new(), Def::Let),
        },
        Some(Tok::Kw(Kw::Let)) if toks.len() >= 4 && is_op(2, "=") => {
            let Some(name) = ident(1) else {
                return (Vec::new(), Def::Let);
            };
            let rhs: Vec<Tok> = toks[3..].iter().map(|t| t.tok.clone()).collect();
            let alias = match &rhs[..] {
                [Tok::Ident(_)] => true,
                [Tok::Uident(_), Tok::Op(dot), Tok::Ident(_)] => dot == ".",
                _ => false,
            };
            (vec![name], if alias { Def::Alias(rhs) } else { Def::Let })
        }
        _ => (Vec::new(), Def::Let),
    }
}

fn show(t: &Tok) -> String {
    match t {
        Tok::Ident(n) | Tok::Uident(n) | Tok::Op(n) => n.clone(),
        other => format!("{other:?}"),
    }
}

/// The interpreter's primitives for the externals of `string.ml`, `bytes.ml`, `char.ml`,
/// `int.ml` and `float.ml`, by the external's primitive name; the one whose type is the
/// external's is chosen (`%identity` is `Char.code` at `char -> int`, …; `get_uint8`'s
/// `%string_safe_get` at `string -> int -> int` has none).
const EXTERNALS: &[(&str, &[&str])] = &[
    ("%string_length", &["String.length"]),
    ("%bytes_length", &["Bytes.length"]),
    ("%string_safe_get", &["String.get"]),
    ("%bytes_safe_get", &["Bytes.get"]),
    ("%string_unsafe_get", &["String.unsafe_get"]),
    ("%bytes_unsafe_get", &["Bytes.unsafe_get"]),
    ("%string_safe_set", &["Bytes.set"]),
    ("%bytes_safe_set", &["Bytes.set"]),
    ("%string_unsafe_set", &["Bytes.unsafe_set"]),
    ("%bytes_unsafe_set", &["Bytes.unsafe_set"]),
    ("caml_create_bytes", &["Bytes.create"]),
    ("caml_create_string", &["Bytes.create"]),
    ("caml_fill_bytes", &["Bytes.unsafe_fill"]),
    ("caml_fill_string", &["Bytes.unsafe_fill"]),
    ("caml_blit_bytes", &["Bytes.unsafe_blit"]),
    ("caml_blit_string", &["Bytes.unsafe_blit_string"]),
    ("%bytes_to_string", &["Bytes.unsafe_to_string"]),
    ("%bytes_of_string", &["Bytes.unsafe_of_string"]),
    ("%identity", &["Char.code", "Char.unsafe_chr"]),
    // int.ml's own `external format_int`, behind `Int.to_string`.
    ("caml_format_int", &["format_int"]),
    ("caml_string_equal", &["String.equal"]),
    ("caml_bytes_equal", &["Bytes.equal"]),
    ("%floatofint", &["float_of_int"]),
    ("%intoffloat", &["int_of_float"]),
    ("caml_sqrt_float", &["sqrt"]),
    ("%absfloat", &["abs_float"]),
    ("%succint", &["succ"]),
    ("%predint", &["pred"]),
    ("%addint", &["( + )"]),
    ("%subint", &["( - )"]),
    ("%mulint", &["( * )"]),
    ("%divint", &["( / )"]),
    ("%modint", &["( mod )"]),
    ("%andint", &["( land )"]),
    ("%orint", &["( lor )"]),
    ("%xorint", &["( lxor )"]),
    ("%lslint", &["( lsl )"]),
    ("%lsrint", &["( lsr )"]),
    ("%asrint", &["( asr )"]),
    ("%addfloat", &["( +. )"]),
    ("%subfloat", &["( -. )"]),
    ("%mulfloat", &["( *. )"]),
    ("%divfloat", &["( /. )"]),
];

/// The primitive an external `prim` of type `ty` (its tokens joined by spaces, the module's
/// abbreviations read through) is.
fn primitive(prim: &str, ty: &str) -> Option<&'static str> {
    let float_call = crate::float_call::by_primitive(prim).map(std::slice::from_ref);
    let names = match EXTERNALS.iter().find(|(p, _)| *p == prim) {
        Some((_, names)) => names,
        None => float_call?,
    };
    names.iter().copied().find(|name| {
        crate::prims::lookup(name).is_some_and(|info| {
            let declared: Vec<&str> = ty.split_whitespace().collect();
            let expected: Vec<&str> = info.signature.split_whitespace().collect();
            declared == expected
        })
    })
}

/// A phrase of a module, with what it defines.
pub(crate) struct Linked {
    pub toks: Vec<Token>,
    pub defines: Vec<String>,
    pub def: Def,
}

/// What a name stands for where it is mentioned.
pub(crate) enum Meaning {
    /// The phrase `usize` of the module, taken (the name is `Module.name` outside it).
    Take(usize),
    /// Another name (a primitive, a function of another module or of the prelude).
    Name(String),
    /// Nothing the module defines: a local or a Stdlib value (`invalid_arg`, `ref`).
    Free,
}

/// The modules read through aliases, and the phrases of each, read on demand.
pub(crate) trait Sources {
    fn phrases(&mut self, module: &str) -> Option<&[Linked]>;
    fn prelude(&self) -> &BTreeSet<String>;
}

/// What `name`, mentioned in `module` before its phrase `before`, stands for.
pub(crate) fn meaning(
    sources: &mut dyn Sources,
    module: &str,
    name: &str,
    before: usize,
    take: &mut Vec<(String, usize)>,
) -> Meaning {
    let Some(phrases) = sources.phrases(module) else {
        return Meaning::Free;
    };
    let Some(i) = (0..before.min(phrases.len()))
        .rev()
        .find(|&i| phrases[i].defines.iter().any(|d| d == name))
    else {
        return Meaning::Free;
    };
    let qualified = format!("{module}.{name}");
    match phrases[i].def.clone() {
        Def::External { prim, ty } => {
            let ty = read_abbreviations(phrases, &ty);
            Meaning::Name(primitive(&prim, &ty).map_or(qualified, str::to_string))
        }
        Def::Alias(target) => {
            let resolved = match &target[..] {
                [Tok::Ident(other)] => named(sources, module, other, i, take),
                [Tok::Uident(m), _, Tok::Ident(other)] => {
                    let m = module_named(sources, module, m, i);
                    named(sources, &m, other, usize::MAX, take)
                }
                _ => qualified,
            };
            Meaning::Name(resolved)
        }
        Def::Let if sources.prelude().contains(&qualified) => Meaning::Name(qualified),
        Def::Let => Meaning::Take(i),
        Def::Module(_) | Def::Abbrev(_) => Meaning::Free,
    }
}

/// The name that `name` of `module` (mentioned before its phrase `before`) is spelled as
/// outside `module`, its phrase queued in `take` when it is taken.
pub(crate) fn named(
    sources: &mut dyn Sources,
    module: &str,
    name: &str,
    before: usize,
    take: &mut Vec<(String, usize)>,
) -> String {
    if module == "Stdlib" {
        return name.to_string();
    }
    match meaning(sources, module, name, before, take) {
        Meaning::Take(i) => {
            take.push((module.to_string(), i));
            format!("{module}.{name}")
        }
        Meaning::Name(n) => n,
        Meaning::Free => format!("{module}.{name}"),
    }
}

/// The module `m` names in `module` before its phrase `before`: `B` in `string.ml` is `Bytes`.
pub(crate) fn module_named(
    sources: &mut dyn Sources,
    module: &str,
    m: &str,
    before: usize,
) -> String {
    let aliased = sources.phrases(module).and_then(|phrases| {
        phrases[..before.min(phrases.len())]
            .iter()
            .rev()
            .find_map(|p| match &p.def {
                Def::Module(target) if p.defines.iter().any(|d| d == m) => Some(target.clone()),
                _ => None,
            })
    });
    aliased.unwrap_or_else(|| m.to_string())
}

/// `ty` with the module's abbreviations (`t` for `int`) read through.
fn read_abbreviations(phrases: &[Linked], ty: &str) -> String {
    ty.split_whitespace()
        .map(|word| abbreviation(phrases, word).unwrap_or(word))
        .collect::<Vec<_>>()
        .join(" ")
}

fn abbreviation<'p>(phrases: &'p [Linked], word: &str) -> Option<&'p str> {
    phrases.iter().find_map(|p| match &p.def {
        Def::Abbrev(u) if p.defines.iter().any(|d| d == word) => Some(u.as_str()),
        _ => None,
    })
}

/// The tokens of phrase `i` of `module` as the program's code: each name it mentions spelled
/// as [`meaning`] says, `M.f` as one name, abbreviations read through after `:`; the phrases
/// it needs queued in `take`.
pub(crate) fn rewrite(
    sources: &mut dyn Sources,
    module: &str,
    i: usize,
    local: &BTreeSet<String>,
    take: &mut Vec<(String, usize)>,
) -> Vec<Token> {
    let toks = match sources.phrases(module) {
        Some(phrases) => phrases[i].toks.clone(),
        None => return Vec::new(),
    };
    let mut out: Vec<Token> = Vec::with_capacity(toks.len());
    let mut k = 0;
    while k < toks.len() {
        let t = &toks[k];
        let after_dot = k > 0 && matches!(&toks[k - 1].tok, Tok::Op(d) if d == ".");
        let after_colon = k > 0 && matches!(&toks[k - 1].tok, Tok::Op(d) if d == ":");
        match (
            &t.tok,
            toks.get(k + 1).map(|t| &t.tok),
            toks.get(k + 2).map(|t| &t.tok),
        ) {
            (Tok::Char(a), Some(Tok::Op(range)), Some(Tok::Char(b))) if range == ".." => {
                out.push(Token::new(Tok::Op("(".into()), t.pos));
                for c in *a..=*b {
                    if c > *a {
                        out.push(Token::new(Tok::Op("|".into()), t.pos));
                    }
                    out.push(Token::new(Tok::Char(c), t.pos));
                }
                out.push(Token::new(Tok::Op(")".into()), t.pos));
                k += 3;
                continue;
            }
            (Tok::Uident(m), Some(Tok::Op(dot)), Some(Tok::Ident(f))) if dot == "." => {
                let m = module_named(sources, module, m, i);
                let name = named(sources, &m, f, usize::MAX, take);
                out.push(Token::new(Tok::Ident(name), t.pos));
                k += 3;
                continue;
            }
            (Tok::Ident(name), _, _) if after_colon => {
                let read = sources
                    .phrases(module)
                    .and_then(|p| abbreviation(p, name).map(str::to_string));
                out.push(Token::new(Tok::Ident(read.unwrap_or(name.clone())), t.pos));
            }
            (Tok::Ident(name), _, _) if !after_dot && !local.contains(name) => {
                match meaning(sources, module, name, i, take) {
                    Meaning::Take(j) => {
                        take.push((module.to_string(), j));
                        out.push(t.clone());
                    }
                    Meaning::Name(n) => out.push(Token::new(Tok::Ident(n), t.pos)),
                    Meaning::Free => out.push(t.clone()),
                }
            }
            _ => out.push(t.clone()),
        }
        k += 1;
    }
    out
}

/// The prelude's functions, by qualified name.
pub(crate) fn prelude_functions() -> BTreeSet<String> {
    let toks = crate::prelude::tokens();
    toks.iter()
        .enumerate()
        .filter(|(_, t)| matches!(t.tok, Tok::Kw(Kw::Let)) && t.pos.col == 1)
        .filter_map(|(i, _)| match toks.get(i + 1).map(|t| &t.tok) {
            Some(Tok::Ident(n)) => Some(n.clone()),
            _ => None,
        })
        .collect()
}

/// Renames in a program's tokens: `String.blit` is `Bytes.blit_string`.
pub(crate) fn rename_program(toks: Vec<Token>, renames: &BTreeMap<String, String>) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::with_capacity(toks.len());
    let mut k = 0;
    while k < toks.len() {
        if let (Tok::Uident(m), Some(Tok::Op(dot)), Some(Tok::Ident(f))) = (
            &toks[k].tok,
            toks.get(k + 1).map(|t| &t.tok),
            toks.get(k + 2).map(|t| &t.tok),
        ) {
            if let Some(to) = renames.get(&format!("{m}.{f}")).filter(|_| dot == ".") {
                out.push(Token::new(Tok::Ident(to.clone()), toks[k].pos));
                k += 3;
                continue;
            }
        }
        out.push(toks[k].clone());
        k += 1;
    }
    out
}
