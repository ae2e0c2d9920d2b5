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

/// Records a run directory in the history at `db`.
pub fn record(db: &std::path::Path, run_dir: &std::path::Path) -> Result<i64> {
    let data = reports::data::RunData::load(run_dir)?;
    let mut history = History::open(db)?;
    Ok(history.record(&reports::pages::history_record(&data))?)
}

pub fn run(args: HistoryArgs) -> Result<ExitCode> {
    if let Some(dir) = &args.record {
        record(&args.db, dir)?;
    }
    let history = History::open(&args.db)?;
    let page = args.db.with_file_name("trend.html");
    reports::pages::write_trend_page(&history, args.method.name(), &page)?;
    match &args.construct {
        Some(construct) => {
            let points = history.trend(construct, args.method.name())?;
            if args.json {
                println!("{}", serde_json::to_string_pretty(&points)?);
            } else {
                println!("{construct} ({}), ns:", args.method.name().to_uppercase());
                for p in &points {
                    println!(
                        "  run {:>3}  {:<12} {:>9.3}  [{:.3} .. {:.3}]  {}",
                        p.run_id, p.compiler, p.estimate, p.ci_low, p.ci_high, p.run_dir
                    );
                }
            }
        }
        None => {
            let runs = history.runs()?;
            if args.json {
                println!("{}", serde_json::to_string_pretty(&runs)?);
            } else {
                for r in &runs {
                    println!(
                        "run {:>3}  {}  {}  ({} constants)",
                        r.id,
                        r.compilers.join(","),
                        r.run_dir,
                        r.constants
                    );
                }
                println!("{} runs on record in {}", runs.len(), args.db.display());
            }
        }
    }
    eprintln!("trend page: {}", page.display());
    Ok(ExitCode::SUCCESS)
}
