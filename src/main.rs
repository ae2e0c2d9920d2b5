//! `mlcost`: learns what each OCaml construct costs on this machine and compiler, by
//! experiment. This binary parses arguments and prints: `pipeline` runs the stages over a run
//! directory (`rundir`), `ocaml-runtime` builds, `harness` measures, `semantics` counts, `fit`
//! fits, `reports` shows. The design is in `docs/design.md`.

/// `print!` for a command's output: a reader that goes away (`mlcost count … | head -1`) ends
/// the command quietly, as it ends any Unix filter, instead of `print!`'s panic; measurements
/// are on disk as they are taken, so nothing is lost.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!($($arg)*))
    };
}

/// `println!` for a command's output (see [`out!`]).
macro_rules! outln {
    () => {
        $crate::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

mod commands;
mod progress;

/// What `mlcost compare` reads of a run, by these names, until it moves onto the pipeline
/// crate like the other commands.
use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// What a nightly job needs to know, under every `--help`.
const AFTER_HELP: &str = "\
Exit status: 0 = fine; 1 = a significant regression found (compare); 2 = an error (including a
program that does not build or verify).
Design (pipeline, run directory, measuring protocol, model, statistics): docs/design.md and the files it lists.";

/// Exit status of an error; 1 is reserved for a regression, which a nightly job acts on
/// differently from a broken run.
pub(crate) const ERROR: u8 = 2;

#[derive(Parser)]
#[command(name = "mlcost", version, about, long_about = None, after_help = AFTER_HELP)]
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
    /// Count a measured run's training programs again with this mlcost, then refit,
    /// revalidate and rewrite its report, without measuring (after an mlcost upgrade).
    Rescore(commands::rescore::RescoreArgs),
    /// Predict control programs with a run's model and compare with their measured times.
    Validate(commands::validate::ValidateArgs),
    /// The whole pipeline: gen → build → measure → count → fit → validate → report.
    Suite(commands::suite::SuiteArgs),
    /// (Re)write RUN_DIR/report/index.html from the run's JSON files.
    Report(commands::report::ReportArgs),
    /// Compare two runs, or two compilers of one run, construct by construct (exit 1 on a
    /// significant slowdown above --threshold, 2 on an error).
    Compare(commands::compare::CompareArgs),
    /// Count instructions per run under valgrind for a run's training and control points: a
    /// deterministic metric beside time (fitted by the next `mlcost fit`).
    Instructions(commands::instructions::InstructionsArgs),
    /// Where the instruction model misses a program: its instructions per function under
    /// callgrind beside the prediction from the interpreter's counts in each function.
    Explain(commands::explain::ExplainArgs),
    /// Runs on record in the history, a construct's trend, and the trend page.
    History(commands::history::HistoryArgs),
}

/// The allocator the interpreter counts fastest with (see [`semantics::allocator`]).
#[global_allocator]
static ALLOCATOR: semantics::allocator::Allocator = semantics::allocator::Allocator;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bench(args) => commands::bench::run(args),
        Command::Count(args) => commands::count::run(args),
        Command::Gen(args) => commands::gen::run(args),
        Command::Build(args) => commands::build::run(args),
        Command::Fit(args) => commands::fit::run(args),
        Command::Validate(args) => commands::validate::run(args),
        Command::Rescore(args) => commands::rescore::run(args),
        Command::Suite(args) => commands::suite::run(args),
        Command::Report(args) => commands::report::run(args),
        Command::Compare(args) => commands::compare::run(args),
        Command::History(args) => commands::history::run(args),
        Command::Instructions(args) => commands::instructions::run(args),
        Command::Explain(args) => commands::explain::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("mlcost: error: {}", one_message(&err));
            ExitCode::from(ERROR)
        }
    }
}

/// Writes a command's output; see [`out!`]. Any other failure to write (a full disk behind a
/// redirection) is an error with its cause, not a panic.
pub(crate) fn write_stdout(args: std::fmt::Arguments) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(err) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("mlcost: error: writing the output: {err}");
        std::process::exit(i32::from(ERROR));
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
