//! `mlcost validate`: a fitted run's model against control programs (built-in or your own).

use crate::pipeline::{model_file, read_json, recorded_compilers, require_run_dir, write_json};
use crate::progress::BarProgress;
use anyhow::Result;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use validation::{validate, ValidateOptions, Validation, VALIDATION_FILE};

#[derive(Args, Debug)]
pub struct ValidateArgs {
    /// A run directory with a fitted model (`mlcost suite`, or `mlcost fit`).
    pub run_dir: PathBuf,
    /// Directory of control programs (default: the corpus built into mlcost).
    #[arg(long)]
    pub controls: Option<PathBuf>,
    /// Only these control programs (repeatable).
    #[arg(long = "only", value_name = "NAME")]
    pub only: Vec<String>,
    /// Reuse measurements an interrupted validation left.
    #[arg(long)]
    pub resume: bool,
}

pub struct ValidateRequest<'a> {
    pub run_dir: &'a Path,
    pub controls: Option<&'a Path>,
    /// The suite's own validation: `validation.json` and `controls/` whatever the corpus.
    pub main: bool,
    pub only: Vec<String>,
    pub resume: bool,
    pub max_sizes: Option<usize>,
}

/// Validates every compiler's model of a run; writes `validation-<compiler>.json` and, for the
/// first compiler, `validation.json` — tagged with the directory's name instead when a user's
/// own corpus is validated against an existing run.
pub fn validate_run(
    req: &ValidateRequest,
    progress: &mut BarProgress,
) -> Result<Vec<(String, Validation)>> {
    let run = require_run_dir(req.run_dir)?;
    let (controls, tag) = match req.controls {
        Some(dir) if req.main => (dir.to_path_buf(), String::new()),
        Some(dir) => (
            dir.to_path_buf(),
            format!(
                "-{}",
                harness::bench::sanitize(
                    &dir.file_name()
                        .map_or("controls".into(), |n| n.to_string_lossy().into_owned())
                )
            ),
        ),
        None => (
            validation::extract_builtin(&req.run_dir.join("controls").join("programs"))?,
            String::new(),
        ),
    };
    let sampling = crate::pipeline::recorded_sampling(&run);
    let mut out = Vec::new();
    for setup in recorded_compilers(&run) {
        let name = setup.compiler.name.clone();
        let model: fit::CostModel = read_json(&req.run_dir.join(model_file(&name)))?;
        let work_dir = req
            .run_dir
            .join(format!("controls{tag}"))
            .join(harness::bench::sanitize(&name));
        let v = validate(
            &model,
            &ValidateOptions {
                controls: &controls,
                work_dir: &work_dir,
                compiler: &setup,
                layouts: run.layouts,
                sampling: sampling.clone(),
                cpu: run.pinned_cpu,
                resume: req.resume,
                only: req.only.clone(),
                max_sizes: req.max_sizes,
            },
            progress,
        )?;
        progress.finish();
        write_json(
            &req.run_dir.join(format!(
                "validation{tag}-{}.json",
                harness::bench::sanitize(&name)
            )),
            &v,
        )?;
        if out.is_empty() {
            write_json(
                &req.run_dir.join(if tag.is_empty() {
                    VALIDATION_FILE.to_string()
                } else {
                    format!("validation{tag}.json")
                }),
                &v,
            )?;
        }
        out.push((name, v));
    }
    Ok(out)
}

pub fn print_validation(name: &str, v: &Validation) {
    println!(
        "\nValidation of {name} on {} control programs ({} points):",
        v.summary.programs, v.summary.points
    );
    print!("{}", reports::terminal::validation_table(v));
    if !v.pairs.is_empty() {
        print!("{}", reports::terminal::pairs_table(v));
    }
    for s in &v.skipped {
        eprintln!("mlcost: skipped control {}: {}", s.program, s.reason);
    }
}

pub fn run(args: ValidateArgs) -> Result<ExitCode> {
    let mut progress = BarProgress::new();
    let results = validate_run(
        &ValidateRequest {
            run_dir: &args.run_dir,
            controls: args.controls.as_deref(),
            main: args.controls.is_none(),
            only: args.only.clone(),
            resume: args.resume,
            max_sizes: None,
        },
        &mut progress,
    )?;
    for (name, v) in &results {
        print_validation(name, v);
    }
    Ok(ExitCode::SUCCESS)
}
