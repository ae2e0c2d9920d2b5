//! The raw measurements on disk: one JSON object per line, appended and flushed as each one
//! arrives, so that an interrupted or failed run keeps everything it measured and can be
//! analysed (or resumed) from the files alone. `samples.jsonl` holds every batch, tagged with
//! the round of its visit; `visits.jsonl` one line per completed visit (a point's batches in
//! one round are used only once their visit is recorded complete); `canary.jsonl` the
//! calibration program's readings between visits.

use ocaml_runtime::BatchSample;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

pub use rundir::{CANARY_FILE, SAMPLES_FILE, VISITS_FILE};

/// Identifies one sampled point of a run.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PointKey {
    pub benchmark: String,
    pub compiler: String,
    pub size: u64,
    pub layout: u32,
}

/// One completed visit of a point: its batches in `samples.jsonl` (same key and round) are
/// complete. `sequence` numbers visits in the order they were taken, across resumes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VisitRecord {
    #[serde(flatten)]
    pub key: PointKey,
    pub round: u32,
    pub sequence: u64,
    /// Wall clock (ms since the Unix epoch) when the visit began and ended: what the canary's
    /// timeline is read against.
    pub start_ms: u64,
    pub end_ms: u64,
    /// The result digest, asked for on a point's first visit only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// Time to build the input when the visit had to (re)build it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_ns: Option<u64>,
    pub samples: usize,
}

/// One reading of the canary: its time per run over a short slice, taken between visits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CanaryRecord {
    /// Wall clock (ms since the Unix epoch) at the end of the reading.
    pub at_ms: u64,
    pub ns_per_run: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleRecord {
    pub benchmark: String,
    pub compiler: String,
    pub size: u64,
    pub layout: u32,
    /// The round of the visit that took this batch (0 in logs from before rounds).
    #[serde(default)]
    pub round: u32,
    #[serde(flatten)]
    pub sample: BatchSample,
}

#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct SampleIoError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

impl SampleRecord {
    pub fn key(&self) -> PointKey {
        PointKey {
            benchmark: self.benchmark.clone(),
            compiler: self.compiler.clone(),
            size: self.size,
            layout: self.layout,
        }
    }
}

/// An append-only file of JSON lines.
pub struct JsonLines<T> {
    path: PathBuf,
    file: File,
    records: PhantomData<T>,
}

/// `samples.jsonl`.
pub type SampleLog = JsonLines<SampleRecord>;
/// `visits.jsonl`.
pub type VisitLog = JsonLines<VisitRecord>;
/// `canary.jsonl`.
pub type CanaryLog = JsonLines<CanaryRecord>;

impl<T: Serialize + DeserializeOwned> JsonLines<T> {
    pub fn open(path: &Path) -> Result<Self, SampleIoError> {
        let err = |source| SampleIoError {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(err)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(err)?;
        Ok(JsonLines {
            path: path.to_path_buf(),
            file,
            records: PhantomData,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record as a single write, so a crash leaves at most one partial line.
    pub fn append(&mut self, record: &T) -> Result<(), SampleIoError> {
        let mut line = serde_json::to_string(record).expect("records serialise");
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|source| SampleIoError {
                path: self.path.clone(),
                source,
            })
    }

    /// Every complete record of a log. A torn last line (the process died mid-write) is
    /// skipped; a corrupt line elsewhere is an error naming its line number.
    pub fn read_all(path: &Path) -> Result<Vec<T>, SampleIoError> {
        let err = |source| SampleIoError {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(err)?;
        let lines: Vec<String> = BufReader::new(file)
            .lines()
            .collect::<Result<_, _>>()
            .map_err(err)?;
        let mut records = Vec::with_capacity(lines.len());
        for (i, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str(line) {
                Ok(record) => records.push(record),
                Err(_) if i + 1 == lines.len() => {}
                Err(e) => {
                    return Err(err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("line {}: {e}", i + 1),
                    )))
                }
            }
        }
        Ok(records)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(runs: u64) -> SampleRecord {
        SampleRecord {
            benchmark: "b".into(),
            compiler: "4.13.1".into(),
            size: 10,
            layout: 0,
            round: 0,
            sample: BatchSample::timing(runs, runs * 5),
        }
    }

    #[test]
    fn appended_records_survive_a_torn_last_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s/samples.jsonl");
        let mut log = SampleLog::open(&path).unwrap();
        log.append(&record(1)).unwrap();
        log.append(&record(2)).unwrap();
        drop(log);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"benchmark\":\"b\",\"comp")
            .unwrap();
        let back = SampleLog::read_all(&path).unwrap();
        assert_eq!(back, vec![record(1), record(2)]);
    }

    #[test]
    fn corruption_in_the_middle_names_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SAMPLES_FILE);
        let good = serde_json::to_string(&record(1)).unwrap();
        std::fs::write(&path, format!("{good}\nnot json\n{good}\n")).unwrap();
        let err = SampleLog::read_all(&path).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
    }
}
