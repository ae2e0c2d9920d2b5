//! `manifest.json`: what the suite contains and, after `build`, how each program was built
//! and whether it passed verification. Paths are relative to the suite directory so a suite
//! can be moved or archived whole.

use crate::template::{AsmCheck, Origin};
use crate::verify::CheckOutcome;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const MANIFEST_FILE: &str = "manifest.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub programs: Vec<ProgramEntry>,
    /// Templates that could not be rendered when the suite was generated.
    #[serde(default)]
    pub template_errors: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgramEntry {
    pub name: String,
    pub template: String,
    pub origin: Origin,
    /// The construct the program stresses, then the others it stresses on purpose.
    pub constructs: Vec<String>,
    pub sizes: Vec<u64>,
    pub notes: String,
    /// Relative to the suite directory.
    pub source: PathBuf,
    pub source_sha256: String,
    pub checks: Vec<AsmCheck>,
    #[serde(default)]
    pub builds: Vec<BuildEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuildEntry {
    pub compiler: String,
    pub version: String,
    pub flags: Vec<String>,
    pub layout: u32,
    pub layout_offset: u64,
    /// Relative to the suite directory; absent when the build failed.
    pub binary: Option<PathBuf>,
    pub assembly: Option<PathBuf>,
    pub checks: Vec<CheckOutcome>,
    /// Native and interpreter digests agree at every size (checked on layout 0).
    pub digests_agree: Option<bool>,
    /// Why this build cannot be used; `None` when it passed verification.
    pub error: Option<String>,
}

impl BuildEntry {
    pub fn verified(&self) -> bool {
        self.error.is_none() && self.binary.is_some()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not an mlcost manifest: {source}")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
}

impl Manifest {
    pub fn load(suite: &Path) -> Result<Manifest, ManifestError> {
        let path = suite.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path).map_err(|source| ManifestError::Io {
            path: path.clone(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| ManifestError::Parse { path, source })
    }

    /// Writes through a temporary file so an interrupted write never leaves half a manifest.
    pub fn save(&self, suite: &Path) -> Result<(), ManifestError> {
        let path = suite.join(MANIFEST_FILE);
        let tmp = suite.join(format!("{MANIFEST_FILE}.tmp"));
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ManifestError::Io { path, source }
        };
        std::fs::write(
            &tmp,
            serde_json::to_string_pretty(self).expect("manifest serialises"),
        )
        .map_err(io(&tmp))?;
        std::fs::rename(&tmp, &path).map_err(io(&path))
    }
}
