//! `mlcost bench`: measure programs at given sizes and print the table (or JSON).

use super::common::{benchmark_name, default_out_dir, MeasureArgs};
use crate::progress::BarProgress;
use anyhow::{bail, Result};
use clap::Args;
use harness::{run_bench, BenchPlan, BenchProgram};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// OCaml programs defining `input : int -> 'a` and `run : 'a -> 'b`.
    #[arg(required = true, value_name = "PROGRAM.ml")]
    pub programs: Vec<PathBuf>,
    /// Input size (repeatable).
    #[arg(long = "size", default_values_t = [1000u64])]
    pub sizes: Vec<u64>,
    /// Print the estimates as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Where samples.jsonl, estimates.json and the builds go (default: mlcost-out/bench-<time>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub measure: MeasureArgs,
}

pub fn run(args: BenchArgs) -> Result<ExitCode> {
    let mut programs = Vec::new();
    for path in &args.programs {
        if !path.is_file() {
            bail!("{}: no such file", path.display());
        }
        let name = benchmark_name(path)?;
        if programs.iter().any(|p: &BenchProgram| p.name == name) {
            bail!("two programs are named {name}: rename one");
        }
        programs.push(BenchProgram {
            name,
            path: path.clone(),
            sizes: args.sizes.clone(),
        });
    }
    let plan = BenchPlan {
        programs,
        compilers: args.measure.compilers()?,
        layouts: args.measure.layouts_or(4),
        sampling: args
            .measure
            .sampling(std::time::Duration::from_secs(1), 8)?,
        cpu: args
            .measure
            .cpu
            .or_else(ocaml_runtime::process::default_cpu),
        out_dir: args.out.clone().unwrap_or_else(|| default_out_dir("bench")),
        canary_reference: None,
    };
    let mut progress = BarProgress::new();
    let outcome = run_bench(&plan, &mut progress);
    progress.finish();
    let outcome = outcome?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&outcome.estimates)?);
    } else {
        out!("{}", reports::terminal::table(&outcome.estimates));
    }
    let machine = outcome
        .canary
        .as_ref()
        .map(|c| harness::canary::MachineCondition::of(c, &outcome.estimates));
    if let Some(line) = reports::terminal::machine_summary(machine.as_ref()) {
        eprintln!("{line}");
    }
    eprintln!("samples:   {}", outcome.samples_path.display());
    eprintln!("estimates: {}", outcome.estimates_path.display());
    Ok(ExitCode::SUCCESS)
}
