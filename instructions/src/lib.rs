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
//! collection switched on only inside the driver's batch function (`--toggle-collect`) and one
//! profile written as each batch returns (`--dump-after`). Per size the session asks
//! `size N`, `batch K`, `batch 2K`; the difference of the two batches' totals divided by `K` is
//! the instructions of one run: the batch's fixed cost (clock and GC counters) cancels, and
//! start-up and input construction are never counted. One process serves every size of a
//! binary, because valgrind's start-up (about 0.4 s) would otherwise dominate the cost.
//! `K` is a power of two chosen from a short native probe so that `K` runs take about
//! [`TARGET_NATIVE_NS`] natively: enough runs that a minor collection's instructions are
//! spread thin, few enough that the session stays short under valgrind (about 50× slower).

pub mod record;
pub mod valgrind;

pub use record::{
    measure_tasks, summarise, InstructionRecord, InstructionSummary, MeasureTask, Outcome,
};
pub use valgrind::{available, count_batches, Valgrind};

use ocaml_runtime::{DriverProcess, Reply, Request};
use std::path::Path;
use std::time::Duration;

/// Native time the `K` runs of a point should take (see the crate documentation).
pub const TARGET_NATIVE_NS: u64 = 1_000_000;

/// Most runs in one batch, for a `run` too cheap for the clock to see.
const MAX_RUNS: u64 = 1 << 24;

#[derive(Debug, thiserror::Error)]
pub enum InstructionError {
    #[error("valgrind is not installed (apt-get install valgrind): instructions are not counted")]
    NoValgrind,
    #[error("{binary}: {message}")]
    Run { binary: String, message: String },
}

/// One point's instructions: the two batch sizes, the two totals and the difference per run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointCount {
    pub runs_low: u64,
    pub runs_high: u64,
    pub total_low: u64,
    pub total_high: u64,
}

impl PointCount {
    /// `(I2 − I1) / (K2 − K1)`: start-up, input and the batch's fixed cost cancel.
    pub fn per_run(&self) -> f64 {
        (self.total_high as f64 - self.total_low as f64) / (self.runs_high - self.runs_low) as f64
    }
}

/// How many runs make the low batch of a point: the smallest power of two whose runs take
/// [`TARGET_NATIVE_NS`] natively, timed by a short native probe. A power of two so that the
/// probe's noise rarely changes the choice, and the two measurements of a point use the same
/// batches.
pub fn choose_runs(binary: &Path, size: u64, limit: Duration) -> Result<u64, InstructionError> {
    let fault = |e: ocaml_runtime::DriverFault| InstructionError::Run {
        binary: binary.display().to_string(),
        message: e.to_string(),
    };
    let mut driver = DriverProcess::spawn(binary, None, limit).map_err(fault)?;
    driver.request(Request::Size(size), limit).map_err(fault)?;
    let mut runs = 1u64;
    loop {
        let ns = match driver.request(Request::Batch(runs), limit).map_err(fault)? {
            Reply::Sample(s) => s.ns,
            other => {
                return Err(InstructionError::Run {
                    binary: binary.display().to_string(),
                    message: format!("unexpected reply to a batch: {other:?}"),
                })
            }
        };
        // Stop once the batch is long enough to extrapolate from (a quarter of the target).
        if ns >= TARGET_NATIVE_NS / 4 || runs >= MAX_RUNS {
            let wanted = (TARGET_NATIVE_NS as f64 * runs as f64 / ns.max(1) as f64).ceil() as u64;
            let _ = driver.request(Request::Quit, limit);
            return Ok(wanted.clamp(1, MAX_RUNS).next_power_of_two());
        }
        runs *= 2;
    }
}

/// Counts every size of one binary: chooses `K` per size, then one valgrind session.
pub fn measure_binary(
    valgrind: &Valgrind,
    binary: &Path,
    sizes: &[u64],
) -> Result<Vec<PointCount>, InstructionError> {
    let limit = Duration::from_secs(60);
    let plan = sizes
        .iter()
        .map(|&size| Ok((size, choose_runs(binary, size, limit)?)))
        .collect::<Result<Vec<_>, InstructionError>>()?;
    count_batches(valgrind, binary, &plan)
}
