//! `mlcost fit`: the cost model of a measured run, without measuring again.

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct FitArgs {
    /// A run directory of `mlcost suite` (estimates.json, counts.json, manifest.json).
    pub run_dir: PathBuf,
    /// Fit only this method (ls, l1, nnls); default: all, side by side.
    #[arg(long)]
    pub method: Option<fit::Method>,
    /// Bootstrap resamples per interval.
    #[arg(long, default_value_t = 1000)]
    pub resamples: usize,
    /// One free constant per construct (the paper's model), even where instructions were
    /// counted; by default ordinary constructs are priced by their instructions
    /// (docs/model.md, "The model").
    #[arg(long)]
    pub free: bool,
}

/// Prints one compiler's fit, and on stderr the training points it had to leave out.
pub fn print_fit(outcome: &pipeline::FitOutcome) {
    if !outcome.left_out.is_empty() {
        eprintln!(
            "mlcost: {}: {} training points left out of the fit, their time per run is not positive (raise --quota): {}",
            outcome.compiler,
            outcome.left_out.len(),
            outcome.left_out.join(", ")
        );
    }
    out!(
        "{}",
        reports::terminal::model_summary(&outcome.compiler, &outcome.model)
    );
}

pub fn run(args: FitArgs) -> Result<ExitCode> {
    let mut options = pipeline::fit_stage::options(args.method, args.resamples);
    options.structured = !args.free;
    for outcome in pipeline::fit_run(&args.run_dir, &options)? {
        print_fit(&outcome);
    }
    outln!(
        "model: {}",
        rundir::RunDir::new(&args.run_dir)
            .main_model_file()
            .display()
    );
    Ok(ExitCode::SUCCESS)
}
