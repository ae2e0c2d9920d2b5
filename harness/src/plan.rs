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
}
