//! The suite's one timing stage: the training programs and the controls measured in the same
//! rounds. Measured one stage after the other, the controls met whatever the machine did in
//! their minutes alone: in two of four default runs they came out about 5% slower than the
//! training stage's own level, a drift the canary did not see, so validation errors and A/A
//! comparisons moved with it. Interleaved, a drift moves both alike (docs/measuring.md, "One
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
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use validation::{PreparedControls, Skipped, ValidateOptions, Validation};

/// What a control's name carries in a joint measurement's samples log: no training program
/// can take it, since template names are OCaml identifiers.
pub const CONTROL_PREFIX: &str = "control:";

/// The layouts a suite times its controls in, for `layouts` of the training programs.
/// Controls are validated, not fitted: four layouts average their layout effect well enough
/// (a default run's controls spread 11% across layouts, so the mean of four is within about
/// ±6%, far inside the model's error), and the visits saved keep the default suite within its
/// time budget (docs/measuring.md, "Choosing the budget").
pub fn control_layouts(layouts: u32) -> u32 {
    layouts.min(CONTROL_LAYOUTS)
}

const CONTROL_LAYOUTS: u32 = 4;

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
    // The compilers that could not prepare `name`.
    let lacking = |name: &str| -> Vec<String> {
        prepared
            .iter()
            .filter(|p| !p.ready.iter().any(|r| r.program.name == name))
            .map(|p| p.compiler.clone())
            .collect()
    };
    let partial: BTreeMap<String, Vec<String>> = prepared
        .iter()
        .flat_map(|p| p.ready.iter().map(|r| r.program.name.clone()))
        .map(|name| {
            let missing = lacking(&name);
            (name, missing)
        })
        .filter(|(_, missing)| !missing.is_empty())
        .collect();
    for (name, lacking) in partial {
        for p in &mut prepared {
            p.skip(&name, format!("not prepared for {}", lacking.join(", ")));
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

/// A control's measurement failure as the control it rules out (under its own name), and the
/// compiler it concerns: one that names none (layouts that disagree, too few samples) rules the
/// control out of every compiler's validation. `None` for a training program's failure.
fn control_failure(failure: &BenchError) -> Option<(Option<String>, Skipped)> {
    let (benchmark, compiler) = match failure {
        BenchError::Measure {
            benchmark,
            compiler,
            ..
        } => (benchmark, Some(compiler.clone())),
        BenchError::DigestMismatch { benchmark, .. }
        | BenchError::TooFewSamples { benchmark, .. } => (benchmark, None),
        _ => return None,
    };
    let name = control_name(benchmark)?;
    Some((
        compiler,
        Skipped {
            program: name.to_string(),
            reason: validation::skipped_reason(failure)?,
        },
    ))
}

/// A joint measurement split back: the training part as the training stage alone would have
/// left it, the controls' part under their own names.
pub struct SplitMeasurement {
    pub training: Vec<Estimate>,
    pub training_failures: Vec<BenchError>,
    pub controls: Vec<Estimate>,
    /// The controls the measurement ruled out, and the compiler each concerns (`None`: all).
    pub control_failures: Vec<(Option<String>, Skipped)>,
}

/// Splits a joint measurement and writes each part where the later stages read it: the
/// training estimates to the run's `estimates.json`, each compiler's control estimates to its
/// control directory's.
pub fn split_and_save(
    run_dir: &Path,
    estimates: Vec<Estimate>,
    failures: Vec<BenchError>,
) -> Result<SplitMeasurement> {
    let mut training = Vec::new();
    let mut controls = Vec::new();
    for e in estimates {
        match control_name(&e.benchmark) {
            Some(name) => controls.push(Estimate {
                benchmark: name.to_string(),
                ..e
            }),
            None => training.push(e),
        }
    }
    let mut training_failures = Vec::new();
    let mut control_failures = Vec::new();
    for f in failures {
        match control_failure(&f) {
            Some(c) => control_failures.push(c),
            None => training_failures.push(f),
        }
    }

    let dir = RunDir::new(run_dir);
    write_json(&dir.estimates_file(), &training)?;
    let compilers: BTreeSet<&str> = controls.iter().map(|e| e.compiler.as_str()).collect();
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
    failures: &[(Option<String>, Skipped)],
) -> Result<Vec<(String, Validation)>> {
    let dir = RunDir::new(run_dir);
    let mut out = Vec::new();
    for controls in prepared {
        let name = controls.compiler.clone();
        let model: fit::CostModel = read_json(&dir.model_file(&name))?;
        let mine = failures
            .iter()
            .filter(|(c, _)| c.as_ref().is_none_or(|c| *c == name))
            .map(|(_, s)| s.clone())
            .collect();
        let v = validation::score_controls(&model, controls, estimates, mine)?;
        write_json(&dir.validation_file(None, &name), &v)?;
        if out.is_empty() {
            write_json(&dir.main_validation_file(None), &v)?;
        }
        out.push((name, v));
    }
    Ok(out)
}
