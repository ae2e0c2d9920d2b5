//! `manifest.json`: what the suite contains and, after `build`, how each program was built
//! and whether it passed verification. Paths are relative to the suite directory so a suite
//! can be moved or archived whole.

use crate::template::{AsmCheck, Origin};
use crate::verify::CheckOutcome;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub use rundir::MANIFEST_FILE;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub programs: Vec<ProgramEntry>,
    /// Templates that could not be rendered when the suite was generated.
    #[serde(default)]
    pub template_errors: Vec<String>,
    /// The catalogue fingerprint ([`semantics::catalogue_fingerprint`]) of the interpreter
    /// that wrote `counts.json`; `None` before the suite is counted, and in runs from before
    /// mlcost recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted_by: Option<String>,
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

/// A manifest that cannot be read or written: the run directory's error, with its path.
pub type ManifestError = rundir::RunDirError;

impl Manifest {
    pub fn load(suite: &Path) -> Result<Manifest, ManifestError> {
        rundir::read_json(&rundir::RunDir::new(suite).manifest_file())
    }

    pub fn save(&self, suite: &Path) -> Result<(), ManifestError> {
        rundir::write_json(&rundir::RunDir::new(suite).manifest_file(), self)
    }
}
