//! `mlcost compare`: two runs, or two compilers of one run, construct by construct; exits 1
//! on a significant slowdown above the threshold, for nightly jobs.

use anyhow::{bail, Result};
use clap::Args;
use pipeline::require_run_dir;
use reports::compare::{compare_models, CompareOptions};
use rundir::{read_json, RunDir};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The reference run.
    pub run_a: PathBuf,
    /// The run compared with it (default: the second compiler of RUN_A).
    pub run_b: Option<PathBuf>,
    /// Compiler of RUN_A (default: its first).
    #[arg(long)]
    pub compiler_a: Option<String>,
    /// Compiler of RUN_B, or of RUN_A when comparing two of its compilers (default: the next).
    #[arg(long)]
    pub compiler_b: Option<String>,
    /// Fail (exit 1) on a significant slowdown larger than this many percent.
    #[arg(long, default_value_t = 5.0)]
    pub threshold: f64,
    /// Method whose constants are compared.
    #[arg(long, default_value = "nnls")]
    pub method: fit::Method,
    /// Changes within ±this many percent are run-to-run noise: no verdict of faster or
    /// slower, however narrow the intervals (two runs of one compiler on one machine agree
    /// to within this; see docs/model.md, "Statistics").
    #[arg(long, default_value_t = 3.0)]
    pub noise: f64,
    /// Costs below this many ns in both models are too small to compare.
    #[arg(long, default_value_t = 0.05)]
    pub floor: f64,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
}

fn compilers_of(run_dir: &Path) -> Result<Vec<String>> {
    Ok(require_run_dir(run_dir)?
        .compilers
        .iter()
        .map(|c| c.compiler.name.clone())
        .collect())
}

fn pick(run_dir: &Path, wanted: Option<&str>, index: usize) -> Result<String> {
    let names = compilers_of(run_dir)?;
    match wanted {
        Some(w) if names.iter().any(|n| n == w) => Ok(w.to_string()),
        Some(w) => bail!(
            "{}: no compiler {w:?} (it has {})",
            run_dir.display(),
            names.join(", ")
        ),
        None => names.get(index).cloned().ok_or_else(|| {
            anyhow::anyhow!(
                "{} has only {} compiler(s): name a second run to compare with",
                run_dir.display(),
                names.len()
            )
        }),
    }
}

/// The canary's typical time per run over a run's training measurement, if it has readings.
fn canary_typical(run_dir: &Path) -> Result<Option<f64>> {
    let path = RunDir::new(run_dir).canary_file();
    let timeline = harness::canary::CanaryTimeline::read(&path)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(timeline.map(|t| t.typical_ns_per_run))
}

pub fn run(args: CompareArgs) -> Result<ExitCode> {
    let run_b = args.run_b.clone().unwrap_or_else(|| args.run_a.clone());
    let same_run = args.run_b.is_none();
    let a_name = pick(&args.run_a, args.compiler_a.as_deref(), 0)?;
    let b_name = pick(&run_b, args.compiler_b.as_deref(), usize::from(same_run))?;
    if same_run && a_name == b_name {
        bail!("comparing {a_name} with itself: name two compilers or two runs");
    }
    let a: fit::CostModel = read_json(&RunDir::new(&args.run_a).model_file(&a_name))?;
    let b: fit::CostModel = read_json(&RunDir::new(&run_b).model_file(&b_name))?;
    let label = |dir: &Path, name: &str| {
        if same_run {
            name.to_string()
        } else {
            format!("{} [{name}]", dir.display())
        }
    };
    let mut cmp = compare_models(
        (&label(&args.run_a, &a_name), &a),
        (&label(&run_b, &b_name), &b),
        CompareOptions {
            method: args.method,
            threshold_pct: args.threshold,
            noise_pct: args.noise,
            floor_ns: args.floor,
        },
    );
    if !same_run {
        cmp.machine_ratio = match (canary_typical(&args.run_a)?, canary_typical(&run_b)?) {
            (Some(a), Some(b)) => Some(b / a),
            _ => None,
        };
    }
    if let Some(warning) = cmp.machine_warning() {
        eprintln!("mlcost: warning: {warning}");
    }
    if let Some(warning) = &cmp.counting_warning {
        eprintln!("mlcost: warning: {warning}");
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&cmp)?);
    } else {
        outln!(
            "{:<14} {:>9} {:>9} {:>7} {:>17} {:>8} {:>8} {:>8} {:>8}  Verdict",
            "Construct",
            "A ns",
            "B ns",
            "B/A",
            "95% CI",
            "Change",
            "A instr",
            "B instr",
            "Instr"
        );
        let instructions: std::collections::BTreeMap<&str, _> = cmp
            .instructions
            .iter()
            .map(|i| (i.construct.as_str(), i))
            .collect();
        for c in &cmp.constructs {
            let flag = if c.regression { "  << regression" } else { "" };
            let instr = instructions.get(c.construct.as_str()).map_or(
                format!("{:>8} {:>8} {:>8}", "-", "-", "-"),
                |i| {
                    let mark = if i.changed { "*" } else { " " };
                    format!("{:>8.2} {:>8.2} {:>+6.1}%{mark}", i.a, i.b, i.change_pct)
                },
            );
            outln!(
                "{:<14} {:>9.3} {:>9.3} {:>7.3} {:>8.3} .. {:<6.3} {:>+7.1}% {instr}  {}{flag}",
                c.construct,
                c.a_ns,
                c.b_ns,
                c.ratio,
                c.ratio_ci.0,
                c.ratio_ci.1,
                c.change_pct,
                c.verdict.label()
            );
        }
        outln!("{}", cmp.summary());
        outln!(
            "{}",
            reports::compare_instructions::instructions_summary(&cmp.instructions)
        );
    }
    let page = RunDir::new(&run_b).report_dir().join(format!(
        "compare-{}-vs-{}.html",
        rundir::tag(&b_name),
        rundir::tag(&a_name)
    ));
    std::fs::create_dir_all(page.parent().expect("page has a directory"))?;
    reports::pages::write_compare_page(&cmp, &page)?;
    eprintln!("comparison page: {}", page.display());
    Ok(if cmp.regressions().is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
