//! `mlcost build`: compile, verify and count a generated suite.

use super::common::MeasureArgs;
use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use training_gen::{build_suite, BuildEvent, BuildOptions, Manifest};

#[derive(Args, Debug)]
pub struct BuildArgs {
    /// The suite directory written by `mlcost gen`.
    pub suite: PathBuf,
    #[command(flatten)]
    pub measure: MeasureArgs,
}

pub fn run(args: BuildArgs) -> Result<ExitCode> {
    let compilers = args.measure.compilers()?;
    let manifest = Manifest::load(&args.suite)?;
    let total = training_gen::suite::build_steps(&manifest, compilers.len(), args.measure.layouts);
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
            suite: &args.suite,
            compilers: &compilers,
            layouts: args.measure.layouts,
            timeout: args.measure.timeout,
        },
        &on_event,
    );
    bar.finish_and_clear();
    let outcome = outcome?;
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
        args.measure.layouts,
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
