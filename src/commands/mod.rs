//! One module per subcommand: argument parsing and wiring, nothing else.

pub mod bench;
pub mod common;
