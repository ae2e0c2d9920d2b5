//! # pipeline
//!
//! mlcost's stages, each a function over a [`RunDir`]: measure how much the machine's branch
//! predictor keeps, which the counts depend on ([`branch_probe`]), generate and build the
//! training suite ([`suite`]) and check it can separate its constructs ([`separability`]), turn measurements and counts into the fit's observations ([`observations`](mod@observations)),
//! count instructions per run under valgrind and fit them beside time ([`instructions_stage`]), score them on the controls and locate each miss in a function ([`instructions_validation`], [`explain`]),
//! time the controls in the training programs' rounds ([`joint`]), fit a model per compiler
//! ([`fit_stage`]), validate it on control programs ([`validate_stage`]), and record the run in the history. Measuring is the harness's; what
//! a run recorded of its settings is read back by [`recorded`], so a resumed run and a later
//! stage see exactly what the run began with.
//!
//! The modelling rules that sit between the stages (which slope stands for a run's time, which
//! points a fit can use) live here, not in the binary: `mlcost` only parses arguments and
//! prints what these functions return.

pub mod branch_probe;
pub mod explain;
pub mod fit_stage;
pub mod instructions_stage;
pub mod instructions_validation;
pub mod joint;
pub mod observations;
pub mod recorded;
pub mod separability;
pub mod suite;
pub mod validate_stage;

pub use fit_stage::{fit_run, FitOutcome};
pub use observations::observations;
pub use recorded::{recorded_compilers, recorded_sampling, require_run_dir};
pub use rundir::RunDir;
pub use suite::{binaries_for, build_stage, prepare_suite, recount_stage, Prepared, SuiteSettings};
pub use validate_stage::{validate_run, ValidateRequest};

use anyhow::Result;
use std::path::Path;

/// Records the run in `run_dir` in the history database at `db`; returns its id there.
pub fn record_history(db: &Path, run_dir: &Path) -> Result<i64> {
    let data = reports::data::RunData::load(run_dir)?;
    let mut history = history::History::open(db)?;
    Ok(history.record(&reports::pages::history_record(&data))?)
}

/// What the stages report while they run: the harness's progress, the build's steps (reported
/// from parallel builds, hence `Sync` and `&self`), and the end of a stage's bar. The binary
/// shows them all on one display.
pub trait StageProgress: harness::Progress + Sync {
    /// Clears whatever the last step left on the display.
    fn finish(&mut self);
    fn as_harness(&mut self) -> &mut dyn harness::Progress;
    /// A build of `steps` steps (see [`training_gen::suite::build_steps`]) begins.
    fn start_build(&mut self, steps: usize);
    /// A recount of `steps` programs begins (reported as [`training_gen::BuildEvent::Counted`]).
    fn start_recount(&mut self, steps: usize);
    fn build_event(&self, event: training_gen::BuildEvent);
}
