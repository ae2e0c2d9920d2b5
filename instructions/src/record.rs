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
    /// Instructions of one run outside the collector ([`crate::PointCount::per_run`]).
    pub instructions_per_run: f64,
    /// The collector's instructions per run over the same batches (a reading: it depends on
    /// the heap's state, see the crate documentation).
    #[serde(default)]
    pub gc_instructions_per_run: f64,
    pub runs_low: u64,
    pub runs_high: u64,
    pub total_low: u64,
    pub total_high: u64,
    #[serde(default)]
    pub gc_low: u64,
    #[serde(default)]
    pub gc_high: u64,
    /// How the record was counted; records of another method are counted again, not mixed
    /// (method 1, absent from the file, counted collections in and chose `K` from a timing).
    #[serde(default = "first_method")]
    pub method: u32,
}

/// The counting method of this crate: collections apart, `K` from an instruction count.
pub const METHOD: u32 = 2;

fn first_method() -> u32 {
    1
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
    /// The collector's instructions per run, mean over the layouts (not fitted: a reading).
    #[serde(default)]
    pub gc_instructions_per_run: f64,
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

/// Counts every (task, size) not yet in `log` (`instructions.jsonl`), `WORKERS` binaries at
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
        .filter(|r| r.method == METHOD)
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
                            // Outside the collector a longer batch cannot execute fewer
                            // instructions; if it did, the count is not of runs.
                            if count.per_run() <= 0.0 {
                                outcome.failures.push(format!(
                                    "{} ({}) at size {size}, layout {}: batches of {} and {} runs differ by {} instructions outside the collector",
                                    task.program,
                                    task.compiler,
                                    task.layout,
                                    count.runs_low,
                                    count.runs_high,
                                    count.per_run() * (count.runs_high - count.runs_low) as f64
                                ));
                                continue;
                            }
                            let record = InstructionRecord {
                                program: task.program.clone(),
                                compiler: task.compiler.clone(),
                                size,
                                layout: task.layout,
                                instructions_per_run: count.per_run(),
                                gc_instructions_per_run: count.gc_per_run(),
                                runs_low: count.runs_low,
                                runs_high: count.runs_high,
                                total_low: count.total_low,
                                total_high: count.total_high,
                                gc_low: count.gc_low,
                                gc_high: count.gc_high,
                                method: METHOD,
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

/// One summary per (program, compiler, size): the mean over the layouts recorded by the
/// current [`METHOD`].
pub fn summarise(records: &[InstructionRecord]) -> Vec<InstructionSummary> {
    type Layouts = BTreeMap<u32, (f64, f64)>;
    let mut by_point: BTreeMap<(String, String, u64), Layouts> = BTreeMap::new();
    for r in records.iter().filter(|r| r.method == METHOD) {
        by_point
            .entry((r.program.clone(), r.compiler.clone(), r.size))
            .or_default()
            .insert(
                r.layout,
                (r.instructions_per_run, r.gc_instructions_per_run),
            );
    }
    by_point
        .into_iter()
        .map(|((program, compiler, size), layouts)| {
            let n = layouts.len() as f64;
            InstructionSummary {
                program,
                compiler,
                size,
                instructions_per_run: layouts.values().map(|l| l.0).sum::<f64>() / n,
                gc_instructions_per_run: layouts.values().map(|l| l.1).sum::<f64>() / n,
                layouts: layouts.into_iter().map(|(k, l)| (k, l.0)).collect(),
            }
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
            gc_instructions_per_run: 0.0,
            runs_low: 1,
            runs_high: 2,
            total_low: 0,
            total_high: 0,
            gc_low: 0,
            gc_high: 0,
            method: METHOD,
        }
    }

    #[test]
    fn summaries_average_layouts_and_a_torn_last_line_is_ignored() {
        let old = InstructionRecord {
            method: 1,
            ..record(2, 500.0)
        };
        let s = summarise(&[record(0, 100.0), record(1, 102.0), old]);
        assert_eq!(s.len(), 1);
        assert_eq!(
            s[0].instructions_per_run, 101.0,
            "method 1 is not averaged in"
        );
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("i.jsonl");
        let line = serde_json::to_string(&record(0, 1.0)).unwrap();
        std::fs::write(&log, format!("{line}\n{{\"prog")).unwrap();
        assert_eq!(read_records(&log).unwrap().len(), 1);
        std::fs::write(&log, format!("{{\"prog\n{line}\n")).unwrap();
        assert!(read_records(&log).is_err());
    }
}
