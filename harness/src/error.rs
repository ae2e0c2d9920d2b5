//! The errors a measurement can end in, each naming the benchmark, size, compiler and layout
//! it concerns.

use crate::samples::SampleIoError;
use ocaml_runtime::process::DriverFault;
use ocaml_runtime::BuildError;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{program} ({compiler}): {source}")]
    Build {
        program: String,
        compiler: String,
        source: BuildError,
    },
    #[error("benchmark {benchmark} at size {size} ({compiler}, layout {layout}): {source}")]
    Measure {
        benchmark: String,
        compiler: String,
        size: u64,
        layout: u32,
        source: DriverFault,
    },
    #[error("benchmark {benchmark} at size {size}: the layouts disagree on the result digest ({digests:?}); the program is not deterministic")]
    DigestMismatch {
        benchmark: String,
        size: u64,
        digests: Vec<String>,
    },
    #[error(
        "benchmark {benchmark} at size {size}: fewer than two distinct batch sizes; raise --quota"
    )]
    TooFewSamples { benchmark: String, size: u64 },
    #[error("{0} already holds measurements: choose another output directory (or resume the run)")]
    AlreadyMeasured(PathBuf),
    #[error("cannot save measurements: {0}")]
    Io(#[from] SampleIoError),
}
