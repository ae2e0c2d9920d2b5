//! # history
//!
//! Every mlcost run, kept for months of nightly jobs in one embedded SQLite file (default
//! `mlcost-out/history.sqlite`): when and where it ran, each compiler (version, flags,
//! `-config`), each fitted constant with its interval per method, the memory constants and
//! the validation summary. Recording a run directory twice replaces its rows, so a re-fitted
//! run never counts double. Queries give the runs on record and, per construct, its cost
//! across runs, one series per compiler — the data of the trend page.

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("{path}: {source}")]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// One fitted constant of one compiler and method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Constant {
    pub compiler: String,
    pub method: String,
    pub construct: String,
    pub estimate: f64,
    pub ci_low: f64,
    pub ci_high: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompilerRun {
    pub name: String,
    pub version: String,
    pub flags: String,
    pub config: serde_json::Value,
}

/// Instructions per occurrence of one construct, fitted on instruction counts (no interval:
/// the counts do not move between runs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstructionConstant {
    pub compiler: String,
    pub method: String,
    pub construct: String,
    pub instructions: f64,
}

/// One method's validation summary for one compiler.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidationRow {
    pub compiler: String,
    pub method: String,
    pub error_no_gc_pct: Option<f64>,
    pub error_gc_pct: Option<f64>,
    pub layout_spread_pct: f64,
}

/// Everything recorded about a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub run_dir: String,
    pub started_unix: u64,
    pub mlcost_version: String,
    pub machine: serde_json::Value,
    pub compilers: Vec<CompilerRun>,
    pub constants: Vec<Constant>,
    /// (compiler, construct, bytes)
    pub memory: Vec<(String, String, i64)>,
    pub validation: Vec<ValidationRow>,
    /// Instructions per construct, beside the time constants (empty without valgrind).
    #[serde(default)]
    pub instructions: Vec<InstructionConstant>,
}

/// A run as listed by `mlcost history`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRow {
    pub id: i64,
    pub run_dir: String,
    pub started_unix: u64,
    pub compilers: Vec<String>,
    pub constants: usize,
    /// Instruction constants recorded (0: the run did not count instructions).
    #[serde(default)]
    pub instruction_constants: usize,
}

/// One point of a construct's trend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrendPoint {
    pub run_id: i64,
    pub run_dir: String,
    pub started_unix: u64,
    pub compiler: String,
    pub version: String,
    pub estimate: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// Instructions per occurrence by the same method and compiler, when the run counted
    /// them: the trend of the metric that does not move with the machine.
    #[serde(default)]
    pub instructions: Option<f64>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  run_dir TEXT NOT NULL UNIQUE,
  started_unix INTEGER NOT NULL,
  mlcost_version TEXT NOT NULL,
  machine TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS compilers (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name TEXT NOT NULL, version TEXT NOT NULL, flags TEXT NOT NULL, config TEXT NOT NULL,
  PRIMARY KEY (run_id, name)
);
CREATE TABLE IF NOT EXISTS constants (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  compiler TEXT NOT NULL, method TEXT NOT NULL, construct TEXT NOT NULL,
  estimate REAL NOT NULL, ci_low REAL NOT NULL, ci_high REAL NOT NULL,
  PRIMARY KEY (run_id, compiler, method, construct)
);
CREATE TABLE IF NOT EXISTS memory (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  compiler TEXT NOT NULL, construct TEXT NOT NULL, bytes INTEGER NOT NULL,
  PRIMARY KEY (run_id, compiler, construct)
);
CREATE TABLE IF NOT EXISTS validation (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  compiler TEXT NOT NULL, method TEXT NOT NULL,
  error_no_gc_pct REAL, error_gc_pct REAL, layout_spread_pct REAL NOT NULL,
  PRIMARY KEY (run_id, compiler, method)
);
CREATE TABLE IF NOT EXISTS instruction_constants (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  compiler TEXT NOT NULL, method TEXT NOT NULL, construct TEXT NOT NULL,
  instructions REAL NOT NULL,
  PRIMARY KEY (run_id, compiler, method, construct)
);
CREATE INDEX IF NOT EXISTS constants_by_construct ON constants(construct, method);
";

pub struct History {
    path: PathBuf,
    conn: Connection,
}

impl History {
    /// Opens (creating if needed) the history at `path`.
    pub fn open(path: &Path) -> Result<History, HistoryError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| HistoryError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let conn = Connection::open(path).map_err(|source| HistoryError::Sqlite {
            path: path.to_path_buf(),
            source,
        })?;
        let history = History {
            path: path.to_path_buf(),
            conn,
        };
        history
            .conn
            .execute_batch(&format!(
                "PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 10000; {SCHEMA}"
            ))
            .map_err(|e| history.err(e))?;
        Ok(history)
    }

    fn err(&self, source: rusqlite::Error) -> HistoryError {
        HistoryError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// Records a run (replacing an earlier record of the same run directory); returns its id.
    pub fn record(&mut self, run: &RunRecord) -> Result<i64, HistoryError> {
        let path = self.path.clone();
        let err = |source| HistoryError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(err)?;
        tx.execute("DELETE FROM runs WHERE run_dir = ?1", params![run.run_dir])
            .map_err(err)?;
        tx.execute(
            "INSERT INTO runs (run_dir, started_unix, mlcost_version, machine) VALUES (?1, ?2, ?3, ?4)",
            params![run.run_dir, run.started_unix as i64, run.mlcost_version, run.machine.to_string()],
        )
        .map_err(err)?;
        let id = tx.last_insert_rowid();
        for c in &run.compilers {
            tx.execute(
                "INSERT INTO compilers (run_id, name, version, flags, config) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, c.name, c.version, c.flags, c.config.to_string()],
            )
            .map_err(err)?;
        }
        for k in &run.constants {
            tx.execute(
                "INSERT INTO constants VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    id,
                    k.compiler,
                    k.method,
                    k.construct,
                    k.estimate,
                    k.ci_low,
                    k.ci_high
                ],
            )
            .map_err(err)?;
        }
        for (compiler, construct, bytes) in &run.memory {
            tx.execute(
                "INSERT INTO memory VALUES (?1, ?2, ?3, ?4)",
                params![id, compiler, construct, bytes],
            )
            .map_err(err)?;
        }
        for v in &run.validation {
            tx.execute(
                "INSERT INTO validation VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    id,
                    v.compiler,
                    v.method,
                    v.error_no_gc_pct,
                    v.error_gc_pct,
                    v.layout_spread_pct
                ],
            )
            .map_err(err)?;
        }
        for k in &run.instructions {
            tx.execute(
                "INSERT INTO instruction_constants VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, k.compiler, k.method, k.construct, k.instructions],
            )
            .map_err(err)?;
        }
        tx.commit().map_err(err)?;
        Ok(id)
    }

    /// Instructions per occurrence of `construct` by `method` in every run that counted them,
    /// oldest first: (run id, compiler, instructions).
    pub fn instruction_trend(
        &self,
        construct: &str,
        method: &str,
    ) -> Result<Vec<(i64, String, f64)>, HistoryError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT r.id, k.compiler, k.instructions
                 FROM instruction_constants k JOIN runs r ON r.id = k.run_id
                 WHERE k.construct = ?1 AND k.method = ?2
                 ORDER BY r.started_unix, r.id, k.compiler",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![construct, method], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Every run on record, oldest first.
    pub fn runs(&self) -> Result<Vec<RunRow>, HistoryError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT r.id, r.run_dir, r.started_unix,
                        (SELECT group_concat(name, ',') FROM compilers c WHERE c.run_id = r.id),
                        (SELECT count(*) FROM constants k WHERE k.run_id = r.id),
                        (SELECT count(*) FROM instruction_constants k WHERE k.run_id = r.id)
                 FROM runs r ORDER BY r.started_unix, r.id",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |row| {
                let compilers: Option<String> = row.get(3)?;
                Ok(RunRow {
                    id: row.get(0)?,
                    run_dir: row.get(1)?,
                    started_unix: row.get::<_, i64>(2)? as u64,
                    compilers: compilers
                        .map(|c| c.split(',').map(str::to_string).collect())
                        .unwrap_or_default(),
                    constants: row.get::<_, i64>(4)? as usize,
                    instruction_constants: row.get::<_, i64>(5)? as usize,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// The cost of `construct` by `method` in every run, oldest first, each compiler apart.
    pub fn trend(&self, construct: &str, method: &str) -> Result<Vec<TrendPoint>, HistoryError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT r.id, r.run_dir, r.started_unix, k.compiler, c.version, k.estimate, k.ci_low, k.ci_high, i.instructions
                 FROM constants k JOIN runs r ON r.id = k.run_id
                 JOIN compilers c ON c.run_id = k.run_id AND c.name = k.compiler
                 LEFT JOIN instruction_constants i ON i.run_id = k.run_id
                   AND i.compiler = k.compiler AND i.construct = k.construct AND i.method = k.method
                 WHERE k.construct = ?1 AND k.method = ?2
                 ORDER BY r.started_unix, r.id, k.compiler",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![construct, method], |row| {
                Ok(TrendPoint {
                    run_id: row.get(0)?,
                    run_dir: row.get(1)?,
                    started_unix: row.get::<_, i64>(2)? as u64,
                    compiler: row.get(3)?,
                    version: row.get(4)?,
                    estimate: row.get(5)?,
                    ci_low: row.get(6)?,
                    ci_high: row.get(7)?,
                    instructions: row.get(8)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// Constructs with at least one recorded constant, sorted.
    pub fn constructs(&self) -> Result<Vec<String>, HistoryError> {
        let mut stmt = self
            .conn
            .prepare("SELECT DISTINCT construct FROM constants ORDER BY construct")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |row| row.get(0))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// The id of a recorded run directory, if any.
    pub fn run_id(&self, run_dir: &str) -> Result<Option<i64>, HistoryError> {
        self.conn
            .query_row(
                "SELECT id FROM runs WHERE run_dir = ?1",
                params![run_dir],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(dir: &str, when: u64, funapp: f64) -> RunRecord {
        RunRecord {
            run_dir: dir.into(),
            started_unix: when,
            mlcost_version: "0.1.0".into(),
            machine: serde_json::json!({"cpu_model": "test"}),
            compilers: vec![
                CompilerRun {
                    name: "4.13".into(),
                    version: "4.13.1".into(),
                    flags: "-inline 0".into(),
                    config: serde_json::json!({}),
                },
                CompilerRun {
                    name: "4.11".into(),
                    version: "4.11.1".into(),
                    flags: "-inline 0".into(),
                    config: serde_json::json!({}),
                },
            ],
            constants: ["4.13", "4.11"]
                .iter()
                .flat_map(|c| {
                    [("FunApp", funapp), ("IntAdd", 0.3)].map(|(k, v)| Constant {
                        compiler: c.to_string(),
                        method: "ls".into(),
                        construct: k.into(),
                        estimate: v,
                        ci_low: v * 0.9,
                        ci_high: v * 1.1,
                    })
                })
                .collect(),
            memory: vec![("4.13".into(), "Cons".into(), 24)],
            validation: vec![ValidationRow {
                compiler: "4.13".into(),
                method: "ls".into(),
                error_no_gc_pct: Some(13.0),
                error_gc_pct: None,
                layout_spread_pct: 9.0,
            }],
            instructions: vec![InstructionConstant {
                compiler: "4.13".into(),
                method: "ls".into(),
                construct: "FunApp".into(),
                instructions: 4.0 + funapp,
            }],
        }
    }

    #[test]
    fn three_runs_give_three_points_per_construct_and_compiler() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("h/history.sqlite");
        let mut h = History::open(&path).unwrap();
        for (i, dir) in ["a", "b", "c"].iter().enumerate() {
            h.record(&run(dir, 100 + i as u64, 1.0 + i as f64)).unwrap();
        }
        drop(h);
        let h = History::open(&path).unwrap();
        assert_eq!(h.runs().unwrap().len(), 3);
        let trend = h.trend("FunApp", "ls").unwrap();
        assert_eq!(trend.iter().filter(|p| p.compiler == "4.13").count(), 3);
        let instructions = h.instruction_trend("FunApp", "ls").unwrap();
        let counts: Vec<f64> = instructions.iter().map(|(_, _, i)| *i).collect();
        assert_eq!(counts, vec![5.0, 6.0, 7.0]);
        assert_eq!(trend.iter().filter(|p| p.compiler == "4.11").count(), 3);
        let series: Vec<f64> = trend
            .iter()
            .filter(|p| p.compiler == "4.13")
            .map(|p| p.estimate)
            .collect();
        assert_eq!(series, vec![1.0, 2.0, 3.0]);
        // Both metrics side by side in one trend: instructions where the run counted them.
        let both: Vec<Option<f64>> = trend.iter().map(|p| p.instructions).collect();
        assert_eq!(
            both,
            vec![None, Some(5.0), None, Some(6.0), None, Some(7.0)],
            "4.11 before 4.13 in each run; only 4.13 counted instructions"
        );
        assert!(h
            .runs()
            .unwrap()
            .iter()
            .all(|r| r.instruction_constants == 1));
        assert_eq!(h.constructs().unwrap(), vec!["FunApp", "IntAdd"]);
    }

    #[test]
    fn recording_a_run_again_replaces_it() {
        let tmp = tempfile::tempdir().unwrap();
        let mut h = History::open(&tmp.path().join("h.sqlite")).unwrap();
        h.record(&run("a", 1, 1.0)).unwrap();
        h.record(&run("a", 1, 5.0)).unwrap();
        assert_eq!(h.runs().unwrap().len(), 1);
        let trend = h.trend("FunApp", "ls").unwrap();
        assert_eq!(trend.len(), 2);
        assert!(trend.iter().all(|p| p.estimate == 5.0));
    }

    #[test]
    fn an_unwritable_history_is_an_error_naming_the_path() {
        let err = History::open(Path::new("/proc/no/such/dir/h.sqlite"))
            .err()
            .expect("fails");
        assert!(err.to_string().contains("/proc/no/such/dir"), "{err}");
    }
}
