//! Counting instructions: every training point (and every control point a validation
//! measured) under valgrind, after timing is over, and the instruction model fitted beside the
//! time model. See the `instructions` crate for how one point is counted.
//!
//! Instructions barely depend on code layout (a layout only moves the same code), so only the
//! first [`DEFAULT_LAYOUTS`] layouts of each point are counted: the second shows the
//! difference is nil without paying for eight.

use crate::observations::observations;
use crate::recorded::{recorded_compilers, require_run_dir};
use crate::suite::binaries_for;
use anyhow::Result;
use harness::Estimate;
use instructions::{InstructionSummary, MeasureTask, Valgrind};
use rundir::{read_optional, write_json, RunDir};
use std::collections::BTreeMap;
use std::path::Path;
use training_gen::{Manifest, ProgramCounts};

/// Layouts counted per point.
pub const DEFAULT_LAYOUTS: u32 = 2;

/// What the stage did, or why it did nothing.
pub enum InstructionsOutcome {
    /// valgrind is missing: the one line to show the user, and the report.
    Skipped(String),
    Counted {
        valgrind: String,
        training: instructions::Outcome,
        controls: instructions::Outcome,
    },
}

/// The line shown, and kept in the report, when the metric is skipped.
pub fn skipped_line() -> String {
    "instructions per run not counted: valgrind is not installed (scripts/setup.sh installs it)"
        .to_string()
}

/// The training points of `run_dir` to count: every program the timing stage could use, each
/// size, the first `layouts` layouts, every compiler.
pub fn training_tasks(run_dir: &Path, layouts: u32) -> Result<Vec<MeasureTask>> {
    let run = require_run_dir(run_dir)?;
    let manifest = Manifest::load(run_dir)?;
    let names: Vec<String> = recorded_compilers(&run)
        .iter()
        .map(|c| c.compiler.name.clone())
        .collect();
    let (programs, binaries) = binaries_for(&manifest, run_dir, &names, run.layouts);
    let mut tasks = Vec::new();
    for (c, compiler) in names.iter().enumerate() {
        for (p, program) in programs.iter().enumerate() {
            for binary in binaries[c][p].iter().take(layouts as usize) {
                tasks.push(MeasureTask {
                    program: program.name.clone(),
                    compiler: compiler.clone(),
                    layout: binary.layout,
                    binary: binary.path.clone(),
                    sizes: program.sizes.clone(),
                });
            }
        }
    }
    Ok(tasks)
}

/// The control points one compiler's validation measured in `work` (its estimates), built
/// where validation builds them.
pub fn control_tasks(work: &RunDir, compiler: &str, layouts: u32) -> Result<Vec<MeasureTask>> {
    let estimates: Vec<Estimate> = read_optional(&work.estimates_file())?.unwrap_or_default();
    let mut sizes: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for e in estimates.iter().filter(|e| e.compiler == compiler) {
        sizes.entry(e.benchmark.clone()).or_default().push(e.size);
    }
    let mut tasks = Vec::new();
    for (program, sizes) in sizes {
        for layout in 0..layouts {
            let binary = validation::control_binary(work.as_ref(), &program, layout);
            if binary.is_file() {
                tasks.push(MeasureTask {
                    program: program.clone(),
                    compiler: compiler.to_string(),
                    layout,
                    binary,
                    sizes: sizes.clone(),
                });
            }
        }
    }
    Ok(tasks)
}

/// Counts what is not counted yet in `dir`'s `instructions.jsonl` and rewrites its
/// `instructions.json`.
fn count_into(
    valgrind: &Valgrind,
    dir: &RunDir,
    tasks: &[MeasureTask],
    progress: &(dyn Fn(usize, usize, &MeasureTask) + Sync),
) -> Result<instructions::Outcome> {
    let outcome =
        instructions::measure_tasks(valgrind, tasks, &dir.instructions_log_file(), progress)?;
    let records = instructions::record::read_records(&dir.instructions_log_file())?;
    write_json(&dir.instructions_file(), &instructions::summarise(&records))?;
    Ok(outcome)
}

/// Counts instructions for the training points of `run_dir` and, when `controls`, for the
/// control points its validations measured. Never while timing: the caller runs it as a stage
/// of its own.
pub fn count_run(
    run_dir: &Path,
    layouts: u32,
    controls: bool,
    progress: &(dyn Fn(usize, usize, &MeasureTask) + Sync),
) -> Result<InstructionsOutcome> {
    let Some(valgrind) = instructions::available() else {
        return Ok(InstructionsOutcome::Skipped(skipped_line()));
    };
    let dir = RunDir::new(run_dir);
    let training = count_into(
        &valgrind,
        &dir,
        &training_tasks(run_dir, layouts)?,
        progress,
    )?;
    let mut control_outcome = instructions::Outcome::default();
    if controls {
        let run = require_run_dir(run_dir)?;
        for setup in recorded_compilers(&run) {
            let work = dir.controls_work_dir(None, &setup.compiler.name);
            let tasks = control_tasks(&work, &setup.compiler.name, layouts)?;
            if tasks.is_empty() {
                continue;
            }
            let o = count_into(&valgrind, &work, &tasks, progress)?;
            control_outcome.reused += o.reused;
            control_outcome.measured += o.measured;
            control_outcome.failures.extend(o.failures);
        }
    }
    Ok(InstructionsOutcome::Counted {
        valgrind: valgrind.version,
        training,
        controls: control_outcome,
    })
}

/// The instruction model of `compiler`: the fit of the same counts on instructions per run,
/// `None` when the run has no instruction counts for it.
pub fn fit_instructions(
    dir: &RunDir,
    compiler: &str,
    estimates: &[Estimate],
    counts: &[ProgramCounts],
    context: &fit::FitContext,
    options: &fit::FitOptions,
) -> Result<Option<BTreeMap<fit::Method, fit::MethodFit>>> {
    let Some(summaries) = read_optional::<Vec<InstructionSummary>>(&dir.instructions_file())?
    else {
        return Ok(None);
    };
    let by_point: BTreeMap<(&str, u64), &InstructionSummary> = summaries
        .iter()
        .filter(|s| s.compiler == compiler && s.instructions_per_run > 0.0)
        .map(|s| ((s.program.as_str(), s.size), s))
        .collect();
    let (time_obs, _) = observations(estimates, counts, compiler);
    let obs: Vec<fit::Observation> = time_obs
        .into_iter()
        .filter_map(|mut o| {
            let s = by_point.get(&(o.program.as_str(), o.size))?;
            o.ns_per_run = s.instructions_per_run;
            o.ns_per_run_layouts = s.layouts.values().copied().collect();
            o.ns_ci = (s.instructions_per_run, s.instructions_per_run);
            // Collections' instructions are inside the count: nothing to separate.
            o.ns_per_minor_collection = None;
            // Waiting and the collector's work run no instructions of the mutator's, and
            // instructions in a call's shadow still run: none of them is an instruction count.
            o.counts.retain(|c, _| {
                !fit::structured::NO_INSTRUCTIONS.contains(&c.as_str())
                    && c != fit::structured::SHADOWED
            });
            // What is known exactly is taken off the count, not fitted.
            for (construct, instructions) in fit::structured::FIXED_INSTRUCTIONS {
                if let Some(count) = o.counts.remove(construct) {
                    let known = count * instructions;
                    o.ns_per_run -= known;
                    o.ns_ci = (o.ns_per_run, o.ns_per_run);
                    for layout in &mut o.ns_per_run_layouts {
                        *layout -= known;
                    }
                }
            }
            Some(o)
        })
        .collect();
    if obs.is_empty() {
        return Ok(None);
    }
    let what = format!("{compiler}'s instructions");
    let mut model = crate::fit_stage::fit_without_failed_methods(&obs, context, options, &what)?;
    // Known whether or not a training program counts them: the controls may.
    for fit in model.methods.values_mut() {
        for (construct, instructions) in fit::structured::FIXED_INSTRUCTIONS {
            fit.time_ns.insert(
                construct.to_string(),
                fit::ConstantEstimate {
                    estimate: instructions,
                    ci_low: instructions,
                    ci_high: instructions,
                    std_error: Some(0.0),
                },
            );
        }
    }
    Ok(Some(model.methods))
}

/// Instructions per run of a run's training points, for reports and comparisons.
pub fn read_summaries(run_dir: &Path) -> Result<Vec<InstructionSummary>> {
    Ok(read_optional(&RunDir::new(run_dir).instructions_file())?.unwrap_or_default())
}
