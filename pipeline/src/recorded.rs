//! What a run recorded about itself in `run.json`, read back so that resumed and later stages
//! work exactly as the run began.

use anyhow::{Context, Result};
use harness::machine::RunInfo;
use ocaml_runtime::CompilerSetup;
use rundir::RunDir;
use std::path::Path;
use std::time::Duration;

/// Fails early, with the reason, on a directory that is not an mlcost run. Makes the
/// interpreter count as the run's machine did from then on (its measured branch memory, see
/// [`crate::branch_probe`]): every stage that reads a run comes here first.
pub fn require_run_dir(dir: &Path) -> Result<RunInfo> {
    let run = RunDir::existing(dir)?;
    let info = rundir::read_json(&run.run_file())?;
    crate::branch_probe::use_recorded_branch_memory(&run)?;
    Ok(info)
}

/// The sampling settings recorded in a run's `run.json`.
pub fn recorded_sampling(run: &RunInfo) -> harness::SamplingConfig {
    harness::SamplingConfig {
        quota: Duration::from_millis(run.quota_ms),
        rounds: run.rounds,
        catch_up_rounds: run.catch_up_rounds,
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

/// The minor heap `compiler`'s runtime started with, in words: as recorded when measuring
/// (`compilers[i].minor_heap_words` in `run.json`, from the driver's hello line), or else
/// asked of one of the run's verified binaries.
pub fn minor_heap_words(run: &RunDir, compiler: &str) -> Result<u64> {
    let recorded: serde_json::Value = rundir::read_json(&run.run_file())?;
    let from_record = recorded["compilers"].as_array().and_then(|compilers| {
        compilers
            .iter()
            .find(|c| c["name"] == compiler)
            .and_then(|c| c["minor_heap_words"].as_u64())
    });
    if let Some(words) = from_record {
        return Ok(words);
    }
    let manifest = training_gen::Manifest::load(run.path())?;
    let binary = manifest
        .programs
        .iter()
        .flat_map(|p| &p.builds)
        .find(|b| b.compiler == compiler && b.verified())
        .and_then(|b| b.binary.clone())
        .with_context(|| format!("{}: no verified build for {compiler}", run.path().display()))?;
    let binary = run.join(binary);
    let driver = ocaml_runtime::DriverProcess::spawn(
        &binary,
        None,
        ocaml_runtime::Placement::default(),
        Duration::from_secs(10),
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minor_heap_recorded_in_run_json_is_used_without_starting_a_driver() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir::new(dir.path());
        std::fs::write(
            run.run_file(),
            r#"{"compilers": [{"name": "a", "minor_heap_words": 1024},
                              {"name": "b", "minor_heap_words": 262144}]}"#,
        )
        .unwrap();
        assert_eq!(minor_heap_words(&run, "b").unwrap(), 262144);
        // Not recorded, and no manifest to find a binary in: the error names the file.
        let err = minor_heap_words(&run, "c").unwrap_err().to_string();
        assert!(err.contains(rundir::MANIFEST_FILE), "{err}");
    }
}
