//! `mlcost validate`: a fitted run's model against control programs (built-in or your own).

use crate::progress::BarProgress;
use anyhow::Result;
use clap::Args;
use pipeline::{validate_run, ValidateRequest};
use std::path::PathBuf;
use std::process::ExitCode;
use validation::Validation;

#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// A run directory with a fitted model (`mlcost suite`, or `mlcost fit`).
    pub run_dir: PathBuf,
    /// Directory of control programs (default: the corpus the suite used, else the one built
    /// into mlcost).
    #[arg(long)]
    pub controls: Option<PathBuf>,
    /// Only these control programs (repeatable).
    #[arg(long = "only", value_name = "NAME")]
    pub only: Vec<String>,
    /// Reuse measurements an interrupted validation left. (A suite's own controls, which the
    /// suite timed with its training programs, are scored again without measuring anyway.)
    #[arg(long)]
    pub resume: bool,
    /// Time a suite's own controls again, alone, at every size they declare, instead of
    /// scoring the estimates the suite took beside its training programs (those are kept, as
    /// controls/<compiler>/estimates-joint.json).
    #[arg(long)]
    pub remeasure: bool,
}

pub fn print_validation(name: &str, v: &Validation) {
    out!("{}", reports::terminal::validation_summary(name, v));
    for s in &v.skipped {
        eprintln!("mlcost: skipped control {}: {}", s.program, s.reason);
    }
}

pub fn run(args: ValidateArgs) -> Result<ExitCode> {
    let mut progress = BarProgress::new();
    // Without --controls, a suite's run is validated on the corpus the suite used.
    let suite_controls = if args.controls.is_none() {
        let run = pipeline::RunDir::new(&args.run_dir);
        run.suite_file()
            .is_file()
            .then(|| pipeline::SuiteSettings::load(&run))
            .transpose()?
            .and_then(|s| s.controls)
    } else {
        None
    };
    let results = validate_run(
        &ValidateRequest {
            run_dir: &args.run_dir,
            controls: args.controls.as_deref().or(suite_controls.as_deref()),
            main: args.controls.is_none(),
            only: args.only.clone(),
            resume: args.resume,
            remeasure: args.remeasure,
            max_sizes: None,
        },
        &mut progress,
    )?;
    for (name, v) in &results {
        print_validation(name, v);
    }
    Ok(ExitCode::SUCCESS)
}
