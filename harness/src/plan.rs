//! What to measure: programs × sizes × compilers × layouts, with the sampling settings and
//! where everything goes.

use crate::sampling::SamplingConfig;
use ocaml_runtime::CompilerSetup;
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub struct BenchProgram {
    pub name: String,
    pub path: PathBuf,
    pub sizes: Vec<u64>,
}

#[derive(Debug, Clone)]
pub struct BenchPlan {
    pub programs: Vec<BenchProgram>,
    pub compilers: Vec<CompilerSetup>,
    pub layouts: u32,
    pub sampling: SamplingConfig,
    pub cpu: Option<usize>,
    pub out_dir: PathBuf,
    /// The canary's quiet level (ns per run) measured earlier in the same run, e.g. by the
    /// training stage for the control stage: visits are judged against it when it is below
    /// the level of this measurement's own readings ([`crate::canary::CanaryTimeline::with_reference`]).
    pub canary_reference: Option<f64>,
}
