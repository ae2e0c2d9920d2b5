//! `mlcost fit`: the cost model of a measured run, without measuring again.

use crate::pipeline::{self, model_file, observations, read_json, require_run_dir, write_json};
use anyhow::{bail, Context, Result};
use clap::Args;
use harness::Estimate;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use training_gen::{Manifest, ProgramCounts};

#[derive(Args, Debug)]
pub struct FitArgs {
    /// A run directory of `mlcost suite` (estimates.json, counts.json, manifest.json).
    pub run_dir: PathBuf,
    /// Fit only this method (ls, l1, nnls); default: all, side by side.
    #[arg(long)]
    pub method: Option<fit::Method>,
    /// Bootstrap resamples per interval.
    #[arg(long, default_value_t = 1000)]
    pub resamples: usize,
}

/// Fits every compiler of the run; writes `model-<compiler>.json` and `model.json` (the first).
pub fn fit_run(run_dir: &Path, options: &fit::FitOptions) -> Result<Vec<(String, fit::CostModel)>> {
    let run = require_run_dir(run_dir)?;
    let estimates: Vec<Estimate> = read_json(&run_dir.join(pipeline::ESTIMATES_FILE))?;
    let counts: Vec<ProgramCounts> = read_json(&run_dir.join(training_gen::suite::COUNTS_FILE))?;
    let manifest = Manifest::load(run_dir)?;
    let mut models = Vec::new();
    for setup in pipeline::recorded_compilers(&run) {
        let name = &setup.compiler.name;
        let (obs, left_out) = observations(&estimates, &counts, name);
        if !left_out.is_empty() {
            eprintln!(
                "mlcost: {name}: {} training points left out of the fit, their time per run is not positive (raise --quota): {}",
                left_out.len(),
                left_out.join(", ")
            );
        }
        if obs.is_empty() {
            bail!(
                "{}: no measured and counted training point for {name}",
                run_dir.display()
            );
        }
        let binary = manifest
            .programs
            .iter()
            .flat_map(|p| &p.builds)
            .find(|b| &b.compiler == name && b.verified())
            .and_then(|b| b.binary.clone())
            .with_context(|| format!("{}: no verified build for {name}", run_dir.display()))?;
        let heap = pipeline::minor_heap_words(&run_dir.join(binary))?;
        let model = fit::fit(&obs, &pipeline::fit_context(&run, &setup, heap), options)
            .with_context(|| format!("fitting {name}"))?;
        write_json(&run_dir.join(model_file(name)), &model)?;
        if models.is_empty() {
            write_json(&run_dir.join(pipeline::MODEL_FILE), &model)?;
        }
        models.push((name.clone(), model));
    }
    Ok(models)
}

pub fn options(method: Option<fit::Method>, resamples: usize) -> fit::FitOptions {
    let mut options = fit::FitOptions {
        bootstrap_resamples: resamples,
        ..fit::FitOptions::default()
    };
    if let Some(m) = method {
        options.methods = [m].into();
    }
    options
}

pub fn print_model(name: &str, model: &fit::CostModel) {
    println!("\nCost model for {name} (ns per occurrence, bytes per occurrence):");
    print!("{}", reports::terminal::cost_table(model));
    let d = &model.diagnostics;
    println!(
        "rank {}/{} constructs, condition number {:.1}, {} points from {} programs",
        d.rank, d.constructs, d.condition_number, d.points, d.programs
    );
    if let Some(t) = model.gc.ns_per_minor_collection {
        println!(
            "GC: minor heap {} bytes, {:.0} ns per minor collection (95% CI {:.0} .. {:.0})",
            model.gc.minor_heap_bytes, t.estimate, t.ci_low, t.ci_high
        );
    }
}

pub fn run(args: FitArgs) -> Result<ExitCode> {
    for (name, model) in fit_run(&args.run_dir, &options(args.method, args.resamples))? {
        print_model(&name, &model);
    }
    println!(
        "model: {}",
        args.run_dir.join(pipeline::MODEL_FILE).display()
    );
    Ok(ExitCode::SUCCESS)
}
