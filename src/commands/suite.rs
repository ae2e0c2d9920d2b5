//! `mlcost suite`: the main job. gen → build → measure → count → fit → validate → report, in
//! one run directory; `--resume RUN_DIR` continues an interrupted run from its saved samples.

use super::common::{default_out_dir, MeasureArgs};
use super::fit::print_fit;
use super::validate::print_validation;
use crate::progress::BarProgress;
use anyhow::{bail, Result};
use clap::Args;
use harness::{measure_built, BenchPlan, Progress};
use pipeline::{
    binaries_for, prepare_suite, recorded_compilers, recorded_sampling, require_run_dir, RunDir,
    SuiteSettings,
};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct SuiteArgs {
    /// Few sizes and short quotas: the whole pipeline as a demo in minutes.
    #[arg(long)]
    pub quick: bool,
    /// Continue an interrupted run; its own settings are used.
    #[arg(long, value_name = "RUN_DIR", conflicts_with = "out")]
    pub resume: Option<PathBuf>,
    /// The run directory (default: mlcost-out/run-<time>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Your own templates, rendered beside the built-in ones.
    #[arg(long)]
    pub templates: Option<PathBuf>,
    /// Only the templates of --templates, not the built-in ones.
    #[arg(long, requires = "templates")]
    pub no_builtin: bool,
    /// Your own control programs instead of the built-in corpus.
    #[arg(long)]
    pub controls: Option<PathBuf>,
    /// History database the run is recorded in.
    #[arg(long, default_value = super::history::DEFAULT_DB)]
    pub history: PathBuf,
    /// Do not count instructions per run under valgrind. They are counted by default, after
    /// timing, when valgrind is installed (about +2.5 minutes on the default suite; see
    /// docs/instructions.md).
    #[arg(long, conflicts_with = "instructions")]
    pub no_instructions: bool,
    /// Count instructions per run (the default; kept so that older scripts still run).
    #[arg(long, hide = true)]
    pub instructions: bool,
    #[command(flatten)]
    pub measure: MeasureArgs,
}

pub fn run(args: SuiteArgs) -> Result<ExitCode> {
    let resume = args.resume.is_some();
    let run_dir = match (&args.resume, &args.out) {
        (Some(dir), _) => dir.clone(),
        (None, Some(dir)) => dir.clone(),
        (None, None) => default_out_dir("run"),
    };
    let run = RunDir::new(&run_dir);
    let mut progress = BarProgress::new();

    let (settings, compilers, sampling, layouts) = if resume {
        let recorded = require_run_dir(&run_dir)?;
        let settings = SuiteSettings::load(&run)?;
        let sampling = recorded_sampling(&recorded);
        (
            settings,
            recorded_compilers(&recorded),
            sampling,
            recorded.layouts,
        )
    } else {
        if run.run_file().exists() {
            bail!(
                "{} already holds a run: pass --resume {} to continue it, or choose another --out",
                run_dir.display(),
                run_dir.display()
            );
        }
        // Six visits of 12 ms per (point, layout), eight layouts, three sizes per program:
        // the budget that keeps the timing of the default suite under ten minutes here while
        // each estimate rests on enough visits and layouts to reproduce (docs/measuring.md,
        // "Choosing the budget").
        let quota = if args.quick {
            Duration::from_millis(40)
        } else {
            Duration::from_millis(72)
        };
        let settings = SuiteSettings {
            quick: args.quick,
            templates: args
                .templates
                .as_deref()
                .map(std::path::absolute)
                .transpose()?,
            no_builtin: args.no_builtin,
            controls: args
                .controls
                .as_deref()
                .map(std::path::absolute)
                .transpose()?,
            training_sizes: Some(3),
            control_sizes: Some(3),
        };
        let layouts = args.measure.layouts_or(if args.quick { 2 } else { 8 });
        (
            settings,
            args.measure.compilers()?,
            args.measure
                .sampling(quota, if args.quick { 4 } else { 6 })?,
            layouts,
        )
    };
    std::fs::create_dir_all(&run_dir)?;
    settings.save(&run)?;
    let names: Vec<String> = compilers.iter().map(|c| c.compiler.name.clone()).collect();
    let cpu = args
        .measure
        .cpu
        .or_else(ocaml_runtime::process::default_cpu);

    // The branch predictor's memory, before anything is counted (a resumed run counts with
    // the one it measured, which require_run_dir made current).
    if !resume {
        let probed =
            pipeline::branch_probe::probe_branch_memory(&run, &compilers[0], cpu, &mut progress);
        progress.finish();
        match probed {
            Ok(memory) => eprintln!("mlcost: {}", memory.summary()),
            Err(e) => eprintln!(
                "mlcost: the branch predictor could not be measured ({e:#}); counting with the \
                 model's own ({:.0} coin tosses)",
                semantics::branch_memory::MODEL_KEPT_TOSSES
            ),
        }
    }

    // gen + build (skipped on resume when every compiler's builds are there).
    let prepared = prepare_suite(&run, &settings, &compilers, layouts, resume, &mut progress)?;
    for e in &prepared.template_errors {
        eprintln!("mlcost: template error: {e}");
    }
    for f in &prepared.build_failures {
        eprintln!("mlcost: not measured: {f}");
    }

    // The controls are counted and built now, so that they are timed in the same rounds as
    // the training programs (pipeline::joint), in fewer layouts: they are validated, not
    // fitted.
    let controls = pipeline::joint::prepare_controls(
        &run_dir,
        settings.controls.as_deref(),
        settings.control_sizes,
        &compilers,
        pipeline::joint::control_layouts(layouts),
        &mut progress,
    )?;

    // measure
    let (programs, binaries) = binaries_for(&prepared.manifest, &run_dir, &names, layouts);
    if programs.is_empty() {
        bail!("no training program passed verification: nothing to measure");
    }
    let (programs, binaries) = pipeline::joint::with_controls(programs, binaries, &controls);
    let plan = BenchPlan {
        programs,
        compilers: compilers.clone(),
        layouts,
        sampling,
        cpu,
        out_dir: std::path::absolute(&run_dir)?,
        canary_reference: None,
    };
    let measured = measure_built(&plan, &binaries, resume, &mut progress);
    progress.finish();
    let measured = measured?;
    let split = pipeline::joint::split_and_save(&run_dir, measured.estimates, measured.failures)?;
    for failure in &split.training_failures {
        eprintln!("mlcost: not measured: {failure}");
    }
    outln!("Training programs (layout-averaged):");
    out!("{}", reports::terminal::table(&split.training));
    let machine = measured
        .canary
        .as_ref()
        .map(|c| harness::canary::MachineCondition::of(c, &split.training));
    if let Some(line) = reports::terminal::machine_summary(machine.as_ref()) {
        outln!("{line}");
    }

    // instructions, training and controls: after timing, never during it (valgrind may use
    // both CPUs); --quick counts one layout, instructions barely depend on it.
    let instruction_layouts = if settings.quick {
        1
    } else {
        pipeline::instructions_stage::DEFAULT_LAYOUTS
    };
    // Counted by default since two runs give the same counts (docs/instructions.md); without
    // valgrind the stage itself prints the one line saying so.
    let counted = if args.no_instructions {
        eprintln!("mlcost: instructions per run not counted (--no-instructions)");
        false
    } else {
        super::instructions::count_and_print(&run_dir, instruction_layouts, true)?
    };

    // fit
    progress.stage("fit");
    for outcome in pipeline::fit_run(&run_dir, &pipeline::fit_stage::options(None, 1000))? {
        print_fit(&outcome);
    }

    // validate, on the controls measured above
    let validations = pipeline::joint::validate_measured(
        &run_dir,
        controls,
        &split.controls,
        &split.control_failures,
    )?;
    for (name, v) in &validations {
        print_validation(name, v);
    }
    if counted {
        super::instructions::validate_and_print(&run_dir, settings.controls.as_deref())?;
    }

    // history, then the report (last, as the line a user looks for)
    pipeline::record_history(&args.history, &run_dir)?;
    eprintln!("recorded in {}", args.history.display());
    let report = reports::html::write_report(&run_dir)?;
    outln!("\nreport: {}", report.display());
    Ok(ExitCode::SUCCESS)
}
