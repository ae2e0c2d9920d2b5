//! Everything a report shows, read from a run directory's files (nothing is recomputed but
//! summaries): `run.json`, `estimates.json`, `model-<compiler>.json`,
//! `validation-<compiler>.json`, `manifest.json`, `samples.jsonl`, `canary.jsonl`,
//! `branch-memory.json`.

use harness::canary::CanaryTimeline;
use harness::machine::RunInfo;
use harness::samples::{SampleLog, SampleRecord};
use harness::Estimate;
use rundir::{read_json, read_optional, RunDir, RunDirError};
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    #[error("{0}")]
    Render(String),
}

/// One compiler's results within a run.
pub struct CompilerResults {
    pub name: String,
    pub model: Option<fit::CostModel>,
    pub validation: Option<validation::Validation>,
}

pub struct RunData {
    pub dir: RunDir,
    pub run: RunInfo,
    pub estimates: Vec<Estimate>,
    pub compilers: Vec<CompilerResults>,
    pub manifest: Option<training_gen::Manifest>,
    pub samples: Vec<SampleRecord>,
    /// The canary's readings over the training measurement (none in runs from before it).
    pub canary: Option<CanaryTimeline>,
    /// The branch probe's finding (none in runs from before it).
    pub branch_memory: Option<semantics::branch_memory::BranchMemory>,
}

impl RunData {
    pub fn load(dir: &std::path::Path) -> Result<RunData, ReportError> {
        let dir = RunDir::new(dir);
        let run: RunInfo = read_json(&dir.run_file())?;
        let estimates: Vec<Estimate> = read_optional(&dir.estimates_file())?.unwrap_or_default();
        let mut compilers = Vec::new();
        for c in &run.compilers {
            let name = c.compiler.name.clone();
            compilers.push(CompilerResults {
                model: read_optional(&dir.model_file(&name))?,
                validation: read_optional(&dir.validation_file(None, &name))?,
                name,
            });
        }
        let manifest = read_optional(&dir.manifest_file())?;
        let samples_path = dir.samples_file();
        let samples = if samples_path.exists() {
            SampleLog::read_all(&samples_path).map_err(|e| ReportError::Read {
                path: samples_path.clone(),
                message: e.to_string(),
            })?
        } else {
            Vec::new()
        };
        let canary_path = dir.canary_file();
        let canary = CanaryTimeline::read(&canary_path).map_err(|e| ReportError::Read {
            path: canary_path.clone(),
            message: e.to_string(),
        })?;
        let branch_memory = read_optional(&dir.branch_memory_file())?;
        Ok(RunData {
            dir,
            run,
            estimates,
            compilers,
            manifest,
            samples,
            canary,
            branch_memory,
        })
    }
}
