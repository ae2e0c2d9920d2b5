//! Validating a model end to end: discover the control programs, count each with the
//! interpreter, build and measure each with the harness (in every layout), check that native
//! and interpreted results agree, then score. A program that fails to parse, compile, run or
//! agree is reported by name and skipped; the others still validate.

use crate::control::{discover, spread_sizes, ControlProgram, Skipped};
use crate::score::{
    compare_pairs, score_point, summarise, MeasuredPoint, PairResult, PointAllocation, PointResult,
    Summary,
};
use fit::{CostModel, Method};
use harness::{
    measure_built, BenchError, BenchPlan, BenchProgram, Estimate, Progress, SamplingConfig,
};
use ocaml_runtime::{build_layout, BuiltBinary, CompilerSetup, RuntimeObjects};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use rundir::VALIDATION_FILE;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    pub compiler: String,
    pub programs: Vec<PointResult>,
    pub summary: Summary,
    pub pairs: Vec<PairResult>,
    pub skipped: Vec<Skipped>,
    /// The machine while the controls were measured on their own; `None` when they were
    /// timed beside the training programs (the run's own line says how the machine was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<harness::canary::MachineCondition>,
}

#[derive(Debug, thiserror::Error)]
pub enum ValidationError {
    #[error("{0}")]
    Controls(String),
    #[error(transparent)]
    Bench(#[from] BenchError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    RunDir(#[from] rundir::RunDirError),
}

pub struct ValidateOptions<'a> {
    pub controls: &'a Path,
    /// Where control builds, samples and estimates go (e.g. `RUN_DIR/controls`).
    pub work_dir: &'a Path,
    pub compiler: &'a CompilerSetup,
    pub layouts: u32,
    pub sampling: SamplingConfig,
    pub cpu: Option<usize>,
    /// Reuse points already measured in `work_dir`; without it, a `work_dir` that holds
    /// samples is refused rather than overwritten.
    pub resume: bool,
    /// Only these control programs (all when empty).
    pub only: Vec<String>,
    /// Measure at most this many of each program's sizes (see [`spread_sizes`]).
    pub max_sizes: Option<usize>,
    /// The canary's quiet level in the run's training stage ([`BenchPlan::canary_reference`]).
    pub canary_reference: Option<f64>,
}

/// Per size: the counts, the digest and what a run allocates.
type Counts = Vec<(u64, BTreeMap<String, f64>, String, semantics::Allocation)>;

fn count(program: &ControlProgram) -> Result<Counts, String> {
    Ok(
        semantics::Program::count_at_sizes(&program.path, &program.sizes)?
            .into_iter()
            .map(|r| {
                let counts = r.counts.into_iter().map(|(k, v)| (k, v as f64)).collect();
                (r.size as u64, counts, r.digest, r.allocation)
            })
            .collect(),
    )
}

/// Where validation builds the layouts of control `program` under its work directory.
fn control_build_dir(work_dir: &Path, program: &str) -> PathBuf {
    work_dir.join("build").join(program)
}

/// The binary of layout `layout` of control `program`, as validation builds it in `work_dir`.
pub fn control_binary(work_dir: &Path, program: &str, layout: u32) -> PathBuf {
    ocaml_runtime::layout_binary(&control_build_dir(work_dir, program), layout)
}

fn build_layouts(
    program: &ControlProgram,
    options: &ValidateOptions,
    runtime: &RuntimeObjects,
) -> Result<Vec<BuiltBinary>, String> {
    let base = control_build_dir(options.work_dir, &program.name);
    (0..options.layouts)
        .map(|layout| {
            build_layout(&program.path, options.compiler, runtime, &base, layout)
                .map_err(|e| format!("does not compile: {e}"))
        })
        .collect()
}

/// Counts and builds every control on all CPUs (nothing is being timed yet), reporting each
/// as it finishes; the results come back in the programs' order.
fn prepare_in_parallel<T: Send>(
    programs: &[ControlProgram],
    progress: &mut dyn Progress,
    prepare: impl Fn(&ControlProgram) -> Result<T, String> + Sync,
) -> Vec<Result<T, String>> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<Result<T, String>>> = programs.iter().map(|_| None).collect();
    std::thread::scope(|scope| {
        let (done, finished) = std::sync::mpsc::channel();
        for _ in 0..workers.min(programs.len()) {
            let (done, next, prepare) = (done.clone(), &next, &prepare);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(program) = programs.get(i) else {
                    break;
                };
                if done.send((i, prepare(program))).is_err() {
                    break;
                }
            });
        }
        drop(done);
        for (k, (i, result)) in finished.iter().enumerate() {
            progress.built(&programs[i].name, k + 1, programs.len());
            results[i] = Some(result);
        }
    });
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err("not prepared: a worker stopped".into())))
        .collect()
}

/// A control ready to measure: its counts at every size and its binary in every layout.
pub struct ReadyControl {
    pub program: ControlProgram,
    counts: Counts,
    pub binaries: Vec<BuiltBinary>,
}

/// One compiler's controls, counted and built: what can be measured, and what was skipped
/// (with the reason) before any measurement.
pub struct PreparedControls {
    pub compiler: String,
    pub ready: Vec<ReadyControl>,
    pub skipped: Vec<Skipped>,
}

impl PreparedControls {
    /// The ready controls as the harness takes them.
    pub fn bench_programs(&self) -> Vec<BenchProgram> {
        self.ready
            .iter()
            .map(|r| BenchProgram {
                name: r.program.name.clone(),
                path: r.program.path.clone(),
                sizes: r.program.sizes.clone(),
            })
            .collect()
    }

    /// `binaries[program][layout]` in the order of [`PreparedControls::bench_programs`].
    pub fn binaries(&self) -> Vec<Vec<BuiltBinary>> {
        self.ready.iter().map(|r| r.binaries.clone()).collect()
    }

    /// Drops a control before measurement (e.g. not built by every compiler of a run).
    pub fn skip(&mut self, program: &str, reason: String) {
        let before = self.ready.len();
        self.ready.retain(|r| r.program.name != program);
        if self.ready.len() < before {
            self.skipped.push(Skipped {
                program: program.to_string(),
                reason,
            });
        }
    }
}

/// Discovers the controls of `options`, counts each with the interpreter and builds it in
/// every layout under `options.work_dir` (on all CPUs: nothing may be timed meanwhile).
pub fn prepare_controls(
    options: &ValidateOptions,
    progress: &mut dyn Progress,
) -> Result<PreparedControls, ValidationError> {
    let (mut programs, mut skipped) =
        discover(options.controls).map_err(ValidationError::Controls)?;
    if !options.only.is_empty() {
        programs.retain(|p| options.only.contains(&p.name));
    }
    if let Some(k) = options.max_sizes {
        for p in &mut programs {
            p.sizes = spread_sizes(&p.sizes, k);
        }
    }
    let work_dir = absolute_work_dir(options)?;
    let options = &ValidateOptions {
        work_dir: &work_dir,
        only: options.only.clone(),
        sampling: options.sampling.clone(),
        ..*options
    };
    progress.stage("count and build the control programs");
    let runtime = RuntimeObjects::prepare(
        &options.compiler.compiler,
        &options.compiler.flags,
        &work_dir.join("build").join("runtime"),
        options.layouts,
    )
    .map_err(|e| ValidationError::Controls(format!("mlcost driver: {e}")))?;
    let prepared = prepare_in_parallel(&programs, progress, |program| {
        count(program).and_then(|c| Ok((c, build_layouts(program, options, &runtime)?)))
    });
    let mut ready = Vec::new();
    for (program, prepared) in programs.iter().zip(prepared) {
        match prepared {
            Ok((counts, binaries)) => ready.push(ReadyControl {
                program: program.clone(),
                counts,
                binaries,
            }),
            Err(reason) => skipped.push(Skipped {
                program: program.name.clone(),
                reason,
            }),
        }
    }
    Ok(PreparedControls {
        compiler: options.compiler.compiler.name.clone(),
        ready,
        skipped,
    })
}

fn absolute_work_dir(options: &ValidateOptions) -> Result<PathBuf, ValidationError> {
    std::path::absolute(options.work_dir).map_err(|source| ValidationError::Io {
        path: options.work_dir.to_path_buf(),
        source,
    })
}

/// Counts, builds and measures the controls of `options` on their own (in `work_dir`), then
/// scores `model` on them.
pub fn validate(
    model: &CostModel,
    options: &ValidateOptions,
    progress: &mut dyn Progress,
) -> Result<Validation, ValidationError> {
    let work_dir = absolute_work_dir(options)?;
    let samples = rundir::RunDir::new(&work_dir).samples_file();
    if !options.resume && samples.exists() {
        return Err(ValidationError::Controls(format!(
            "{} already holds measurements: resume to reuse them, or choose another directory",
            samples.display()
        )));
    }
    let prepared = prepare_controls(options, progress)?;
    let plan = BenchPlan {
        programs: prepared.bench_programs(),
        compilers: vec![options.compiler.clone()],
        layouts: options.layouts,
        sampling: options.sampling.clone(),
        cpu: options.cpu,
        out_dir: work_dir.clone(),
        canary_reference: options.canary_reference,
    };
    let outcome = measure_built(&plan, &[prepared.binaries()], true, progress)?;
    let failures = outcome
        .failures
        .into_iter()
        .map(skipped_by)
        .collect::<Result<Vec<_>, _>>()?;
    let mut validation = score_controls(model, prepared, &outcome.estimates, failures)?;
    validation.machine = outcome
        .canary
        .as_ref()
        .map(|c| harness::canary::MachineCondition::of(c, &outcome.estimates));
    Ok(validation)
}

/// Why a measurement's failure rules out its program, `None` for a failure that rules out the
/// whole measurement (the samples could not be saved).
pub fn skipped_reason(failure: &BenchError) -> Option<String> {
    Some(match failure {
        BenchError::Measure { size, source, .. } => format!("failed at size {size}: {source}"),
        BenchError::DigestMismatch { size, .. } => {
            format!("its layouts disagree on the result at size {size}")
        }
        BenchError::TooFewSamples { size, .. } => {
            format!("too few samples at size {size}: raise the quota")
        }
        _ => return None,
    })
}

/// A measurement's failure as the control it rules out, or the failure itself when it rules
/// out the whole measurement.
fn skipped_by(failure: BenchError) -> Result<Skipped, BenchError> {
    let reason = skipped_reason(&failure);
    match (failure, reason) {
        (
            BenchError::Measure { benchmark, .. }
            | BenchError::DigestMismatch { benchmark, .. }
            | BenchError::TooFewSamples { benchmark, .. },
            Some(reason),
        ) => Ok(Skipped {
            program: benchmark,
            reason,
        }),
        (other, _) => Err(other),
    }
}

/// Scores `model` on controls measured elsewhere (`estimates`, with the controls the
/// measurement's `failures` ruled out, see [`skipped_reason`]): a control whose binary failed,
/// whose layouts disagree or whose native result differs from the interpreter's is reported
/// as skipped; the others are scored.
pub fn score_controls(
    model: &CostModel,
    prepared: PreparedControls,
    estimates: &[Estimate],
    failures: Vec<Skipped>,
) -> Result<Validation, ValidationError> {
    let PreparedControls {
        compiler,
        mut ready,
        mut skipped,
    } = prepared;
    for failure in failures {
        ready.retain(|r| r.program.name != failure.program);
        if !skipped.iter().any(|s| s.program == failure.program) {
            skipped.push(failure);
        }
    }
    let estimates: Vec<&Estimate> = estimates
        .iter()
        .filter(|e| e.compiler == compiler && ready.iter().any(|r| r.program.name == e.benchmark))
        .collect();

    let mut points = Vec::new();
    for ReadyControl {
        program, counts, ..
    } in &ready
    {
        let mine: Vec<_> = estimates
            .iter()
            .filter(|e| e.benchmark == program.name)
            .collect();
        let disagreement = mine.iter().find_map(|e| {
            let (_, _, digest, _) = counts.iter().find(|(s, _, _, _)| *s == e.size)?;
            (digest != &e.digest).then(|| {
                format!(
                    "native and interpreter results differ at size {} (digest {} vs {digest})",
                    e.size, e.digest
                )
            })
        });
        if let Some(reason) = disagreement {
            skipped.push(Skipped {
                program: program.name.clone(),
                reason,
            });
            continue;
        }
        for e in mine {
            let Some((_, c, _, allocation)) = counts.iter().find(|(s, _, _, _)| *s == e.size)
            else {
                continue;
            };
            points.push(MeasuredPoint {
                program: program.name.clone(),
                size: e.size,
                measured_ns: e.ns_per_run,
                layout_spread_pct: e.layout_spread_pct,
                minor_collections_per_run: e.minor_collections_per_run,
                counts: c.clone(),
                allocation: Some(PointAllocation::predicted_and_measured(
                    allocation,
                    model.gc.minor_heap_bytes / u64::from(fit::WORD_BYTES),
                    e,
                )),
            });
        }
    }
    let results: Vec<PointResult> = points.iter().map(|p| score_point(model, p)).collect();
    let mut pair_members: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in &ready {
        if let Some(pair) = &r.program.pair {
            pair_members
                .entry(pair.clone())
                .or_default()
                .push(r.program.name.clone());
        }
    }
    let method = if model.methods.contains_key(&Method::Ls) {
        Method::Ls
    } else {
        *model.methods.keys().next().unwrap_or(&Method::Ls)
    };
    Ok(Validation {
        compiler,
        summary: summarise(&results),
        pairs: compare_pairs(&results, &pair_members, method),
        programs: results,
        skipped,
        machine: None,
    })
}

/// Writes a validation (atomically, as every file of a run).
pub fn save(validation: &Validation, path: &Path) -> Result<(), ValidationError> {
    Ok(rundir::write_json(path, validation)?)
}
