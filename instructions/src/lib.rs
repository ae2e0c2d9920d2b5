//! # instructions
//!
//! Instructions per run of a benchmark binary, counted under valgrind: the second metric beside
//! time. Time on a shared machine moves between runs; the number of instructions a run
//! executes does not, so a change in it is a change in the code, never in the machine.
//!
//! This crate owns running a binary under valgrind ([`valgrind`]), turning two counts into
//! instructions per run ([`measure_binary`]), and the records a run directory keeps of them
//! ([`record`]: `instructions.jsonl`, appended as measured so a resumed run skips what it
//! has, and `instructions.json`, one summary per (program, compiler, size)).
//!
//! ## Method
//! Each binary runs once under `valgrind --tool=callgrind --collect-atstart=no`, with
//! collection switched on only inside the program's `run` (`--toggle-collect`) and one profile
//! written as each driver batch returns (`--dump-after`). Per size the session asks `size N`,
//! a probe `batch 1`, then `batch K` and `batch 2K`; the difference of the two batches divided
//! by `K` is the instructions of one run. `K` is chosen from the probe's instruction count
//! ([`valgrind::runs_for`]), never from a timing, so two runs of the suite ask the same batches.
//!
//! The same session also gives each function's own instructions per run
//! ([`valgrind::count_functions`]): what `mlcost explain` sets beside the interpreter's counts
//! per function to find where a count goes wrong.
//!
//! Collections are counted apart: the instructions of the collector's functions
//! ([`valgrind::GC_FUNCTIONS`]) depend on where the minor heap's boundaries fall among the
//! runs and on what is live then, which depends on everything the process did before; the rest
//! (the mutator's instructions) is the same for every run to a few instructions. So
//! [`PointCount::per_run`] is the mutator's count, the metric that is fitted, and
//! [`PointCount::gc_per_run`] the collections' share, kept beside it. One process serves every
//! size of a binary, because valgrind's start-up (about 0.4 s) would otherwise dominate.

pub mod record;
pub mod valgrind;

pub use record::{
    measure_tasks, summarise, InstructionRecord, InstructionSummary, MeasureTask, Outcome,
};
pub use valgrind::{available, count_batches, Valgrind};

use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum InstructionError {
    #[error("valgrind is not installed (apt-get install valgrind): instructions are not counted")]
    NoValgrind,
    #[error("{binary}: {message}")]
    Run { binary: String, message: String },
}

/// One point's instructions: the two batch sizes, each batch's instructions and the
/// collections' share of them, and the probe run's instructions (collections excluded).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointCount {
    pub runs_low: u64,
    pub runs_high: u64,
    pub total_low: u64,
    pub total_high: u64,
    pub gc_low: u64,
    pub gc_high: u64,
    pub probe: u64,
}

impl PointCount {
    /// Instructions of one run outside the collector: the slope between the two batches,
    /// `((I₂ − G₂) − (I₁ − G₁)) / (K₂ − K₁)`, exact to a few instructions per batch.
    pub fn per_run(&self) -> f64 {
        let mutator = |total: u64, gc: u64| total as f64 - gc as f64;
        (mutator(self.total_high, self.gc_high) - mutator(self.total_low, self.gc_low))
            / (self.runs_high - self.runs_low) as f64
    }

    /// The collector's instructions per run over the same batches: how many collections fall
    /// in a batch, and what they find live, depends on the heap before it, so this is a
    /// reading, not a constant.
    pub fn gc_per_run(&self) -> f64 {
        (self.gc_high as f64 - self.gc_low as f64) / (self.runs_high - self.runs_low) as f64
    }
}

/// Counts every size of one binary in one valgrind session, each batch size chosen from the
/// probe's count.
pub fn measure_binary(
    valgrind: &Valgrind,
    binary: &Path,
    sizes: &[u64],
) -> Result<Vec<PointCount>, InstructionError> {
    let plan: Vec<(u64, Option<u64>)> = sizes.iter().map(|&s| (s, None)).collect();
    count_batches(valgrind, binary, &plan)
}
