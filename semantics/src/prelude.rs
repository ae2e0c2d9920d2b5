//! Stdlib functions written in OCaml, compiled before every program: they are real functions
//! in native code too, so their calls and their insides are counted like user code.
//!
//! Each is the Stdlib's definition (OCaml 4.13): `( @ )` and `( ^ )` from `stdlib.ml`, the
//! `Bytes` functions from `bytes.ml`, the `String` ones from `string.ml` (whose `B.f … |>
//! bts` is `Bytes.unsafe_to_string (Bytes.f …)`), `Char.chr` from `char.ml`; their externals
//! are the interpreter's primitives (`Bytes.create`, `Bytes.unsafe_blit`, … in
//! [`crate::prims`]). The other functions of those modules are read from the installed
//! sources ([`crate::stdlib_link`]); these few stay transcribed, deliberately: they are the
//! same 4.13 code, their inlining at the call (`String.make`'s `B.make n c |> bts` is a call of
//! `Bytes.make`, never a jump: [`NEVER_TAIL`]) is measured and digest-tested as it is, and the
//! functions read from the sources that call them (`String.split_on_char`'s `sub`,
//! `Bytes.apply1`'s `copy`) call these definitions, so each exists once.

use crate::lexer::{Tok, Token};

pub(crate) const FILE_NAME: &str = "<prelude>";

/// The modules whose values `M.f` names: primitives and the prelude's functions.
pub(crate) const MODULES: &[&str] = &["String", "Bytes", "Char", "Sys"];

/// The prelude's functions that native code always calls, never jumps to (see the source).
pub(crate) const NEVER_TAIL: &[&str] = &["String.make", "String.copy", "String.sub"];

const SOURCE: &str = "
let rec __append__ l1 l2 =
  match l1 with
    [] -> l2
  | hd :: tl -> hd :: __append__ tl l2

let __concat__ s1 s2 =
  let l1 = String.length s1 and l2 = String.length s2 in
  let s = Bytes.create (l1 + l2) in
  Bytes.unsafe_blit_string s1 0 s 0 l1;
  Bytes.unsafe_blit_string s2 0 s l1 l2;
  Bytes.unsafe_to_string s

let __Bytes_make__ n c =
  let s = Bytes.create n in
  Bytes.unsafe_fill s 0 n c;
  s

let __Bytes_copy__ s =
  let len = Bytes.length s in
  let r = Bytes.create len in
  Bytes.unsafe_blit s 0 r 0 len;
  r

(* bytes.ml's `to_string b = unsafe_to_string (copy b)` and `of_string s = copy
   (unsafe_of_string s)`: ocamlopt inlines them at the call, even at -inline 0, so a call of
   either is a call of `copy` (a jump in tail position); they are `copy`'s body here. *)
let __Bytes_to_string__ s =
  let len = Bytes.length s in
  let r = Bytes.create len in
  Bytes.unsafe_blit s 0 r 0 len;
  Bytes.unsafe_to_string r

let __Bytes_of_string__ s =
  let len = String.length s in
  let r = Bytes.create len in
  Bytes.unsafe_blit_string s 0 r 0 len;
  r

let __Bytes_sub__ s ofs len =
  if ofs < 0 || len < 0 || ofs > Bytes.length s - len
  then invalid_arg \"String.sub / Bytes.sub\"
  else begin
    let r = Bytes.create len in
    Bytes.unsafe_blit s ofs r 0 len;
    r
  end

(* `sub_string b ofs len = unsafe_to_string (sub b ofs len)`, inlined at the call as
   `to_string` is: `sub`'s body. *)
let __Bytes_sub_string__ s ofs len =
  if ofs < 0 || len < 0 || ofs > Bytes.length s - len
  then invalid_arg \"String.sub / Bytes.sub\"
  else begin
    let r = Bytes.create len in
    Bytes.unsafe_blit s ofs r 0 len;
    Bytes.unsafe_to_string r
  end

let __Bytes_fill__ s ofs len c =
  if ofs < 0 || len < 0 || ofs > Bytes.length s - len
  then invalid_arg \"String.fill / Bytes.fill\"
  else Bytes.unsafe_fill s ofs len c

let __Bytes_blit__ s1 ofs1 s2 ofs2 len =
  if len < 0 || ofs1 < 0 || ofs1 > Bytes.length s1 - len
             || ofs2 < 0 || ofs2 > Bytes.length s2 - len
  then invalid_arg \"Bytes.blit\"
  else Bytes.unsafe_blit s1 ofs1 s2 ofs2 len

let __Bytes_blit_string__ s1 ofs1 s2 ofs2 len =
  if len < 0 || ofs1 < 0 || ofs1 > String.length s1 - len
             || ofs2 < 0 || ofs2 > Bytes.length s2 - len
  then invalid_arg \"String.blit / Bytes.blit_string\"
  else Bytes.unsafe_blit_string s1 ofs1 s2 ofs2 len

(* string.ml's `make`, `copy` and `sub` are `B.f … |> bts`: ocamlopt inlines them at the call
   and calls `Bytes.f` there, never as a jump (`bts` is a function value that the result
   passes through); they are `Bytes.f`'s body here, and `crate::tail` never marks their
   calls as tail calls. *)
let __String_make__ n c =
  let s = Bytes.create n in
  Bytes.unsafe_fill s 0 n c;
  Bytes.unsafe_to_string s

let __String_copy__ s =
  let len = String.length s in
  let r = Bytes.create len in
  Bytes.unsafe_blit_string s 0 r 0 len;
  Bytes.unsafe_to_string r

let __String_sub__ s ofs len =
  if ofs < 0 || len < 0 || ofs > String.length s - len
  then invalid_arg \"String.sub / Bytes.sub\"
  else begin
    let r = Bytes.create len in
    Bytes.unsafe_blit_string s ofs r 0 len;
    Bytes.unsafe_to_string r
  end

let __Char_chr__ n =
  if n < 0 || n > 255 then invalid_arg \"Char.chr\" else Char.unsafe_chr n

(* sys.ml's `backend_type`: a `%backend_type` primitive, which ocamlopt compiles to the
   constant `Native`. list.ml's `init` reads it (`rev_init_threshold`); its constructors
   `Sys.Native`, … are spelled `Sys__Native`, … there (see `crate::stdlib_source`). *)
type __sys_backend_type = Sys__Native | Sys__Bytecode | Sys__Other of string

let __Sys_backend_type__ = Sys__Native
";

/// The prelude's tokens; operator names and qualified names, which the subset cannot define,
/// are spelled as plain identifiers in the source (`__append__`, `__Bytes_make__`) and
/// renamed here.
pub(crate) fn tokens() -> Vec<Token> {
    let mut toks = crate::lexer::tokenize(SOURCE).expect("the prelude lexes");
    crate::ast::mark_file(&mut toks, FILE_NAME);
    for t in &mut toks {
        let Tok::Ident(name) = &t.tok else { continue };
        let Some(inner) = name.strip_prefix("__").and_then(|n| n.strip_suffix("__")) else {
            continue;
        };
        let renamed = match inner {
            "append" => "( @ )".to_string(),
            "concat" => "( ^ )".to_string(),
            _ => match inner.split_once('_') {
                Some((module, f)) if MODULES.contains(&module) => format!("{module}.{f}"),
                _ => continue,
            },
        };
        t.tok = Tok::Ident(renamed);
    }
    toks
}
