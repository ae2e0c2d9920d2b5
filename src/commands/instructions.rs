//! `mlcost instructions`: count (or finish counting) a run's instructions per run under
//! valgrind, for the training points and the control points its validation measured. The
//! next `mlcost fit` fits them beside time.

use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pipeline::instructions_stage::{count_run, InstructionsOutcome, DEFAULT_LAYOUTS};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct InstructionsArgs {
    /// A run directory of `mlcost suite`.
    pub run_dir: PathBuf,
    /// Layouts counted per point (instructions barely depend on layout).
    #[arg(long, default_value_t = DEFAULT_LAYOUTS)]
    pub layouts: u32,
}

/// Counts the run's instructions, showing a bar on a terminal; prints what was counted, or the
/// one line saying why nothing was. Returns whether instructions were counted.
pub fn count_and_print(run_dir: &Path, layouts: u32, controls: bool) -> Result<bool> {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("instructions [{bar:30}] {pos}/{len} {wide_msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let outcome = count_run(run_dir, layouts, controls, &|done, total, task| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        bar.set_message(format!("{} layout {}", task.program, task.layout));
    });
    bar.finish_and_clear();
    match outcome? {
        InstructionsOutcome::Skipped(line) => {
            eprintln!("mlcost: {line}");
            Ok(false)
        }
        InstructionsOutcome::Counted {
            valgrind,
            training,
            controls,
        } => {
            for f in training.failures.iter().chain(&controls.failures) {
                eprintln!("mlcost: instructions not counted: {f}");
            }
            eprintln!(
                "instructions ({valgrind}): {} training points counted, {} already there; {} control points counted, {} already there",
                training.measured, training.reused, controls.measured, controls.reused
            );
            Ok(true)
        }
    }
}

/// Scores each compiler's instruction model on the controls whose instructions were counted,
/// and prints the mean error per method and the controls it misses.
pub fn validate_and_print(run_dir: &Path, controls: Option<&Path>) -> Result<()> {
    use pipeline::instructions_validation::{validate_instructions, MISCOUNT_PCT};
    for v in validate_instructions(run_dir, controls)? {
        let errors: Vec<String> = v
            .mean_error_pct
            .iter()
            .map(|(m, e)| format!("{} {e:.2}%", m.name().to_uppercase()))
            .collect();
        let collecting: Vec<String> = v
            .mean_error_pct_collecting
            .iter()
            .map(|(m, e)| format!("{} {e:.2}%", m.name().to_uppercase()))
            .collect();
        outln!(
            "{}: instruction model on {} control points: mean error without collections {}; with collections (promotion and major GC unmodelled) {}",
            v.compiler,
            v.points.len(),
            errors.join(", "),
            collecting.join(", ")
        );
        if !v.miscounted.is_empty() {
            outln!(
                "{}: missed by more than {MISCOUNT_PCT}% (miscounted or unmodelled construct): {}",
                v.compiler,
                v.miscounted.join(", ")
            );
        }
        for m in &v.located {
            let what: Vec<String> =
                m.at.constructs
                    .iter()
                    .take(3)
                    .map(|(c, n)| format!("{c} {n:.1}"))
                    .collect();
            outln!(
                "  {} at {} ({:+.1}%): in {}, {:.1} instructions per run measured, {:.1} predicted ({})",
                m.program,
                m.size,
                m.error_pct,
                m.at.function,
                m.at.measured,
                m.at.predicted,
                what.join(", ")
            );
        }
        if !v.located.is_empty() {
            outln!("  (`mlcost explain RUN_DIR PROGRAM` shows every function of one)");
        }
    }
    Ok(())
}

pub fn run(args: InstructionsArgs) -> Result<ExitCode> {
    if count_and_print(&args.run_dir, args.layouts, true)? {
        // The suite's own controls: the corpus it was run with (suite.json), else the built-in.
        let run = pipeline::RunDir::new(&args.run_dir);
        let controls = rundir::read_optional::<pipeline::SuiteSettings>(&run.suite_file())?
            .and_then(|s| s.controls);
        validate_and_print(&args.run_dir, controls.as_deref())?;
    }
    outln!(
        "instructions: {} (fit them with `mlcost fit {}`)",
        rundir::RunDir::new(&args.run_dir)
            .instructions_file()
            .display(),
        args.run_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
