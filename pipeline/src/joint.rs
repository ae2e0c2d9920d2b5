//! The suite's one timing stage: the training programs and the controls measured in the same
//! rounds. Measured one stage after the other, the controls met whatever the machine did in
//! their minutes alone: in two of four default runs they came out about 5% slower than the
//! training stage's own level, a drift the canary did not see, so validation errors and A/A
//! comparisons moved with it. Interleaved, a drift moves both alike (docs/design.md, "One
//! timing stage").
//!
//! The controls are counted and built before timing (as validation would), measured under
//! their own names behind [`CONTROL_PREFIX`] in the run's samples log, and their estimates go
//! to each compiler's control directory, where validation and the instruction stage read them.

use crate::StageProgress;
use anyhow::Result;
use harness::{BenchError, BenchProgram, Estimate};
use ocaml_runtime::{BuiltBinary, CompilerSetup};
use rundir::{read_json, write_json, RunDir};
use std::path::Path;
use validation::{PreparedControls, ValidateOptions, Validation};

/// What a control's name carries in a joint measurement's samples log: no training program
/// can take it, since template names are OCaml identifiers.
pub const CONTROL_PREFIX: &str = "control:";

/// Counts and builds the suite's controls for every compiler (in `controls/<compiler>/build`,
/// where validation builds them). A control that some compiler could not prepare is left out
/// for all, so that every measured point has a partner under every compiler.
pub fn prepare_controls(
    run_dir: &Path,
    controls: Option<&Path>,
    max_sizes: Option<usize>,
    compilers: &[CompilerSetup],
    layouts: u32,
    progress: &mut dyn StageProgress,
) -> Result<Vec<PreparedControls>> {
    let dir = RunDir::new(run_dir);
    let corpus = match controls {
        Some(c) => c.to_path_buf(),
        None => validation::extract_builtin(&dir.builtin_controls_dir())?,
    };
    let mut prepared = Vec::new();
    for setup in compilers {
        let work_dir = dir.controls_work_dir(None, &setup.compiler.name);
        let p = validation::prepare_controls(
            &ValidateOptions {
                controls: &corpus,
                work_dir: work_dir.path(),
                compiler: setup,
                layouts,
                // Preparing neither measures nor pins: the joint measurement does.
                sampling: harness::SamplingConfig::default(),
                cpu: None,
                resume: true,
                only: Vec::new(),
                max_sizes,
                canary_reference: None,
            },
            progress.as_harness(),
        )?;
        progress.finish();
        prepared.push(p);
    }
    let everywhere = |name: &str| {
        prepared
            .iter()
            .all(|p| p.ready.iter().any(|r| r.program.name == name))
    };
    let partial: Vec<(String, String)> = prepared
        .iter()
        .flat_map(|p| p.ready.iter().map(|r| r.program.name.clone()))
        .filter(|name| !everywhere(name))
        .map(|name| {
            let failed: Vec<&str> = prepared
                .iter()
                .filter(|p| !p.ready.iter().any(|r| r.program.name == name))
                .map(|p| p.compiler.as_str())
                .collect();
            (name, failed.join(", "))
        })
        .collect();
    for (name, failed) in partial {
        for p in &mut prepared {
            if p.ready.iter().any(|r| r.program.name == name) {
                p.skip(&name, format!("not prepared for {failed}"));
            }
        }
    }
    Ok(prepared)
}

/// The training plan's programs and binaries (`binaries[compiler][program][layout]`) with the
/// controls appended under their prefixed names; `controls` is in the compilers' order.
pub fn with_controls(
    mut programs: Vec<BenchProgram>,
    mut binaries: Vec<Vec<Vec<BuiltBinary>>>,
    controls: &[PreparedControls],
) -> (Vec<BenchProgram>, Vec<Vec<Vec<BuiltBinary>>>) {
    if let Some(first) = controls.first() {
        programs.extend(first.bench_programs().into_iter().map(|p| BenchProgram {
            name: format!("{CONTROL_PREFIX}{}", p.name),
            ..p
        }));
    }
    for (per_compiler, prepared) in binaries.iter_mut().zip(controls) {
        per_compiler.extend(prepared.binaries());
    }
    (programs, binaries)
}

/// A control's name without its prefix, `None` for a training program.
fn control_name(benchmark: &str) -> Option<&str> {
    benchmark.strip_prefix(CONTROL_PREFIX)
}

fn failure_benchmark(failure: &BenchError) -> Option<&str> {
    match failure {
        BenchError::Measure { benchmark, .. }
        | BenchError::DigestMismatch { benchmark, .. }
        | BenchError::TooFewSamples { benchmark, .. } => Some(benchmark),
        _ => None,
    }
}

fn unprefixed(failure: BenchError) -> BenchError {
    let strip = |b: String| control_name(&b).map_or(b.clone(), str::to_string);
    match failure {
        BenchError::Measure {
            benchmark,
            compiler,
            size,
            layout,
            source,
        } => BenchError::Measure {
            benchmark: strip(benchmark),
            compiler,
            size,
            layout,
            source,
        },
        BenchError::DigestMismatch {
            benchmark,
            size,
            digests,
        } => BenchError::DigestMismatch {
            benchmark: strip(benchmark),
            size,
            digests,
        },
        BenchError::TooFewSamples { benchmark, size } => BenchError::TooFewSamples {
            benchmark: strip(benchmark),
            size,
        },
        other => other,
    }
}

/// A joint measurement split back: the training part as the training stage alone would have
/// left it, the controls' part under their own names.
pub struct SplitMeasurement {
    pub training: Vec<Estimate>,
    pub training_failures: Vec<BenchError>,
    pub controls: Vec<Estimate>,
    pub control_failures: Vec<BenchError>,
}

/// Splits a joint measurement and writes each part where the later stages read it: the
/// training estimates to the run's `estimates.json`, each compiler's control estimates to its
/// control directory's.
pub fn split_and_save(
    run_dir: &Path,
    estimates: Vec<Estimate>,
    failures: Vec<BenchError>,
) -> Result<SplitMeasurement> {
    let (controls, training): (Vec<Estimate>, Vec<Estimate>) = estimates
        .into_iter()
        .partition(|e| control_name(&e.benchmark).is_some());
    let controls: Vec<Estimate> = controls
        .into_iter()
        .map(|e| Estimate {
            benchmark: control_name(&e.benchmark).unwrap_or_default().to_string(),
            ..e
        })
        .collect();
    let (control_failures, training_failures): (Vec<BenchError>, Vec<BenchError>) = failures
        .into_iter()
        .partition(|f| failure_benchmark(f).is_some_and(|b| control_name(b).is_some()));
    let control_failures = control_failures.into_iter().map(unprefixed).collect();

    let dir = RunDir::new(run_dir);
    write_json(&dir.estimates_file(), &training)?;
    let mut compilers: Vec<&str> = controls.iter().map(|e| e.compiler.as_str()).collect();
    compilers.dedup();
    for compiler in compilers {
        let mine: Vec<&Estimate> = controls.iter().filter(|e| e.compiler == compiler).collect();
        let work = dir.controls_work_dir(None, compiler);
        std::fs::create_dir_all(work.path())?;
        write_json(&work.estimates_file(), &mine)?;
    }
    Ok(SplitMeasurement {
        training,
        training_failures,
        controls,
        control_failures,
    })
}

/// Scores every compiler's model on the controls measured with the training programs and
/// writes `validation-<compiler>.json` (and `validation.json` for the first), as
/// [`crate::validate_run`] does for controls measured on their own.
pub fn validate_measured(
    run_dir: &Path,
    prepared: Vec<PreparedControls>,
    estimates: &[Estimate],
    failures: Vec<BenchError>,
) -> Result<Vec<(String, Validation)>> {
    let dir = RunDir::new(run_dir);
    // Which compiler a failure concerns; one that names none (layouts that disagree, too few
    // samples) rules the control out of every compiler's validation.
    let failures: Vec<(Option<String>, validation::Skipped)> = failures
        .into_iter()
        .map(|f| {
            let compiler = match &f {
                BenchError::Measure { compiler, .. } => Some(compiler.clone()),
                _ => None,
            };
            Ok((compiler, validation::skipped_by(f)?))
        })
        .collect::<Result<_, BenchError>>()?;
    let mut out = Vec::new();
    for controls in prepared {
        let name = controls.compiler.clone();
        let model: fit::CostModel = read_json(&dir.model_file(&name))?;
        let mine = failures
            .iter()
            .filter(|(c, _)| c.as_ref().is_none_or(|c| *c == name))
            .map(|(_, s)| s.clone())
            .collect();
        let v = validation::score_controls(&model, controls, estimates.to_vec(), mine)?;
        write_json(&dir.validation_file(None, &name), &v)?;
        if out.is_empty() {
            write_json(&dir.main_validation_file(None), &v)?;
        }
        out.push((name, v));
    }
    Ok(out)
}
