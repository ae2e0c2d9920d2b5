//! The raw samples on disk: one JSON object per line, appended and flushed as each batch
//! arrives, so that an interrupted or failed run keeps everything it measured and can be
//! analysed (or resumed) from the files alone. `samples.jsonl` holds every batch;
//! `points.jsonl` one line per (benchmark, compiler, size, layout) whose sampling completed.

use ocaml_runtime::BatchSample;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

pub const SAMPLES_FILE: &str = "samples.jsonl";
pub const POINTS_FILE: &str = "points.jsonl";

/// Identifies one sampled point of a run.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PointKey {
    pub benchmark: String,
    pub compiler: String,
    pub size: u64,
    pub layout: u32,
}

/// A point whose sampling finished: its samples in `samples.jsonl` are complete.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointRecord {
    #[serde(flatten)]
    pub key: PointKey,
    pub digest: String,
    pub input_ns: u64,
    pub samples: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleRecord {
    pub benchmark: String,
    pub compiler: String,
    pub size: u64,
    pub layout: u32,
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
/// `points.jsonl`.
pub type PointLog = JsonLines<PointRecord>;

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
            sample: BatchSample {
                runs,
                ns: runs * 5,
                minor_words: 0.0,
                promoted_words: 0.0,
                major_words: 0.0,
                minor_collections: 0,
                major_collections: 0,
                compactions: 0,
                cpu_ns: None,
            },
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
        let path = dir.path().join("samples.jsonl");
        let good = serde_json::to_string(&record(1)).unwrap();
        std::fs::write(&path, format!("{good}\nnot json\n{good}\n")).unwrap();
        let err = SampleLog::read_all(&path).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
    }
}
