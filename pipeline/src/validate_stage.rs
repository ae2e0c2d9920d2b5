//! Validation: every compiler's model of a run against control programs, the built-in corpus
//! or a user's own.

use crate::recorded::{recorded_compilers, recorded_sampling, require_run_dir};
use crate::StageProgress;
use anyhow::Result;
use rundir::{read_json, write_json, RunDir};
use std::path::Path;
use validation::{validate, ValidateOptions, Validation};

pub struct ValidateRequest<'a> {
    pub run_dir: &'a Path,
    pub controls: Option<&'a Path>,
    /// The suite's own validation: `validation.json` and `controls/` whatever the corpus.
    pub main: bool,
    pub only: Vec<String>,
    pub resume: bool,
    /// Time controls the suite measured with its training programs again, alone.
    pub remeasure: bool,
    pub max_sizes: Option<usize>,
}

/// Validates every compiler's model of a run; writes `validation-<compiler>.json` and, for the
/// first compiler, `validation.json` — tagged with the corpus directory's name instead when a
/// user's own corpus is validated against an existing run, so the suite's own validation is
/// never overwritten.
pub fn validate_run(
    req: &ValidateRequest,
    progress: &mut dyn StageProgress,
) -> Result<Vec<(String, Validation)>> {
    let run = require_run_dir(req.run_dir)?;
    let dir = RunDir::new(req.run_dir);
    let (controls, corpus) = match req.controls {
        Some(controls) if req.main => (controls.to_path_buf(), None),
        Some(controls) => (
            controls.to_path_buf(),
            Some(
                controls
                    .file_name()
                    .map_or(rundir::CONTROLS_DIR.into(), |n| {
                        n.to_string_lossy().into_owned()
                    }),
            ),
        ),
        None => (
            validation::extract_builtin(&dir.builtin_controls_dir())?,
            None,
        ),
    };
    let corpus = corpus.as_deref();
    let sampling = recorded_sampling(&run);
    // The training stage's quiet level: a control stage slowed throughout is seen as such.
    let canary_reference =
        harness::canary::CanaryTimeline::read(&dir.canary_file())?.map(|t| t.typical_ns_per_run);
    let mut out = Vec::new();
    for setup in recorded_compilers(&run) {
        let name = setup.compiler.name.clone();
        let model: fit::CostModel = read_json(&dir.model_file(&name))?;
        let work_dir = dir.controls_work_dir(corpus, &name);
        let options = ValidateOptions {
            controls: &controls,
            work_dir: work_dir.path(),
            compiler: &setup,
            layouts: run.layouts,
            sampling: sampling.clone(),
            cpu: run.pinned_cpu,
            resume: req.resume,
            only: req.only.clone(),
            max_sizes: req.max_sizes,
            canary_reference,
        };
        if req.remeasure {
            keep_joint_estimates(&work_dir)?;
        }
        let v = match measured_with_training(&work_dir, req) {
            // The suite timed these controls with its training programs: score them again
            // (after a re-fit, say) on those estimates rather than time them alone.
            Some(estimates) => {
                let prepared = validation::prepare_controls(&options, progress.as_harness())?;
                validation::score_controls(&model, prepared, &estimates?, Vec::new())?
            }
            None => validate(&model, &options, progress.as_harness())?,
        };
        progress.finish();
        write_json(&dir.validation_file(corpus, &name), &v)?;
        if out.is_empty() {
            write_json(&dir.main_validation_file(corpus), &v)?;
        }
        out.push((name, v));
    }
    Ok(out)
}

/// The estimates of controls a suite measured in its training rounds ([`crate::joint`]): only
/// for the suite's own corpus, with the sizes the suite measured, and unless asked to time
/// them again. Re-fitting a run and validating it must not cost it the estimates its
/// controls were timed in beside the training programs.
fn measured_with_training(
    work_dir: &RunDir,
    req: &ValidateRequest,
) -> Option<Result<Vec<harness::Estimate>>> {
    (!req.remeasure && req.only.is_empty() && jointly_measured(work_dir))
        .then(|| Ok(read_json(&work_dir.estimates_file())?))
}

/// Whether the controls' estimates in `work_dir` are the suite's joint ones (a validation of
/// its own leaves its samples beside them).
fn jointly_measured(work_dir: &RunDir) -> bool {
    work_dir.estimates_file().is_file() && !work_dir.samples_file().exists()
}

/// Before the controls are timed again alone, the joint estimates move aside, not away.
fn keep_joint_estimates(work_dir: &RunDir) -> Result<()> {
    if jointly_measured(work_dir) {
        let kept = work_dir.path().join(JOINT_ESTIMATES);
        std::fs::rename(work_dir.estimates_file(), &kept).map_err(|e| {
            anyhow::anyhow!(
                "{}: cannot keep the suite's control estimates: {e}",
                kept.display()
            )
        })?;
    }
    Ok(())
}

/// Where `--remeasure` keeps the estimates the suite took of its controls.
pub const JOINT_ESTIMATES: &str = "estimates-joint.json";
