//! # rundir
//!
//! The one owner of a run directory's layout. Every stage of mlcost reads and writes the files
//! of one directory; their names, the per-compiler and per-corpus tags in those names, how a
//! file is written (to a temporary file, then renamed, so an interrupted run never leaves half
//! a file) and how a read fails (with the path and the reason, never silently) are decided
//! here and nowhere else.
//!
//! ```text
//! run.json              machine, compilers, settings          (the harness writes it)
//! suite.json            what `mlcost suite --resume` needs beyond run.json
//! manifest.json         the generated programs and their builds
//! samples.jsonl         every batch, appended as measured, tagged with its round
//! visits.jsonl          completed visits (a point in a round), in the order taken
//! canary.jsonl          the canary's readings between visits
//! estimates.json        per (program, compiler, size) estimates
//! counts.json           the interpreter's counts per (program, size)
//! counts-previous.json  the counts `mlcost rescore` replaced (another mlcost's semantics)
//! instructions.jsonl    instructions per run under valgrind, per (program, compiler, size,
//!                       layout), appended as counted
//! instructions.json     instructions per run per (program, compiler, size)
//! instructions-validation-<compiler>.json  the instruction model against the controls
//! model.json            the first compiler's model; model-<compiler>.json for each
//! validation.json       the first compiler's validation; validation-<compiler>.json for each;
//!                       validation-<corpus>[-<compiler>].json for a user's own corpus
//! controls[-<corpus>]/  the control corpus, and per compiler its builds and samples
//! report/               index.html and the exports
//! ```
//!
//! It depends on nothing heavier than serde so that every crate, the harness included, can use
//! it.

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::path::{Path, PathBuf};

pub const RUN_FILE: &str = "run.json";
pub const SUITE_FILE: &str = "suite.json";
pub const MANIFEST_FILE: &str = "manifest.json";
pub const SAMPLES_FILE: &str = "samples.jsonl";
pub const VISITS_FILE: &str = "visits.jsonl";
pub const CANARY_FILE: &str = "canary.jsonl";
pub const ESTIMATES_FILE: &str = "estimates.json";
pub const COUNTS_FILE: &str = "counts.json";
pub const PREVIOUS_COUNTS_FILE: &str = "counts-previous.json";
pub const INSTRUCTIONS_LOG_FILE: &str = "instructions.jsonl";
pub const INSTRUCTIONS_FILE: &str = "instructions.json";
pub const MODEL_FILE: &str = "model.json";
pub const VALIDATION_FILE: &str = "validation.json";
pub const CONTROLS_DIR: &str = "controls";
pub const REPORT_DIR: &str = "report";
/// What the branch probe measured of the machine's predictor, and where it built and timed.
pub const BRANCH_MEMORY_FILE: &str = "branch-memory.json";
pub const BRANCH_PROBE_DIR: &str = "branch-probe";
/// Where the built-in control corpus is extracted, inside [`CONTROLS_DIR`].
pub const BUILTIN_PROGRAMS_DIR: &str = "programs";

#[derive(Debug, thiserror::Error)]
pub enum RunDirError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not what mlcost wrote: {source}", path.display())]
    Format {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{}: no such run directory", .0.display())]
    NotARun(PathBuf),
}

/// File-system-safe form of a compiler or corpus name, as it appears in file names.
pub fn tag(name: &str) -> String {
    ocaml_runtime::build::sanitize(name)
}

/// Writes `bytes` to `path` through a temporary file beside it and a rename, so that readers
/// (and a resumed run) see the old file or the new one, never a partial write.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), RunDirError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

/// [`write_atomic`] of `value` as pretty JSON.
pub fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<(), RunDirError> {
    let text = serde_json::to_string_pretty(value).map_err(|source| RunDirError::Format {
        path: path.to_path_buf(),
        source,
    })?;
    write_atomic(path, text.as_bytes())
}

/// Reads a JSON file mlcost wrote; both a missing file and a malformed one are errors.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, RunDirError> {
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    serde_json::from_str(&text).map_err(|source| RunDirError::Format {
        path: path.to_path_buf(),
        source,
    })
}

/// Like [`read_json`], but a file that does not exist is `None` (a stage not run yet); a file
/// that exists and cannot be read is still an error.
pub fn read_optional<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, RunDirError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|source| RunDirError::Format {
                path: path.to_path_buf(),
                source,
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(path)(e)),
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunDirError + '_ {
    move |source| RunDirError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A run directory (or a bench or suite directory: they share the names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunDir {
    root: PathBuf,
}

impl RunDir {
    pub fn new(root: impl Into<PathBuf>) -> RunDir {
        RunDir { root: root.into() }
    }

    /// The directory of an existing run: fails early, with the reason, on one that is not.
    pub fn existing(root: impl Into<PathBuf>) -> Result<RunDir, RunDirError> {
        let dir = RunDir::new(root);
        if !dir.root.is_dir() {
            return Err(RunDirError::NotARun(dir.root));
        }
        if !dir.run_file().is_file() {
            return Err(RunDirError::Io {
                path: dir.run_file(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "not an mlcost run (no run.json)",
                ),
            });
        }
        Ok(dir)
    }

    pub fn path(&self) -> &Path {
        &self.root
    }

    pub fn join(&self, relative: impl AsRef<Path>) -> PathBuf {
        self.root.join(relative)
    }

    pub fn run_file(&self) -> PathBuf {
        self.join(RUN_FILE)
    }

    pub fn suite_file(&self) -> PathBuf {
        self.join(SUITE_FILE)
    }

    pub fn manifest_file(&self) -> PathBuf {
        self.join(MANIFEST_FILE)
    }

    pub fn samples_file(&self) -> PathBuf {
        self.join(SAMPLES_FILE)
    }

    pub fn visits_file(&self) -> PathBuf {
        self.join(VISITS_FILE)
    }

    pub fn canary_file(&self) -> PathBuf {
        self.join(CANARY_FILE)
    }

    pub fn estimates_file(&self) -> PathBuf {
        self.join(ESTIMATES_FILE)
    }

    pub fn counts_file(&self) -> PathBuf {
        self.join(COUNTS_FILE)
    }

    /// The counts a recount replaced, kept so that nothing measured or counted is lost.
    pub fn previous_counts_file(&self) -> PathBuf {
        self.join(PREVIOUS_COUNTS_FILE)
    }

    /// `instructions.jsonl`: one record per counted (program, compiler, size, layout).
    pub fn instructions_log_file(&self) -> PathBuf {
        self.join(INSTRUCTIONS_LOG_FILE)
    }

    /// `instructions.json`: instructions per run per (program, compiler, size).
    pub fn instructions_file(&self) -> PathBuf {
        self.join(INSTRUCTIONS_FILE)
    }

    /// `instructions-validation-<compiler>.json`: the instruction model against the controls.
    pub fn instructions_validation_file(&self, compiler: &str) -> PathBuf {
        self.join(format!("instructions-validation-{}.json", tag(compiler)))
    }

    /// `model.json`: the first compiler's model, the one a user looks for.
    pub fn main_model_file(&self) -> PathBuf {
        self.join(MODEL_FILE)
    }

    /// `model-<compiler>.json`.
    pub fn model_file(&self, compiler: &str) -> PathBuf {
        self.join(model_file_name(compiler))
    }

    /// `validation.json`, or `validation-<corpus>.json` for a user's own corpus: the first
    /// compiler's validation.
    pub fn main_validation_file(&self, corpus: Option<&str>) -> PathBuf {
        match corpus {
            None => self.join(VALIDATION_FILE),
            Some(c) => self.join(format!("validation-{}.json", tag(c))),
        }
    }

    /// `validation[-<corpus>]-<compiler>.json`.
    pub fn validation_file(&self, corpus: Option<&str>, compiler: &str) -> PathBuf {
        let corpus = corpus.map_or(String::new(), |c| format!("-{}", tag(c)));
        self.join(format!("validation{corpus}-{}.json", tag(compiler)))
    }

    /// `controls[-<corpus>]/`: a control corpus's builds, samples and estimates.
    pub fn controls_dir(&self, corpus: Option<&str>) -> PathBuf {
        match corpus {
            None => self.join(CONTROLS_DIR),
            Some(c) => self.join(format!("{CONTROLS_DIR}-{}", tag(c))),
        }
    }

    /// Where one compiler's control programs are built and measured: itself a directory with
    /// this layout (samples, visits, canary, estimates).
    pub fn controls_work_dir(&self, corpus: Option<&str>, compiler: &str) -> RunDir {
        RunDir::new(self.controls_dir(corpus).join(tag(compiler)))
    }

    /// Where the built-in control corpus is extracted.
    pub fn builtin_controls_dir(&self) -> PathBuf {
        self.controls_dir(None).join(BUILTIN_PROGRAMS_DIR)
    }

    pub fn report_dir(&self) -> PathBuf {
        self.join(REPORT_DIR)
    }

    pub fn branch_memory_file(&self) -> PathBuf {
        self.join(BRANCH_MEMORY_FILE)
    }

    pub fn branch_probe_dir(&self) -> PathBuf {
        self.join(BRANCH_PROBE_DIR)
    }
}

impl AsRef<Path> for RunDir {
    fn as_ref(&self) -> &Path {
        &self.root
    }
}

/// `model-<compiler>.json`, as a file name.
pub fn model_file_name(compiler: &str) -> String {
    format!("model-{}.json", tag(compiler))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_sanitised_tags() {
        let run = RunDir::new("/r");
        assert_eq!(
            run.model_file("4.13 afl"),
            Path::new("/r/model-4.13_afl.json")
        );
        assert_eq!(
            run.validation_file(Some("my programs"), "4.13"),
            Path::new("/r/validation-my_programs-4.13.json")
        );
        assert_eq!(
            run.main_validation_file(Some("mine")),
            Path::new("/r/validation-mine.json")
        );
        assert_eq!(
            run.main_validation_file(None),
            Path::new("/r/validation.json")
        );
        assert_eq!(
            run.controls_work_dir(None, "4.13").path(),
            Path::new("/r/controls/4.13")
        );
    }

    #[test]
    fn writes_are_atomic_and_reads_report_their_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.json");
        assert!(read_optional::<Vec<u32>>(&path).unwrap().is_none());
        assert!(read_json::<Vec<u32>>(&path).is_err());
        write_json(&path, &vec![1u32, 2]).unwrap();
        assert_eq!(read_json::<Vec<u32>>(&path).unwrap(), vec![1, 2]);
        assert!(!dir.path().join("x.json.tmp").exists());
        std::fs::write(&path, "{").unwrap();
        let err = read_optional::<Vec<u32>>(&path).unwrap_err().to_string();
        assert!(err.contains("x.json: not what mlcost wrote"), "{err}");
    }

    #[test]
    fn an_existing_run_needs_its_run_file() {
        let dir = tempfile::tempdir().unwrap();
        assert!(RunDir::existing(dir.path().join("nope")).is_err());
        assert!(RunDir::existing(dir.path()).is_err());
        std::fs::write(dir.path().join(RUN_FILE), "{}").unwrap();
        assert!(RunDir::existing(dir.path()).is_ok());
    }
}
