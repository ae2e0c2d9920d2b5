//! Stdlib functions written in OCaml, compiled before every program: they are real functions
//! in native code too, so their calls and their insides are counted like user code.
//!
//! `( @ )` is the Stdlib's definition (OCaml 4.13, `stdlib.ml`), not tail-recursive.

use crate::lexer::{Tok, Token};

pub(crate) const FILE_NAME: &str = "<prelude>";

const SOURCE: &str = "
let rec __append__ l1 l2 =
  match l1 with
    [] -> l2
  | hd :: tl -> hd :: __append__ tl l2
";

/// The prelude's tokens; operator names, which the subset cannot define, are spelled as
/// plain identifiers in the source and renamed here.
pub(crate) fn tokens() -> Vec<Token> {
    let mut toks = crate::lexer::tokenize(SOURCE).expect("the prelude lexes");
    for t in &mut toks {
        if matches!(&t.tok, Tok::Ident(s) if s == "__append__") {
            t.tok = Tok::Ident("( @ )".into());
        }
    }
    toks
}
