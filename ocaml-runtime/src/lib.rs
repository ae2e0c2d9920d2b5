//! # ocaml-runtime
//!
//! Everything on the OCaml side of a measurement, and how to produce it:
//!
//! - the **driver** (`ocaml/mlcost_driver.ml` and `ocaml/mlcost_stubs.c`), linked into every
//!   benchmark binary. It builds `input size` once (untimed), compacts the heap, and times
//!   batches of `run (Sys.opaque_identity x)` with a monotonic nanosecond clock, answering the
//!   deltas of `Gc.quick_stat` with each batch;
//! - the **line protocol** it speaks ([`protocol`]), and its client ([`process`]): a driver
//!   process pinned to one core, with a time limit on every reply, started at fixed addresses
//!   ([`placement`]: address randomisation off, the stack moved on purpose per layout);
//! - the **result digest** ([`digest`]) that the driver computes from the runtime
//!   representation of `run`'s result and the interpreter computes from its own values: the
//!   two must agree, which is how we know the counted program is the timed one;
//! - **building** ([`build`](mod@build)): one binary per code-layout variant, with the compiler's errors
//!   pointing at the user's file and line; and [`compiler`]: finding an `ocamlopt`, its
//!   version, `-config`, and the `OCAMLLIB` of a relocated installation.
//!
//! The clock is a ten-line C stub on `clock_gettime(CLOCK_MONOTONIC)` declared
//! `[@@noalloc]` with an `[@untagged]` result, rather than the `mtime` library: it allocates
//! nothing inside the timed window, costs one vDSO call, and needs no package beyond
//! `ocaml-nox`, so any compiler under test (even an old release unpacked into a prefix) can
//! build it. See `README.md` beside this crate for the protocol transcript and digest bytes.

pub mod build;
pub mod compiler;
pub mod digest;
pub mod native;
pub mod placement;
pub mod process;
pub mod protocol;

pub use build::{
    build, build_layout, layout_binary, BuildError, BuildSpec, BuiltBinary, RuntimeObjects,
    CANARY_ML,
};
pub use compiler::{Compiler, CompilerError, CompilerSetup};
pub use native::{digests_of_binary, native_digests};
pub use placement::{fixed_addresses_available, Placement};
pub use process::{DriverFault, DriverProcess, NATIVE_STACK_BYTES};
pub use protocol::{parse_reply, BatchSample, DriverHello, Reply, Request};
