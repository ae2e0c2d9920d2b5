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
    /// Also build the program with ocamlopt, run it at this size and check that its result
    /// digest is the interpreter's: that the counted program is the one a benchmark times.
    #[arg(long)]
    pub native: bool,
    /// Count branch misses as a predictor that keeps this many coin tosses would (a run's
    /// `branch-memory.json` says what its machine keeps; default: the model's own, 10 950).
    #[arg(long, value_name = "TOSSES")]
    pub predictor_tosses: Option<f64>,
}

pub fn run(args: CountArgs) -> Result<ExitCode> {
    if let Some(tosses) = args.predictor_tosses {
        if !(tosses.is_finite() && tosses > 0.0) {
            anyhow::bail!("--predictor-tosses needs a positive number of tosses, not {tosses}");
        }
        semantics::branch_memory::set_kept_tosses(tosses);
    }
    let program = semantics::Program::load(&args.program)?;
    let result = program.count(args.size)?;
    if args.native {
        let size = u64::try_from(args.size)
            .map_err(|_| anyhow::anyhow!("--native needs a size of at least 0"))?;
        let native = ocaml_runtime::native_digests(&args.program, &[size])
            .map_err(|e| anyhow::anyhow!("{}: {e}", args.program.display()))?;
        if native.first() != Some(&result.digest) {
            eprintln!(
                "mlcost: {} at size {}: the native result digest {} is not the interpreter's {}",
                args.program.display(),
                args.size,
                native.first().map_or("(none)", String::as_str),
                result.digest
            );
            return Ok(ExitCode::from(1));
        }
        eprintln!("native result digest agrees: {}", result.digest);
    }
    if args.json {
        outln!("{}", serde_json::to_string(&result)?);
        return Ok(ExitCode::SUCCESS);
    }
    out!("{}", reports::terminal::counts_table(&result));
    Ok(ExitCode::SUCCESS)
}
