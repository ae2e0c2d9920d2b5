//! `mlcost rescore`: a measured run, counted again by this mlcost and refitted, without
//! measuring — what a user does after upgrading mlcost, so that old runs and new ones are
//! explained by the same cost semantics and `compare` between them compares compilers, not
//! counting rules.

use super::fit::print_fit;
use super::validate::print_validation;
use crate::progress::BarProgress;
use anyhow::Result;
use clap::Args;
use pipeline::{recount_stage, require_run_dir, validate_run, RunDir, ValidateRequest};
use std::path::PathBuf;
use std::process::ExitCode;
use training_gen::RecountOutcome;

#[derive(Args, Debug)]
pub struct RescoreArgs {
    /// A run directory of `mlcost suite`.
    pub run_dir: PathBuf,
    /// History database the run's record is replaced in.
    #[arg(long, default_value = super::history::DEFAULT_DB)]
    pub history: PathBuf,
    /// Leave the history alone.
    #[arg(long)]
    pub no_history: bool,
}

/// What the recount changed, in a few lines: how many points, which constructs appeared or
/// went, and the constructs whose totals moved most.
fn print_recount(outcome: &RecountOutcome, run: &RunDir) {
    let from = outcome
        .previous_fingerprint
        .as_deref()
        .unwrap_or("not recorded");
    outln!(
        "recounted {} training points: {} changed (catalogue {from} → {})",
        outcome.points,
        outcome.changed,
        outcome.fingerprint
    );
    if !outcome.constructs_added.is_empty() {
        outln!("  counted now: {}", outcome.constructs_added.join(", "));
    }
    if !outcome.constructs_removed.is_empty() {
        outln!(
            "  no longer counted: {}",
            outcome.constructs_removed.join(", ")
        );
    }
    let mut moved: Vec<_> = outcome.moved.iter().collect();
    let change = |before: u64, after: u64| (after as f64 - before as f64) / before.max(1) as f64;
    moved.sort_by(|a, b| {
        change(b.before, b.after)
            .abs()
            .total_cmp(&change(a.before, a.after).abs())
    });
    for m in moved.iter().take(8) {
        outln!(
            "  {:<24} {:>14} → {:<14} ({:+.1}%)",
            m.construct,
            m.before,
            m.after,
            100.0 * change(m.before, m.after)
        );
    }
    for f in &outcome.failures {
        eprintln!("mlcost: not recounted, left out of the fit: {f}");
    }
    outln!(
        "the counts replaced: {}",
        run.previous_counts_file().display()
    );
}

pub fn run(args: RescoreArgs) -> Result<ExitCode> {
    require_run_dir(&args.run_dir)?;
    let run = RunDir::new(&args.run_dir);
    // The corpus the suite validated on (suite.json), else the built-in one.
    let controls = rundir::read_optional::<pipeline::SuiteSettings>(&run.suite_file())?
        .and_then(|s| s.controls);
    let mut progress = BarProgress::new();

    let recount = recount_stage(&args.run_dir, &mut progress)?;
    print_recount(&recount, &run);

    for outcome in pipeline::fit_run(&args.run_dir, &pipeline::fit_stage::options(None, 1000))? {
        print_fit(&outcome);
    }
    // The suite's own controls, scored from the estimates the suite took beside its training
    // programs: counted again by validation itself, never timed again.
    let validations = validate_run(
        &ValidateRequest {
            run_dir: &args.run_dir,
            controls: controls.as_deref(),
            main: true,
            only: Vec::new(),
            resume: false,
            remeasure: false,
            max_sizes: None,
        },
        &mut progress,
    )?;
    for (name, v) in &validations {
        print_validation(name, v);
    }
    if run.instructions_file().is_file() {
        super::instructions::validate_and_print(&args.run_dir, controls.as_deref())?;
    }

    if !args.no_history {
        pipeline::record_history(&args.history, &args.run_dir)?;
        eprintln!("recorded in {}", args.history.display());
    }
    let report = reports::html::write_report(&args.run_dir)?;
    outln!("\nreport: {}", report.display());
    Ok(ExitCode::SUCCESS)
}
