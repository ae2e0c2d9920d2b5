//! `mlcost report`: the HTML report of a run, from its JSON files alone.

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// A run directory of `mlcost suite`.
    pub run_dir: PathBuf,
}

pub fn run(args: ReportArgs) -> Result<ExitCode> {
    let path = reports::html::write_report(&args.run_dir)?;
    outln!("report: {}", path.display());
    Ok(ExitCode::SUCCESS)
}
