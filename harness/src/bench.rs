//! A whole measurement: build every program with every compiler in every layout, then measure
//! each (program, size) for each compiler and layout in turn — compilers interleaved per point
//! (A, B, A, B …) so that machine drift hits them alike — appending every sample to
//! `samples.jsonl` and rewriting `estimates.json` after each program.

use crate::estimate::{combine_layouts, layout_estimate, Estimate, LayoutEstimate};
use crate::lock::MeasurementLock;
use crate::machine::RunInfo;
use crate::samples::{SampleIoError, SampleLog, SampleRecord};
use crate::sampling::{sample_point, SamplingConfig, SamplingError};
use ocaml_runtime::process::{DriverFault, DriverProcess};
use ocaml_runtime::{build, BuildError, BuildSpec, BuiltBinary, Compiler, RuntimeObjects};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct BenchProgram {
    pub name: String,
    pub path: PathBuf,
    pub sizes: Vec<u64>,
}

#[derive(Debug, Clone)]
pub struct CompilerSetup {
    pub compiler: Compiler,
    pub flags: Vec<String>,
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
    #[error("cannot save measurements: {0}")]
    Io(#[from] SampleIoError),
}

/// What a measurement reports as it goes; the CLI draws progress bars from it.
pub trait Progress {
    fn stage(&mut self, _message: &str) {}
    fn built(&mut self, _program: &str, _done: usize, _total: usize) {}
    fn point_started(&mut self, _benchmark: &str, _compiler: &str, _size: u64, _layout: u32) {}
    fn point_finished(&mut self, _done: usize, _total: usize) {}
    fn estimate(&mut self, _estimate: &Estimate) {}
}

/// Progress that says nothing.
pub struct Silent;
impl Progress for Silent {}

#[derive(Debug, Clone)]
pub struct BenchOutcome {
    pub estimates: Vec<Estimate>,
    pub samples_path: PathBuf,
    pub estimates_path: PathBuf,
}

fn seed(parts: impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    parts.hash(&mut h);
    h.finish()
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> SampleIoError + '_ {
    move |source| SampleIoError {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `estimates` to `path` through a temporary file, so a reader never sees half a file.
pub fn write_estimates(path: &Path, estimates: &[Estimate]) -> Result<(), SampleIoError> {
    let tmp = path.with_extension("json.tmp");
    let text = serde_json::to_string_pretty(estimates).expect("estimates serialise");
    std::fs::write(&tmp, text).map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io_err(path))
}

/// Builds every (compiler, program, layout); `binaries[c][p][layout]`.
fn build_all(
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
            let mut variants = Vec::new();
            for layout in 0..plan.layouts {
                let dir = build_dir
                    .join(sanitize(&program.name))
                    .join(format!("layout-{layout}"));
                let spec = BuildSpec {
                    program: &program.path,
                    compiler: &setup.compiler,
                    flags: &setup.flags,
                    layout,
                    dir: &dir,
                };
                variants.push(build(&spec, &runtime).map_err(|source| BenchError::Build {
                    program: program.name.clone(),
                    compiler: name.clone(),
                    source,
                })?);
            }
            per_program.push(variants);
            done += 1;
            progress.built(&program.name, done, total);
        }
        all.push(per_program);
    }
    Ok(all)
}

/// File-system-safe form of a benchmark or compiler name.
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

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
    let info_path = plan.out_dir.join("run.json");
    let info = serde_json::to_string_pretty(&RunInfo::new(plan)).expect("run info serialises");
    std::fs::write(&info_path, info).map_err(io_err(&info_path))?;
    let binaries = build_all(plan, progress)?;
    let samples_path = plan.out_dir.join("samples.jsonl");
    let estimates_path = plan.out_dir.join("estimates.json");
    let mut log = SampleLog::open(&samples_path)?;
    let _lock = MeasurementLock::acquire(|| {
        progress.stage("waiting for another mlcost measurement on this machine to finish")
    })
    .map_err(io_err(Path::new("measurement lock")))?;
    progress.stage("measure");

    let total: usize = plan.programs.iter().map(|p| p.sizes.len()).sum::<usize>()
        * plan.compilers.len()
        * plan.layouts as usize;
    let mut done = 0;
    let mut estimates = Vec::new();
    for (p, program) in plan.programs.iter().enumerate() {
        // One process per (compiler, layout), alive across the program's sizes.
        let mut drivers: Vec<Vec<Option<DriverProcess>>> = plan
            .compilers
            .iter()
            .map(|_| (0..plan.layouts).map(|_| None).collect())
            .collect();
        for &size in &program.sizes {
            for (c, setup) in plan.compilers.iter().enumerate() {
                let compiler = &setup.compiler.name;
                let mut layouts: Vec<LayoutEstimate> = Vec::new();
                let mut digests: Vec<String> = Vec::new();
                for layout in 0..plan.layouts {
                    progress.point_started(&program.name, compiler, size, layout);
                    let binary = &binaries[c][p][layout as usize];
                    let fail = |source| BenchError::Measure {
                        benchmark: program.name.clone(),
                        compiler: compiler.clone(),
                        size,
                        layout,
                        source,
                    };
                    let slot = &mut drivers[c][layout as usize];
                    if slot.is_none() {
                        *slot = Some(
                            DriverProcess::spawn(
                                &binary.path,
                                plan.cpu,
                                plan.sampling.reply_timeout,
                            )
                            .map_err(fail)?,
                        );
                    }
                    let driver = slot.as_mut().expect("driver just started");
                    let mut sink = |sample: &ocaml_runtime::BatchSample| {
                        log.append(&SampleRecord {
                            benchmark: program.name.clone(),
                            compiler: compiler.clone(),
                            size,
                            layout,
                            sample: *sample,
                        })
                    };
                    let point = match sample_point(driver, size, &plan.sampling, &mut sink) {
                        Ok(point) => point,
                        Err(SamplingError::Driver(fault)) => {
                            // A faulted driver may be dead or confused: never reuse it.
                            *slot = None;
                            return Err(fail(fault));
                        }
                        Err(SamplingError::Sink(e)) => return Err(e.into()),
                    };
                    let estimate = layout_estimate(
                        layout,
                        binary.layout_offset,
                        &point.samples,
                        seed((&program.name, compiler, size, layout)),
                    )
                    .ok_or_else(|| BenchError::TooFewSamples {
                        benchmark: program.name.clone(),
                        size,
                    })?;
                    layouts.push(estimate);
                    digests.push(point.digest);
                    done += 1;
                    progress.point_finished(done, total);
                }
                if digests.iter().any(|d| d != &digests[0]) {
                    return Err(BenchError::DigestMismatch {
                        benchmark: program.name.clone(),
                        size,
                        digests,
                    });
                }
                let estimate = combine_layouts(
                    &program.name,
                    compiler,
                    size,
                    digests.swap_remove(0),
                    layouts,
                    seed((&program.name, compiler, size)),
                );
                progress.estimate(&estimate);
                estimates.push(estimate);
            }
        }
        write_estimates(&estimates_path, &estimates)?;
    }
    Ok(BenchOutcome {
        estimates,
        samples_path,
        estimates_path,
    })
}
