//! Glue between the stages: turning the harness's estimates and the interpreter's counts into
//! the fit's observations, reading and writing a run directory's files, and the settings a
//! suite run keeps so that `--resume` continues it exactly.

use anyhow::{bail, Context, Result};
use harness::machine::RunInfo;
use harness::Estimate;
use ocaml_runtime::CompilerSetup;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;
use training_gen::ProgramCounts;

pub const ESTIMATES_FILE: &str = "estimates.json";
pub const MODEL_FILE: &str = "model.json";
pub const RUN_FILE: &str = "run.json";

pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{}: not what mlcost wrote", path.display()))
}

pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(value)?)
        .with_context(|| format!("{}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("{}", path.display()))
}

/// The time of one run without collections: the multivariate fit's per-run slope where the
/// harness could separate GC time (and it is plausible), the plain slope otherwise.
fn time_without_gc(plain: f64, gc_fit: Option<harness::GcFit>) -> f64 {
    match gc_fit {
        Some(g) if g.ns_per_run > 0.0 && g.ns_per_run <= plain * 1.05 => g.ns_per_run,
        _ => plain,
    }
}

/// One observation per (program, size) of `compiler` that was both measured and counted, and
/// the points left out because their time per run is not positive (a slope drowned in noise:
/// too short a quota for a program dominated by collections).
pub fn observations(
    estimates: &[Estimate],
    counts: &[ProgramCounts],
    compiler: &str,
) -> (Vec<fit::Observation>, Vec<String>) {
    let by_point: BTreeMap<(&str, u64), &ProgramCounts> = counts
        .iter()
        .map(|c| ((c.program.as_str(), c.size), c))
        .collect();
    let (usable, unusable): (Vec<&Estimate>, Vec<&Estimate>) = estimates
        .iter()
        .filter(|e| e.compiler == compiler)
        .partition(|e| e.ns_per_run.estimate.is_finite() && e.ns_per_run.estimate > 0.0);
    let left_out = unusable
        .iter()
        .map(|e| {
            format!(
                "{}:{} (slope {:.1} ns, R² {:.3})",
                e.benchmark, e.size, e.ns_per_run.estimate, e.r2
            )
        })
        .collect();
    let observations = usable
        .into_iter()
        .filter_map(|e| {
            let row = by_point.get(&(e.benchmark.as_str(), e.size))?;
            Some(fit::Observation {
                program: e.benchmark.clone(),
                size: e.size,
                ns_per_run: time_without_gc(e.ns_per_run.estimate, e.gc_fit),
                ns_per_run_layouts: e
                    .layouts
                    .iter()
                    .map(|l| time_without_gc(l.ns_per_run.estimate, l.gc_fit))
                    .filter(|t| *t > 0.0)
                    .collect(),
                ns_ci: (e.ns_per_run.ci_low, e.ns_per_run.ci_high),
                words_per_run: e.minor_words_per_run + e.major_words_per_run
                    - e.promoted_words_per_run,
                minor_collections_per_run: e.minor_collections_per_run,
                // Collections nearly proportional to runs make this coefficient unstable; a
                // negative time per collection is such an artefact, not a measurement.
                ns_per_minor_collection: e
                    .gc_fit
                    .and_then(|g| g.ns_per_minor_collection)
                    .filter(|t| t.is_finite() && *t > 0.0),
                counts: row
                    .counts
                    .iter()
                    .map(|(k, &v)| (k.clone(), v as f64))
                    .collect(),
            })
        })
        .collect();
    (observations, left_out)
}

/// The minor heap the runtime of `binary` starts with, as its driver announces it.
pub fn minor_heap_words(binary: &Path) -> Result<u64> {
    let driver = ocaml_runtime::DriverProcess::spawn(binary, None, Duration::from_secs(10))
        .map_err(|e| anyhow::anyhow!("{}: {e}", binary.display()))?;
    Ok(driver.hello.minor_heap_words)
}

/// The fit's context for one compiler of a run.
pub fn fit_context(run: &RunInfo, setup: &CompilerSetup, minor_heap_words: u64) -> fit::FitContext {
    fit::FitContext {
        compiler: serde_json::json!({
            "name": setup.compiler.name,
            "path": setup.compiler.path,
            "version": setup.compiler.version,
            "flags": setup.flags,
            "config": setup.compiler.config,
        }),
        machine: serde_json::to_value(&run.machine).unwrap_or_default(),
        word_size_bytes: setup.compiler.word_bytes(),
        minor_heap_words,
    }
}

/// The sampling settings recorded in a run's `run.json`, so resumed and later stages
/// measure exactly as the run began.
pub fn recorded_sampling(run: &RunInfo) -> harness::SamplingConfig {
    harness::SamplingConfig {
        quota: Duration::from_millis(run.quota_ms),
        rounds: run.rounds,
        seed: run.seed,
        growth: run.growth,
        ..harness::SamplingConfig::default()
    }
}

/// The compilers recorded in a run's `run.json`.
pub fn recorded_compilers(run: &RunInfo) -> Vec<CompilerSetup> {
    run.compilers
        .iter()
        .map(|c| CompilerSetup {
            compiler: c.compiler.clone(),
            flags: c.flags.clone(),
        })
        .collect()
}

/// The model file of a compiler: `model.json` for the first, `model-<name>.json` for each.
pub fn model_file(compiler: &str) -> String {
    format!("model-{}.json", harness::bench::sanitize(compiler))
}

/// Fails early, with the reason, on a directory that is not an mlcost run.
pub fn require_run_dir(dir: &Path) -> Result<RunInfo> {
    if !dir.is_dir() {
        bail!("{}: no such run directory", dir.display());
    }
    read_json(&dir.join(RUN_FILE))
}
