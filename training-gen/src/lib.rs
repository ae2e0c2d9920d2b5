//! # training-gen
//!
//! Generates mlcost's training suite. Each construct of the catalogue has a Tera template in
//! `templates/` (embedded in the binary, so `mlcost` works from any directory; a user adds
//! their own directory of templates) whose TOML front matter says what it stresses, at which
//! sizes, and what the compiled code must still show. This crate:
//!
//! - discovers templates ([`template`]) and renders them into OCaml programs of the benchmark
//!   shape ([`render`]); a broken template is an error naming its file and line, and the
//!   others still render;
//! - writes the programs and `manifest.json` ([`manifest`]);
//! - builds every program with every compiler under test in every code layout, checks each
//!   build's assembly against its template's claims ([`verify`]: a template the compiler
//!   optimised away is an error, not a data point), counts each program with the
//!   interpreter at every size and checks that native and interpreted results have the same
//!   digest ([`suite`]), writing `counts.json`;
//! - recounts a measured suite with this mlcost's interpreter when its cost semantics changed
//!   ([`recount`]): the same programs, checked to be the ones timed, new counts.

pub mod manifest;
pub mod recount;
pub mod render;
pub mod suite;
pub mod template;
pub mod verify;

pub use manifest::{BuildEntry, Manifest, ProgramEntry};
pub use recount::{recount_suite, RecountOutcome};
pub use render::{RenderContext, RenderedProgram};
pub use suite::{
    build_suite, generate, BuildEvent, BuildOptions, BuildOutcome, GenOutcome, ProgramCounts,
};
pub use template::TemplateError;
