//! ocaml-runtime (in progress).
pub mod digest;
