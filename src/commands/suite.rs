//! `mlcost suite`: the main job. gen → build → measure → count → fit → validate → report, in
//! one run directory; `--resume RUN_DIR` continues an interrupted run from its saved samples.

use super::build::run_build;
use super::common::{default_out_dir, MeasureArgs};
use super::fit::{fit_run, options, print_model};
use super::validate::{print_validation, validate_run, ValidateRequest};
use crate::pipeline::{self, read_json, recorded_compilers, write_json};
use crate::progress::BarProgress;
use anyhow::{bail, Result};
use clap::Args;
use harness::{measure_built, BenchPlan, BenchProgram, Progress};
use ocaml_runtime::BuiltBinary;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;
use training_gen::{Manifest, RenderContext};

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
    #[command(flatten)]
    pub measure: MeasureArgs,
}

/// What a suite run needs beyond `run.json` to be resumed exactly.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SuiteSettings {
    quick: bool,
    templates: Option<PathBuf>,
    #[serde(default)]
    no_builtin: bool,
    controls: Option<PathBuf>,
    /// Sizes measured per training program (all of the template's when absent).
    training_sizes: Option<usize>,
    control_sizes: Option<usize>,
}

const SETTINGS_FILE: &str = "suite.json";

fn binaries_for(
    manifest: &Manifest,
    run_dir: &Path,
    compilers: &[String],
    layouts: u32,
) -> (Vec<BenchProgram>, Vec<Vec<Vec<BuiltBinary>>>) {
    let usable: Vec<&training_gen::ProgramEntry> = manifest
        .programs
        .iter()
        .filter(|p| {
            compilers.iter().all(|c| {
                let builds: Vec<_> = p.builds.iter().filter(|b| &b.compiler == c).collect();
                builds.len() == layouts as usize && builds.iter().all(|b| b.verified())
            })
        })
        .collect();
    let programs = usable
        .iter()
        .map(|p| BenchProgram {
            name: p.name.clone(),
            path: run_dir.join(&p.source),
            sizes: p.sizes.clone(),
        })
        .collect();
    let binaries = compilers
        .iter()
        .map(|c| {
            usable
                .iter()
                .map(|p| {
                    let mut builds: Vec<_> = p.builds.iter().filter(|b| &b.compiler == c).collect();
                    builds.sort_by_key(|b| b.layout);
                    builds
                        .iter()
                        .map(|b| BuiltBinary {
                            path: run_dir
                                .join(b.binary.as_ref().expect("verified builds have a binary")),
                            assembly: run_dir.join(b.assembly.clone().unwrap_or_default()),
                            layout: b.layout,
                            layout_offset: b.layout_offset,
                            source_sha256: p.source_sha256.clone(),
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    (programs, binaries)
}

pub fn run(args: SuiteArgs) -> Result<ExitCode> {
    let resume = args.resume.is_some();
    let run_dir = match (&args.resume, &args.out) {
        (Some(dir), _) => dir.clone(),
        (None, Some(dir)) => dir.clone(),
        (None, None) => default_out_dir("run"),
    };
    let mut progress = BarProgress::new();

    let (settings, compilers, sampling, layouts) = if resume {
        let run = pipeline::require_run_dir(&run_dir)?;
        let settings: SuiteSettings = read_json(&run_dir.join(SETTINGS_FILE))?;
        let sampling = crate::pipeline::recorded_sampling(&run);
        (settings, recorded_compilers(&run), sampling, run.layouts)
    } else {
        if run_dir.join(pipeline::RUN_FILE).exists() {
            bail!(
                "{} already holds a run: pass --resume {} to continue it, or choose another --out",
                run_dir.display(),
                run_dir.display()
            );
        }
        // Six visits of 15 ms per (point, layout), eight layouts, five sizes per training
        // program and four per control: the budget that keeps the default suite under ten
        // minutes here while each estimate rests on enough visits and layouts to reproduce
        // (docs/design.md, "Choosing the budget").
        let quota = if args.quick {
            Duration::from_millis(40)
        } else {
            Duration::from_millis(90)
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
            training_sizes: Some(if args.quick { 4 } else { 5 }),
            control_sizes: Some(if args.quick { 3 } else { 4 }),
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
    write_json(&run_dir.join(SETTINGS_FILE), &settings)?;
    let names: Vec<String> = compilers.iter().map(|c| c.compiler.name.clone()).collect();

    // gen + build (skipped on resume when every compiler's builds are there).
    let built = Manifest::load(&run_dir).ok().filter(|m| {
        !m.programs.is_empty()
            && m.programs.iter().all(|p| {
                names.iter().all(|c| {
                    p.builds.iter().filter(|b| &b.compiler == c).count() == layouts as usize
                })
            })
    });
    let manifest = match built {
        Some(m) if resume => m,
        _ => {
            progress.stage("generate the training suite");
            let first = &compilers[0].compiler;
            let outcome = training_gen::generate(
                &run_dir,
                settings.templates.as_deref(),
                !settings.no_builtin,
                &RenderContext {
                    ocaml_version: first.version.clone(),
                    word_size: first.word_bytes() * 8,
                },
            )?;
            for e in &outcome.errors {
                eprintln!("mlcost: template error: {e}");
            }
            if let Some(k) = settings.training_sizes {
                let mut m = outcome.manifest;
                for p in &mut m.programs {
                    p.sizes = validation::spread_sizes(&p.sizes, k);
                }
                m.save(&run_dir)?;
            }
            progress.stage("build and verify");
            let outcome = run_build(&run_dir, &compilers, layouts, Duration::from_secs(60))?;
            for f in &outcome.failures {
                eprintln!("mlcost: not measured: {f}");
            }
            outcome.manifest
        }
    };

    // measure
    let (programs, binaries) = binaries_for(&manifest, &run_dir, &names, layouts);
    if programs.is_empty() {
        bail!("no training program passed verification: nothing to measure");
    }
    let plan = BenchPlan {
        programs,
        compilers: compilers.clone(),
        layouts,
        sampling,
        cpu: args
            .measure
            .cpu
            .or_else(ocaml_runtime::process::default_cpu),
        out_dir: std::path::absolute(&run_dir)?,
    };
    let measured = measure_built(&plan, &binaries, resume, &mut progress);
    progress.finish();
    let measured = measured?;
    for failure in &measured.failures {
        eprintln!("mlcost: not measured: {failure}");
    }
    println!("Training programs (layout-averaged):");
    print!("{}", reports::terminal::table(&measured.estimates));

    // fit
    progress.stage("fit");
    let models = fit_run(&run_dir, &options(None, 1000))?;
    for (name, model) in &models {
        print_model(name, model);
    }

    // validate
    let validations = validate_run(
        &ValidateRequest {
            run_dir: &run_dir,
            controls: settings.controls.as_deref(),
            main: true,
            only: Vec::new(),
            resume: true,
            max_sizes: settings.control_sizes,
        },
        &mut progress,
    )?;
    for (name, v) in &validations {
        print_validation(name, v);
    }

    // history, then the report (last, as the line a user looks for)
    super::history::record(&args.history, &run_dir)?;
    eprintln!("recorded in {}", args.history.display());
    let report = reports::html::write_report(&run_dir)?;
    println!("\nreport: {}", report.display());
    Ok(ExitCode::SUCCESS)
}
