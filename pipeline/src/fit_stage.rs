//! Fitting: one cost model per compiler of a measured and counted run.

use crate::observations::observations;
use crate::recorded::{fit_context, minor_heap_words, recorded_compilers, require_run_dir};
use anyhow::{bail, Context, Result};
use harness::Estimate;
use rundir::{read_json, write_json, RunDir};
use std::path::Path;
use training_gen::ProgramCounts;

/// One compiler's model, and the training points it had to leave out (see
/// [`observations`]).
pub struct FitOutcome {
    pub compiler: String,
    pub model: fit::CostModel,
    pub left_out: Vec<String>,
}

/// `fit::fit`, and again without a method whose solver failed numerically (said on stderr):
/// one method's breakdown — the L1 simplex on a degenerate vertex of exact instruction counts —
/// must not cost the run its model. Fails only when every method has failed.
pub(crate) fn fit_without_failed_methods(
    obs: &[fit::Observation],
    context: &fit::FitContext,
    options: &fit::FitOptions,
    what: &str,
) -> Result<fit::CostModel, fit::FitError> {
    fit::without_failed_methods(
        options,
        |options| fit::fit(obs, context, options),
        |method, reason| {
            eprintln!("mlcost: warning: fitting {what}: {method} failed ({reason}); the model has the other methods");
        },
    )
}

/// Fits every compiler of the run; writes `model-<compiler>.json` for each and `model.json`
/// for the first.
pub fn fit_run(run_dir: &Path, options: &fit::FitOptions) -> Result<Vec<FitOutcome>> {
    let run = require_run_dir(run_dir)?;
    let dir = RunDir::new(run_dir);
    require_current_counts(run_dir, &dir)?;
    let estimates: Vec<Estimate> = read_json(&dir.estimates_file())?;
    let counts: Vec<ProgramCounts> = read_json(&dir.counts_file())?;
    let mut outcomes: Vec<FitOutcome> = Vec::new();
    for setup in recorded_compilers(&run) {
        let name = &setup.compiler.name;
        let (obs, left_out) = observations(&estimates, &counts, name);
        if obs.is_empty() {
            bail!(
                "{}: no measured and counted training point for {name} ({} left out, their time per run is not positive)",
                run_dir.display(),
                left_out.len()
            );
        }
        let heap = minor_heap_words(&dir, name)?;
        let context = fit_context(&run, &setup, heap);
        let mut model = fit_without_failed_methods(&obs, &context, options, name)
            .with_context(|| format!("fitting {name}"))?;
        if let Some(methods) = crate::instructions_stage::fit_instructions(
            &dir, name, &estimates, &counts, &context, options,
        )
        .with_context(|| format!("fitting {name}'s instructions"))?
        {
            model.instructions = methods;
        }
        if options.structured {
            if let Err(error) = fit::structure(&mut model, &obs, &context, options) {
                eprintln!("mlcost: warning: the structured time model of {name} could not be fitted ({error}); its time constants are the free fit's");
            }
        }
        model.counting = Some(fit::Counting {
            fingerprint: semantics::catalogue_fingerprint(),
            constructs: semantics::catalogue()
                .iter()
                .map(|c| c.name.to_string())
                .collect(),
        });
        write_json(&dir.model_file(name), &model)?;
        if outcomes.is_empty() {
            write_json(&dir.main_model_file(), &model)?;
        }
        outcomes.push(FitOutcome {
            compiler: name.clone(),
            model,
            left_out,
        });
    }
    Ok(outcomes)
}

/// Refuses to fit counts that another cost semantics wrote: the model would say it was
/// counted by this catalogue (`CostModel::counting`) while its constants explain the other's
/// counts, and validation counts the controls with this one. A run from before mlcost
/// recorded who counted gets a warning.
fn require_current_counts(run_dir: &Path, dir: &RunDir) -> Result<()> {
    let Some(manifest) = rundir::read_optional::<training_gen::Manifest>(&dir.manifest_file())?
    else {
        return Ok(());
    };
    let current = semantics::catalogue_fingerprint();
    match manifest.counted_by {
        Some(counted_by) if counted_by != current => bail!(
            "{}: its training points were counted by another version of mlcost's cost semantics (catalogue {counted_by}; this mlcost counts by {current}): `mlcost rescore {}` recounts them with this one, without measuring, and refits — or fit with the mlcost that counted them",
            run_dir.display(),
            run_dir.display()
        ),
        Some(_) => {}
        None => eprintln!(
            "mlcost: warning: {} does not record which cost semantics counted its training points (a run from before mlcost recorded it); if this mlcost counts differently, `mlcost rescore {}` recounts them first",
            run_dir.display(),
            run_dir.display()
        ),
    }
    Ok(())
}

/// The fit's options for `--method` and `--resamples`.
pub fn options(method: Option<fit::Method>, resamples: usize) -> fit::FitOptions {
    let mut options = fit::FitOptions {
        bootstrap_resamples: resamples,
        ..fit::FitOptions::default()
    };
    if let Some(m) = method {
        options.methods = [m].into();
    }
    options
}
