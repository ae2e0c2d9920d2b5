//! Running a benchmark binary under callgrind and reading the instructions of each batch.

use crate::{InstructionError, PointCount};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The prefix of the driver's batch function; `ocamlopt` appends a stamp that differs between
/// compilers, so the exact name is read from the binary's symbols.
const BATCH_SYMBOL: &str = "camlMlcost_driver__batch_";

/// The valgrind found on `PATH`, with its version for the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Valgrind {
    pub path: PathBuf,
    pub version: String,
}

/// valgrind as found on `PATH`, or `None` when it is not installed (the metric is then
/// skipped, and the caller says so).
pub fn available() -> Option<Valgrind> {
    let out = Command::new("valgrind").arg("--version").output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(Valgrind {
        path: PathBuf::from("valgrind"),
        version: String::from_utf8_lossy(&out.stdout).trim().to_string(),
    })
}

/// The driver's batch function in `binary`, e.g. `camlMlcost_driver__batch_463`.
pub fn batch_symbol(binary: &Path) -> Result<String, InstructionError> {
    let error = |message: String| InstructionError::Run {
        binary: binary.display().to_string(),
        message,
    };
    let out = Command::new("nm")
        .arg(binary)
        .output()
        .map_err(|e| error(format!("cannot run nm: {e}")))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .find(|name| name.starts_with(BATCH_SYMBOL))
        .map(str::to_string)
        .ok_or_else(|| {
            error(format!(
                "no {BATCH_SYMBOL}* symbol: built with an older driver? (rebuild the run)"
            ))
        })
}

/// Counts, in one valgrind process, the instructions of `runs` and `2·runs` runs at each
/// `(size, runs)` of `plan`: the session is `size N`, `batch K`, `batch 2K` per point, then
/// `quit`. Callgrind collects only inside the driver's batch function and writes one profile
/// as each batch returns, so start-up and input construction are never counted and one
/// process serves every size.
pub fn count_batches(
    valgrind: &Valgrind,
    binary: &Path,
    plan: &[(u64, u64)],
) -> Result<Vec<PointCount>, InstructionError> {
    let error = |message: String| InstructionError::Run {
        binary: binary.display().to_string(),
        message,
    };
    let symbol = batch_symbol(binary)?;
    let out_dir = tempfile::tempdir().map_err(|e| error(format!("temporary directory: {e}")))?;
    let out_file = out_dir.path().join("callgrind.out");
    let mut child = Command::new(&valgrind.path)
        .args([
            "--tool=callgrind",
            "--collect-atstart=no",
            &format!("--toggle-collect={symbol}"),
            &format!("--dump-after={symbol}"),
        ])
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| error(format!("cannot start valgrind: {e}")))?;
    let mut script = String::new();
    for (size, runs) in plan {
        script.push_str(&format!("size {size}\nbatch {runs}\nbatch {}\n", 2 * runs));
    }
    script.push_str("quit\n");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(script.as_bytes())
        .map_err(|e| error(format!("writing to the driver: {e}")))?;
    let out = child
        .wait_with_output()
        .map_err(|e| error(format!("waiting for valgrind: {e}")))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let samples = stdout.lines().filter(|l| l.starts_with("sample ")).count();
    if !out.status.success() || samples != 2 * plan.len() {
        let tail = stdout
            .lines()
            .filter(|l| l.starts_with("error"))
            .chain(stderr.lines().rev().take(4))
            .collect::<Vec<_>>()
            .join("\n");
        return Err(error(format!(
            "the driver under valgrind answered {samples} of {} batches ({}):\n{tail}",
            2 * plan.len(),
            out.status
        )));
    }
    // Dump i (1-based) is the i-th batch to return.
    let mut totals = Vec::with_capacity(2 * plan.len());
    for i in 1..=2 * plan.len() {
        let path = PathBuf::from(format!("{}.{i}", out_file.display()));
        let text = std::fs::read_to_string(&path)
            .map_err(|e| error(format!("{}: {e}", path.display())))?;
        totals.push(
            parse_summary(&text)
                .ok_or_else(|| error(format!("{}: no `summary:` line", path.display())))?,
        );
    }
    Ok(plan
        .iter()
        .zip(totals.chunks(2))
        .map(|(&(_, runs), pair)| PointCount {
            runs_low: runs,
            runs_high: 2 * runs,
            total_low: pair[0],
            total_high: pair[1],
        })
        .collect())
}

/// The instruction total of a callgrind profile (`summary: 1234567`).
pub fn parse_summary(profile: &str) -> Option<u64> {
    profile.lines().find_map(|line| {
        line.strip_prefix("summary:")?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_total_of_a_callgrind_profile() {
        let profile = "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nsummary: 1805473\ntotals: 1805473\n";
        assert_eq!(parse_summary(profile), Some(1_805_473));
        assert_eq!(parse_summary("events: Ir\n"), None);
    }
}
