//! `mlcost history`: the runs on record, a construct's trend, and the trend page.

use anyhow::Result;
use clap::Args;
use history::History;
use std::path::PathBuf;
use std::process::ExitCode;

/// Where runs are recorded unless told otherwise.
pub const DEFAULT_DB: &str = "mlcost-out/history.sqlite";

#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// Show this construct's cost in every run, per compiler.
    #[arg(long)]
    pub construct: Option<String>,
    /// Method of the constants shown.
    #[arg(long, default_value = "nnls")]
    pub method: fit::Method,
    /// The history database.
    #[arg(long, default_value = DEFAULT_DB)]
    pub db: PathBuf,
    /// Record this run directory (done by `mlcost suite` itself) before showing.
    #[arg(long, value_name = "RUN_DIR")]
    pub record: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: HistoryArgs) -> Result<ExitCode> {
    if let Some(dir) = &args.record {
        pipeline::record_history(&args.db, dir)?;
    }
    let history = History::open(&args.db)?;
    let page = args.db.with_file_name("trend.html");
    reports::pages::write_trend_page(&history, args.method.name(), &page)?;
    match &args.construct {
        Some(construct) => {
            let points = history.trend(construct, args.method.name())?;
            if args.json {
                outln!("{}", serde_json::to_string_pretty(&points)?);
            } else {
                out!(
                    "{}",
                    reports::terminal::history_trend(construct, args.method.name(), &points)
                );
            }
        }
        None => {
            let runs = history.runs()?;
            if args.json {
                outln!("{}", serde_json::to_string_pretty(&runs)?);
            } else {
                out!("{}", reports::terminal::history_runs(&runs, &args.db));
            }
        }
    }
    eprintln!("trend page: {}", page.display());
    Ok(ExitCode::SUCCESS)
}
