//! One module per subcommand: argument parsing and wiring, nothing else.

pub mod bench;
pub mod build;
pub mod common;
pub mod compare;
pub mod count;
pub mod explain;
pub mod fit;
pub mod gen;
pub mod history;
pub mod instructions;
pub mod report;
pub mod rescore;
pub mod separability;
pub mod suite;
pub mod validate;
