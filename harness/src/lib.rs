//! # harness
//!
//! Measures OCaml benchmark binaries the way Core_bench does, made to reproduce on a shared
//! machine, and owns the numbers that come out. A run is split into rounds
//! ([`schedule`]): each round visits every (program, compiler, size, layout) point once, in a
//! fresh seeded random order, for a short slice of time, through driver processes pinned to
//! one core and kept alive between visits. Within a visit, [`sampling`] asks for batches of 1,
//! 2, 3, … runs, each a few percent larger than the last; every batch goes to an append-only
//! [`samples`] log as it arrives, every completed visit to the visit log. Between visits the
//! [`canary`], a fixed calibration program, is read once a second: its timeline shows when the
//! machine itself was slow, and flags the visits taken then; points with too few quiet visits
//! get [`catch_up`] rounds of their own. [`visiting`] takes the visits (live processes, logs).
//! [`regression`] turns one visit's
//! batches into the slope of nanoseconds on batch size; [`robust`] turns a point's visits into
//! one figure that a slow phase cannot drag (the mean of the fastest half) with an interval
//! from resampling visits; [`estimate`] adds the words and collections per run and averages
//! the code-layout variants into one figure whose interval carries their spread. A [`plan`]
//! says what to measure; [`bench`](mod@bench) builds it and [`measure`] measures it, reporting as it goes
//! through [`progress`] and failing with an [`error`] that names the benchmark ([`lock`]: one measurement per machine),
//! resuming an interrupted run visit by visit and recording machine, compilers (`-version`,
//! `-config`, flags) and settings in `run.json` ([`machine`]).
//!
//! Data between the steps is plain and serialisable: `BatchSample` → `SampleRecord` and
//! `VisitRecord` (disk) → `VisitData` → `LayoutEstimate` → `Estimate` (`estimates.json`,
//! `mlcost bench --json`).

pub mod bench;
pub mod canary;
pub mod catch_up;
pub mod error;
pub mod estimate;
pub mod lock;
pub mod machine;
pub mod measure;
pub mod plan;
pub mod progress;
pub mod regression;
pub mod robust;
pub mod samples;
pub mod sampling;
pub mod schedule;
pub mod visiting;

pub use bench::{build_all, run_bench, BenchOutcome};
pub use error::BenchError;
pub use estimate::{Estimate, LayoutEstimate};
pub use measure::measure_built;
pub use ocaml_runtime::CompilerSetup;
pub use plan::{BenchPlan, BenchProgram};
pub use progress::{Progress, Silent};
pub use regression::{GcFit, Interval};
pub use sampling::SamplingConfig;
