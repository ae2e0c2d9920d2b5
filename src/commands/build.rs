//! `mlcost build`: compile, verify and count a generated suite.

use super::common::MeasureArgs;
use crate::progress::BarProgress;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct BuildArgs {
    /// The suite directory written by `mlcost gen`.
    pub suite: PathBuf,
    #[command(flatten)]
    pub measure: MeasureArgs,
}

pub fn run(args: BuildArgs) -> Result<ExitCode> {
    let compilers = args.measure.compilers()?;
    // Rebuilding a suite's run (to recount it, say) keeps the layouts it was measured in:
    // fewer would leave its programs short of builds and out of every later stage.
    // (A suite from `mlcost gen` has no run.json.)
    let recorded = pipeline::require_run_dir(&args.suite)
        .ok()
        .map(|run| run.layouts);
    let layouts = args.measure.layouts_or(recorded.unwrap_or(4));
    let outcome = pipeline::build_stage(
        &args.suite,
        &compilers,
        layouts,
        args.measure.timeout,
        &mut BarProgress::new(),
    )?;
    let verified = outcome
        .manifest
        .programs
        .iter()
        .filter(|p| !p.builds.is_empty() && p.builds.iter().all(|b| b.verified()))
        .count();
    outln!(
        "{verified}/{} programs built and verified with {} compiler(s) × {layouts} layouts; counts in {}",
        outcome.manifest.programs.len(),
        compilers.len(),
        rundir::RunDir::new(&args.suite).counts_file().display()
    );
    for failure in &outcome.failures {
        eprintln!("mlcost: {failure}");
    }
    Ok(if outcome.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::ERROR)
    })
}
