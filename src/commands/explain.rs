//! `mlcost explain RUN_DIR PROGRAM`: one point of a training program or a control, function by
//! function — instructions per run measured under callgrind beside the instruction model's
//! prediction from the interpreter's counts in that function.

use anyhow::Result;
use clap::Args;
use pipeline::explain::{explain, ExplainRequest, Explanation};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// A run directory whose instructions were counted (`mlcost suite`, or `mlcost
    /// instructions` then `mlcost fit`).
    pub run_dir: PathBuf,
    /// A training program (`fapp_2`) or a built-in control (`fold_left`) of the run.
    pub program: String,
    /// The size to run (default: the smallest the run measured).
    #[arg(long)]
    pub size: Option<u64>,
    /// The compiler, by its name in the run (default: the first).
    #[arg(long)]
    pub compiler: Option<String>,
    /// Whose instruction constants price the counts.
    #[arg(long, default_value = "nnls")]
    pub method: fit::Method,
    /// Constructs shown per function.
    #[arg(long, default_value_t = 3)]
    pub constructs: usize,
    /// Print the explanation as JSON.
    #[arg(long)]
    pub json: bool,
}

fn figure(v: f64) -> String {
    format!("{v:.1}")
}

/// The table: one row per function, the largest miss first.
pub fn table(e: &Explanation, constructs: usize) -> String {
    let header: Vec<String> = ["Function", "Measured", "Predicted", "Miss", "Counted there"]
        .map(String::from)
        .to_vec();
    let mut rows: Vec<Vec<String>> = e
        .rows
        .iter()
        .map(|r| {
            let what: Vec<String> = r
                .constructs
                .iter()
                .take(constructs)
                .map(|(c, n)| format!("{c} {n:.1}"))
                .collect();
            vec![
                r.function.clone(),
                figure(r.measured),
                figure(r.predicted),
                format!("{:+.1}", r.predicted - r.measured),
                what.join(", "),
            ]
        })
        .collect();
    let (measured, predicted) = (e.measured(), e.predicted());
    rows.push(vec![
        "total".into(),
        figure(measured),
        figure(predicted),
        format!(
            "{:+.1}%",
            100.0 * (predicted - measured) / measured.max(1e-9)
        ),
        String::new(),
    ]);
    format!(
        "{} at {} ({}), instructions per run ({} constants; the collector's left out):\n{}",
        e.program,
        e.size,
        e.compiler,
        e.method,
        reports::terminal::render(&header, &rows)
    )
}

pub fn run(args: ExplainArgs) -> Result<ExitCode> {
    let e = explain(&ExplainRequest {
        run_dir: &args.run_dir,
        program: &args.program,
        size: args.size,
        compiler: args.compiler.as_deref(),
        method: args.method,
    })?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&e)?);
    } else {
        out!("{}", table(&e, args.constructs));
    }
    Ok(ExitCode::SUCCESS)
}
