//! `mlcost count`: the interpreter's construct counts for one program and size.

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct CountArgs {
    /// An OCaml program of the benchmark shape.
    #[arg(value_name = "PROGRAM.ml")]
    pub program: PathBuf,
    /// Input size.
    #[arg(long, default_value_t = 1000)]
    pub size: i64,
    /// Print `{"size":…,"counts":{…},"digest":…}` instead of the table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: CountArgs) -> Result<ExitCode> {
    let program = semantics::Program::load(&args.program)?;
    let result = program.count(args.size)?;
    if args.json {
        println!("{}", serde_json::to_string(&result)?);
        return Ok(ExitCode::SUCCESS);
    }
    print!("{}", reports::terminal::counts_table(&result));
    Ok(ExitCode::SUCCESS)
}
