//! `mlcost`: learns what each OCaml construct costs on this machine and compiler, by
//! experiment. This binary only wires the workspace's crates together: `ocaml-runtime` builds,
//! `harness` measures, `semantics` counts, `fit` fits, `reports` shows.

mod commands;
mod pipeline;
mod progress;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "mlcost", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure OCaml programs of the benchmark shape (`input : int -> 'a`, `run : 'a -> 'b`)
    /// the Core_bench way: time per run, words per run, R², 95% interval, layout spread.
    Bench(commands::bench::BenchArgs),
    /// Count how often each construct runs in `run (input size)`, with the cost-semantics
    /// interpreter; prints the counts and the result digest.
    Count(commands::count::CountArgs),
    /// Render the training templates (built-in, plus --templates DIR) into a suite directory.
    Gen(commands::gen::GenArgs),
    /// Compile a generated suite with each compiler in each layout, verify every program
    /// (assembly checks, native vs interpreter digests) and count its constructs.
    Build(commands::build::BuildArgs),
    /// Fit per-construct costs (LS, L1, NNLS) to a measured run: writes RUN_DIR/model.json.
    Fit(commands::fit::FitArgs),
    /// Predict control programs with a run's model and compare with their measured times.
    Validate(commands::validate::ValidateArgs),
    /// The whole pipeline: gen → build → measure → count → fit → validate → report.
    Suite(commands::suite::SuiteArgs),
    /// (Re)write RUN_DIR/report/index.html from the run's JSON files.
    Report(commands::report::ReportArgs),
    /// Compare two runs, or two compilers of one run, construct by construct (exit 1 on a
    /// significant slowdown above --threshold).
    Compare(commands::compare::CompareArgs),
    /// Runs on record in the history, a construct's trend, and the trend page.
    History(commands::history::HistoryArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bench(args) => commands::bench::run(args),
        Command::Count(args) => commands::count::run(args),
        Command::Gen(args) => commands::gen::run(args),
        Command::Build(args) => commands::build::run(args),
        Command::Fit(args) => commands::fit::run(args),
        Command::Validate(args) => commands::validate::run(args),
        Command::Suite(args) => commands::suite::run(args),
        Command::Report(args) => commands::report::run(args),
        Command::Compare(args) => commands::compare::run(args),
        Command::History(args) => commands::history::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("mlcost: error: {}", one_message(&err));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line, leaving out a cause whose text the message already
/// contains (many of our errors spell out their cause themselves).
fn one_message(err: &anyhow::Error) -> String {
    let mut message = err.to_string();
    for cause in err.chain().skip(1) {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
    }
    message
}
