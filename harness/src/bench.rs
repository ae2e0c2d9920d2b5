//! Building a plan with `ocaml-runtime` (every compiler, program and layout), and building then
//! measuring it in one call. Measuring is [`crate::measure`].

use crate::canary::CanaryTimeline;
use crate::error::BenchError;
use crate::estimate::Estimate;
use crate::measure::measure_built;
use crate::plan::BenchPlan;
use crate::progress::Progress;
use crate::samples::SampleIoError;
use ocaml_runtime::{build_layout, BuiltBinary, RuntimeObjects};
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub struct BenchOutcome {
    pub estimates: Vec<Estimate>,
    pub samples_path: PathBuf,
    pub estimates_path: PathBuf,
    /// The canary's readings over the run (none when nothing was left to measure).
    pub canary: Option<CanaryTimeline>,
    /// Programs that failed (a crash, a hang, garbage on the protocol, layouts that disagree
    /// on the result): left out of `estimates`, their samples kept on disk.
    pub failures: Vec<BenchError>,
}

impl BenchOutcome {
    /// The outcome when every program was measured, or the first failure.
    pub fn into_result(mut self) -> Result<BenchOutcome, BenchError> {
        if self.failures.is_empty() {
            Ok(self)
        } else {
            Err(self.failures.remove(0))
        }
    }
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> SampleIoError + '_ {
    move |source| SampleIoError {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `estimates` to `path` through a temporary file, so a reader never sees half a file.
pub fn write_estimates(path: &Path, estimates: &[Estimate]) -> Result<(), SampleIoError> {
    rundir::write_json(path, estimates).map_err(|e| SampleIoError {
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })
}

/// Builds every (compiler, program, layout) into `plan.out_dir/build`; `binaries[c][p][layout]`.
pub fn build_all(
    plan: &BenchPlan,
    progress: &mut dyn Progress,
) -> Result<Vec<Vec<Vec<BuiltBinary>>>, BenchError> {
    progress.stage("build");
    let total = plan.compilers.len() * plan.programs.len();
    let mut done = 0;
    let mut all = Vec::new();
    for setup in &plan.compilers {
        let name = &setup.compiler.name;
        let build_dir = plan.out_dir.join("build").join(sanitize(name));
        let runtime = RuntimeObjects::prepare(
            &setup.compiler,
            &setup.flags,
            &build_dir.join("runtime"),
            plan.layouts,
        )
        .map_err(|source| BenchError::Build {
            program: "mlcost driver".into(),
            compiler: name.clone(),
            source,
        })?;
        let mut per_program = Vec::new();
        for program in &plan.programs {
            let base = build_dir.join(sanitize(&program.name));
            let variants = (0..plan.layouts)
                .map(|layout| build_layout(&program.path, setup, &runtime, &base, layout))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|source| BenchError::Build {
                    program: program.name.clone(),
                    compiler: name.clone(),
                    source,
                })?;
            per_program.push(variants);
            done += 1;
            progress.built(&program.name, done, total);
        }
        all.push(per_program);
    }
    Ok(all)
}

pub use ocaml_runtime::build::sanitize;

/// Builds every program and measures it: `build_all`, then [`measure_built`]. Everything
/// goes to `plan.out_dir`: `run.json`, `build/`, `samples.jsonl`, `visits.jsonl`,
/// `canary.jsonl`, `estimates.json`. Fails on the first program that could not be measured
/// (after estimating and saving the others).
pub fn run_bench(
    plan: &BenchPlan,
    progress: &mut dyn Progress,
) -> Result<BenchOutcome, BenchError> {
    std::fs::create_dir_all(&plan.out_dir).map_err(io_err(&plan.out_dir))?;
    // The compiler runs inside each build directory, so every path handed to it is absolute.
    let out_dir = std::path::absolute(&plan.out_dir).map_err(io_err(&plan.out_dir))?;
    let plan = &BenchPlan {
        out_dir,
        ..plan.clone()
    };
    let binaries = build_all(plan, progress)?;
    measure_built(plan, &binaries, false, progress)?.into_result()
}
