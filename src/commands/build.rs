//! `mlcost build`: compile, verify and count a generated suite.

use super::common::MeasureArgs;
use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ocaml_runtime::CompilerSetup;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;
use training_gen::{build_suite, BuildEvent, BuildOptions, Manifest};

#[derive(Args, Debug)]
pub struct BuildArgs {
    /// The suite directory written by `mlcost gen`.
    pub suite: PathBuf,
    #[command(flatten)]
    pub measure: MeasureArgs,
}

/// Builds and verifies a suite with a progress bar; failures are in the outcome.
pub fn run_build(
    suite: &Path,
    compilers: &[CompilerSetup],
    layouts: u32,
    timeout: Duration,
) -> Result<training_gen::BuildOutcome> {
    let manifest = Manifest::load(suite)?;
    let total = training_gen::suite::build_steps(&manifest, compilers.len(), layouts);
    let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{prefix:>8} [{bar:30}] {pos}/{len} {wide_msg} ({elapsed})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_prefix("build");
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let on_event = |event: BuildEvent| {
        bar.inc(1);
        match event {
            BuildEvent::Counted { program } => bar.set_message(format!("counted {program}")),
            BuildEvent::Built {
                program,
                compiler,
                layout,
            } => bar.set_message(format!("{program} [{compiler}] layout {layout}")),
        }
    };
    let outcome = build_suite(
        &BuildOptions {
            suite,
            compilers,
            layouts,
            timeout,
        },
        &on_event,
    );
    bar.finish_and_clear();
    Ok(outcome?)
}

pub fn run(args: BuildArgs) -> Result<ExitCode> {
    let compilers = args.measure.compilers()?;
    let outcome = run_build(
        &args.suite,
        &compilers,
        args.measure.layouts_or(4),
        args.measure.timeout,
    )?;
    let verified = outcome
        .manifest
        .programs
        .iter()
        .filter(|p| !p.builds.is_empty() && p.builds.iter().all(|b| b.verified()))
        .count();
    println!(
        "{verified}/{} programs built and verified with {} compiler(s) × {} layouts; counts in {}",
        outcome.manifest.programs.len(),
        compilers.len(),
        args.measure.layouts_or(4),
        args.suite.join(training_gen::suite::COUNTS_FILE).display()
    );
    for failure in &outcome.failures {
        eprintln!("mlcost: {failure}");
    }
    Ok(if outcome.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
