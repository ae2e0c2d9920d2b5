//! Everything a report shows, read from a run directory's files (nothing is recomputed but
//! summaries): `run.json`, `estimates.json`, `model-<compiler>.json`,
//! `validation-<compiler>.json`, `manifest.json`, `samples.jsonl`.

use harness::machine::RunInfo;
use harness::samples::{SampleLog, SampleRecord, SAMPLES_FILE};
use harness::Estimate;
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("{0}")]
    Render(String),
}

fn read<T: DeserializeOwned>(path: &Path) -> Result<T, ReportError> {
    let text = std::fs::read_to_string(path).map_err(|e| ReportError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    serde_json::from_str(&text).map_err(|e| ReportError::Read {
        path: path.to_path_buf(),
        message: format!("not what mlcost wrote: {e}"),
    })
}

fn read_optional<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, ReportError> {
    if path.exists() {
        read(path).map(Some)
    } else {
        Ok(None)
    }
}

/// One compiler's results within a run.
pub struct CompilerResults {
    pub name: String,
    pub model: Option<fit::CostModel>,
    pub validation: Option<validation::Validation>,
}

pub struct RunData {
    pub dir: PathBuf,
    pub run: RunInfo,
    pub estimates: Vec<Estimate>,
    pub compilers: Vec<CompilerResults>,
    pub manifest: Option<training_gen::Manifest>,
    pub samples: Vec<SampleRecord>,
}

fn file_tag(name: &str) -> String {
    harness::bench::sanitize(name)
}

impl RunData {
    pub fn load(dir: &Path) -> Result<RunData, ReportError> {
        let run: RunInfo = read(&dir.join("run.json"))?;
        let estimates: Vec<Estimate> =
            read_optional(&dir.join("estimates.json"))?.unwrap_or_default();
        let mut compilers = Vec::new();
        for c in &run.compilers {
            let name = c.compiler.name.clone();
            compilers.push(CompilerResults {
                model: read_optional(&dir.join(format!("model-{}.json", file_tag(&name))))?,
                validation: read_optional(
                    &dir.join(format!("validation-{}.json", file_tag(&name))),
                )?,
                name,
            });
        }
        let manifest = if dir.join(training_gen::manifest::MANIFEST_FILE).exists() {
            Some(
                training_gen::Manifest::load(dir).map_err(|e| ReportError::Read {
                    path: dir.join(training_gen::manifest::MANIFEST_FILE),
                    message: e.to_string(),
                })?,
            )
        } else {
            None
        };
        let samples_path = dir.join(SAMPLES_FILE);
        let samples = if samples_path.exists() {
            SampleLog::read_all(&samples_path).map_err(|e| ReportError::Read {
                path: samples_path.clone(),
                message: e.to_string(),
            })?
        } else {
            Vec::new()
        };
        Ok(RunData {
            dir: dir.to_path_buf(),
            run,
            estimates,
            compilers,
            manifest,
            samples,
        })
    }
}
