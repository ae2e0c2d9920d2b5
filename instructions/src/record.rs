//! What a run directory keeps of instruction counts: `instructions.jsonl`, one record per
//! (program, compiler, size, layout) appended as it is measured, so an interrupted or repeated
//! stage measures only what is missing; and `instructions.json`, one summary per (program,
//! compiler, size), what the fit and the comparisons read.

use crate::{measure_binary, InstructionError, Valgrind};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// One measured (program, compiler, size, layout).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstructionRecord {
    pub program: String,
    pub compiler: String,
    pub size: u64,
    pub layout: u32,
    /// `(total_high − total_low) / (runs_high − runs_low)`.
    pub instructions_per_run: f64,
    pub runs_low: u64,
    pub runs_high: u64,
    pub total_low: u64,
    pub total_high: u64,
}

impl InstructionRecord {
    fn key(&self) -> (String, String, u64, u32) {
        (
            self.program.clone(),
            self.compiler.clone(),
            self.size,
            self.layout,
        )
    }
}

/// One (program, compiler, size): the mean over the layouts measured, and each layout's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstructionSummary {
    pub program: String,
    pub compiler: String,
    pub size: u64,
    pub instructions_per_run: f64,
    /// Layout -> instructions per run. Layouts differ by a few instructions at most (the code
    /// is the same, only moved), which is why measuring two of them is enough.
    pub layouts: BTreeMap<u32, f64>,
}

/// A binary to count at its sizes (one valgrind session).
#[derive(Debug, Clone)]
pub struct MeasureTask {
    pub program: String,
    pub compiler: String,
    pub layout: u32,
    pub binary: PathBuf,
    pub sizes: Vec<u64>,
}

/// Valgrind sessions at once: the machine's two cores, once timing is over.
const WORKERS: usize = 2;

/// What a measuring stage did: records already there, records added, and the tasks that
/// failed with their reason (a failed point is dropped, as the timing stage drops one).
#[derive(Debug, Default)]
pub struct Outcome {
    pub reused: usize,
    pub measured: usize,
    pub failures: Vec<String>,
}

/// Reads `instructions.jsonl`; a missing file is no record, a torn last line (a killed run) is
/// ignored, any other malformed line is an error.
pub fn read_records(path: &Path) -> Result<Vec<InstructionRecord>, rundir::RunDirError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(rundir::RunDirError::Io {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut records = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str(line) {
            Ok(r) => records.push(r),
            Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => {}
            Err(source) => {
                return Err(rundir::RunDirError::Format {
                    path: path.to_path_buf(),
                    source,
                })
            }
        }
    }
    Ok(records)
}

/// Counts every (task, size) not yet in `log` (`instructions.jsonl`), [`WORKERS`] binaries at
/// a time, appending each record as it is measured; `progress(done, total, task)` is told of
/// each task as it starts. Outcome counts are of points (a task's sizes).
pub fn measure_tasks(
    valgrind: &Valgrind,
    tasks: &[MeasureTask],
    log: &Path,
    progress: &(dyn Fn(usize, usize, &MeasureTask) + Sync),
) -> Result<Outcome, InstructionError> {
    let fail = |message: String| InstructionError::Run {
        binary: log.display().to_string(),
        message,
    };
    let have: BTreeSet<_> = read_records(log)
        .map_err(|e| fail(e.to_string()))?
        .iter()
        .map(InstructionRecord::key)
        .collect();
    let mut reused = 0;
    let todo: Vec<MeasureTask> = tasks
        .iter()
        .filter_map(|t| {
            let missing: Vec<u64> = t
                .sizes
                .iter()
                .copied()
                .filter(|&s| !have.contains(&(t.program.clone(), t.compiler.clone(), s, t.layout)))
                .collect();
            reused += t.sizes.len() - missing.len();
            (!missing.is_empty()).then(|| MeasureTask {
                sizes: missing,
                ..t.clone()
            })
        })
        .collect();
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| fail(e.to_string()))?;
    let shared = Mutex::new((
        file,
        Outcome {
            reused,
            ..Outcome::default()
        },
    ));
    let next = AtomicUsize::new(0);
    let write_error = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..WORKERS {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(task) = todo.get(i) else { break };
                progress(i, todo.len(), task);
                let counted = measure_binary(valgrind, &task.binary, &task.sizes);
                let mut guard = shared.lock().expect("no worker panics holding the log");
                let (file, outcome) = &mut *guard;
                match counted {
                    Ok(counts) => {
                        for (&size, count) in task.sizes.iter().zip(counts) {
                            // A major slice or compaction inside the shorter batch only can
                            // make the difference negative: not a count of runs.
                            if count.per_run() <= 0.0 {
                                outcome.failures.push(format!(
                                    "{} ({}) at size {size}, layout {}: batches of {} and {} runs differ by {} instructions (a major collection in one only)",
                                    task.program,
                                    task.compiler,
                                    task.layout,
                                    count.runs_low,
                                    count.runs_high,
                                    count.total_high as i64 - count.total_low as i64
                                ));
                                continue;
                            }
                            let record = InstructionRecord {
                                program: task.program.clone(),
                                compiler: task.compiler.clone(),
                                size,
                                layout: task.layout,
                                instructions_per_run: count.per_run(),
                                runs_low: count.runs_low,
                                runs_high: count.runs_high,
                                total_low: count.total_low,
                                total_high: count.total_high,
                            };
                            let line = serde_json::to_string(&record).expect("a record serialises");
                            if let Err(e) = writeln!(file, "{line}") {
                                *write_error.lock().expect("unpoisoned") = Some(e.to_string());
                            }
                            outcome.measured += 1;
                        }
                    }
                    Err(e) => outcome.failures.push(format!(
                        "{} ({}), layout {}: {e}",
                        task.program, task.compiler, task.layout
                    )),
                }
            });
        }
    });
    if let Some(e) = write_error.into_inner().expect("unpoisoned") {
        return Err(fail(e));
    }
    Ok(shared.into_inner().expect("unpoisoned").1)
}

/// One summary per (program, compiler, size): the mean over the layouts recorded.
pub fn summarise(records: &[InstructionRecord]) -> Vec<InstructionSummary> {
    let mut by_point: BTreeMap<(String, String, u64), BTreeMap<u32, f64>> = BTreeMap::new();
    for r in records {
        by_point
            .entry((r.program.clone(), r.compiler.clone(), r.size))
            .or_default()
            .insert(r.layout, r.instructions_per_run);
    }
    by_point
        .into_iter()
        .map(|((program, compiler, size), layouts)| InstructionSummary {
            program,
            compiler,
            size,
            instructions_per_run: layouts.values().sum::<f64>() / layouts.len() as f64,
            layouts,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(layout: u32, per_run: f64) -> InstructionRecord {
        InstructionRecord {
            program: "p".into(),
            compiler: "c".into(),
            size: 10,
            layout,
            instructions_per_run: per_run,
            runs_low: 1,
            runs_high: 2,
            total_low: 0,
            total_high: 0,
        }
    }

    #[test]
    fn summaries_average_layouts_and_a_torn_last_line_is_ignored() {
        let s = summarise(&[record(0, 100.0), record(1, 102.0)]);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].instructions_per_run, 101.0);
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("i.jsonl");
        let line = serde_json::to_string(&record(0, 1.0)).unwrap();
        std::fs::write(&log, format!("{line}\n{{\"prog")).unwrap();
        assert_eq!(read_records(&log).unwrap().len(), 1);
        std::fs::write(&log, format!("{{\"prog\n{line}\n")).unwrap();
        assert!(read_records(&log).is_err());
    }
}
