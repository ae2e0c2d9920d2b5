//! # harness
//!
//! Measures OCaml benchmark binaries the way Core_bench does, and owns the numbers that come
//! out: through a driver process pinned to one core (`ocaml_runtime::process`), [`sampling`] asks
//! for batches of 1, 2, 3, … runs, each a few percent larger than the last, until a time quota
//! or a target precision is reached; every sample goes to an append-only [`samples`] log as it
//! arrives; [`regression`] turns samples into the slope of nanoseconds (and words, and
//! collections) on batch size with a bootstrap 95% interval, plus the multivariate fit that
//! separates GC time; [`estimate`] averages the code-layout variants into one figure whose
//! interval carries their spread; [`bench`] builds a whole plan, programs × sizes × compilers ×
//! layouts, and [`measure`] measures it one point at a time ([`lock`]), resuming an
//! interrupted run from its saved samples; recording machine, compilers (`-version`,
//! `-config`, flags) and settings in `run.json` ([`machine`]).
//!
//! Data between the steps is plain and serialisable: `BatchSample` → `SampleRecord` (disk) →
//! `LayoutEstimate` → `Estimate` (`estimates.json`, `mlcost bench --json`).

pub mod bench;
pub mod estimate;
pub mod lock;
pub mod machine;
pub mod measure;
pub mod regression;
pub mod samples;
pub mod sampling;

pub use bench::{
    build_all, run_bench, BenchError, BenchOutcome, BenchPlan, BenchProgram, Progress, Silent,
};
pub use estimate::{Estimate, LayoutEstimate};
pub use measure::measure_built;
pub use ocaml_runtime::CompilerSetup;
pub use regression::{GcFit, Interval};
pub use sampling::SamplingConfig;
