//! `mlcost`: learns what each OCaml construct costs on this machine and compiler, by
//! experiment. This binary only wires the workspace's crates together: `ocaml-runtime` builds,
//! `harness` measures, `semantics` counts, `fit` fits, `reports` shows.

mod commands;
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bench(args) => commands::bench::run(args),
        Command::Count(args) => commands::count::run(args),
        Command::Gen(args) => commands::gen::run(args),
        Command::Build(args) => commands::build::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            // Our errors already spell out their causes; `{:#}` would print them twice.
            eprintln!("mlcost: error: {err}");
            ExitCode::FAILURE
        }
    }
}
