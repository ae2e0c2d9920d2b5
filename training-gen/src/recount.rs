//! Recounting a measured suite with this mlcost's interpreter: new counts for the programs
//! that were timed, without building or timing again.
//!
//! A run's measurements outlive the counting rules that explained them: when mlcost's cost
//! semantics change (its catalogue fingerprint, [`semantics::catalogue_fingerprint`]), the
//! times are as good as ever but `counts.json` is the old interpreter's. Refitting those counts
//! under the new catalogue would mix two semantics, so `fit` refuses, and this recounts.
//!
//! A recount may only describe the code that was timed. So each program's source must still
//! hash to what was built (`source_sha256`), and at every size the new interpreter's result
//! digest must be the one recorded, which the native binary was checked against when it was
//! built. A program failing either keeps no counts (its points leave the fit) and is named.
//! The counts replaced are kept as `counts-previous.json`.

use crate::manifest::Manifest;
use crate::suite::{ProgramCounts, SuiteError};
use ocaml_runtime::build::source_hash;
use rayon::prelude::*;
use rundir::RunDir;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What a recount did.
#[derive(Debug, Clone, PartialEq)]
pub struct RecountOutcome {
    /// The catalogue the replaced counts came from (`None` for a run from before mlcost
    /// recorded it).
    pub previous_fingerprint: Option<String>,
    pub fingerprint: String,
    /// Points (program, size) counted again.
    pub points: usize,
    /// Points whose counts differ from the ones replaced.
    pub changed: usize,
    /// Constructs counted now and in none of the replaced counts, and the other way round.
    pub constructs_added: Vec<String>,
    pub constructs_removed: Vec<String>,
    /// Per construct, its count summed over all points, before and after, for those that
    /// moved: what the new semantics shifted between constructs.
    pub moved: Vec<ConstructTotal>,
    /// One line per program that keeps no counts, saying why.
    pub failures: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConstructTotal {
    pub construct: String,
    pub before: u64,
    pub after: u64,
}

/// Recounts every program of the suite at `suite` that has counts, at the sizes it was
/// counted at, calling `on_counted` with each program's name as it finishes (in parallel, in no
/// order). Writes the new `counts.json` and the manifest's `counted_by`.
pub fn recount_suite(
    suite: &Path,
    on_counted: &(dyn Fn(&str) + Sync),
) -> Result<RecountOutcome, SuiteError> {
    let run = RunDir::new(suite);
    let mut manifest = Manifest::load(suite)?;
    let previous: Vec<ProgramCounts> = rundir::read_json(&run.counts_file())?;
    let mut by_program: BTreeMap<&str, Vec<&ProgramCounts>> = BTreeMap::new();
    for row in &previous {
        by_program.entry(&row.program).or_default().push(row);
    }
    let to_count: Vec<_> = manifest
        .programs
        .iter()
        .filter_map(|entry| Some((entry, by_program.get(entry.name.as_str())?)))
        .collect();
    let recounted: Vec<Result<Vec<ProgramCounts>, String>> = to_count
        .par_iter()
        .map(|(entry, rows)| {
            let result = recount_program(suite, entry, rows);
            on_counted(&entry.name);
            result.map_err(|why| format!("{}: {why}", entry.name))
        })
        .collect();

    let mut counts = Vec::new();
    let mut failures = Vec::new();
    for result in recounted {
        match result {
            Ok(rows) => counts.extend(rows),
            Err(why) => failures.push(why),
        }
    }
    let outcome = summarise(&previous, &counts, manifest.counted_by.clone(), failures);
    rundir::write_json(&run.previous_counts_file(), &previous)?;
    rundir::write_json(&run.counts_file(), &counts)?;
    manifest.counted_by = Some(outcome.fingerprint.clone());
    manifest.save(suite)?;
    Ok(outcome)
}

fn recount_program(
    suite: &Path,
    entry: &crate::ProgramEntry,
    rows: &[&ProgramCounts],
) -> Result<Vec<ProgramCounts>, String> {
    let path = suite.join(&entry.source);
    let source = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    if source_hash(&source) != entry.source_sha256 {
        return Err(format!(
            "{} changed since it was built and timed: its counts would not describe the measured code",
            path.display()
        ));
    }
    let sizes: Vec<u64> = rows.iter().map(|r| r.size).collect();
    let results = semantics::Program::count_at_sizes(&path, &sizes)?;
    rows.iter()
        .zip(results)
        .map(|(old, new)| {
            if new.digest != old.digest {
                return Err(format!(
                    "at size {}, the interpreter's result is now digest {}, the one recorded (and checked against the native binary) was {}: this mlcost no longer computes what the binary did",
                    old.size, new.digest, old.digest
                ));
            }
            Ok(ProgramCounts {
                program: old.program.clone(),
                size: old.size,
                counts: new.counts,
                digest: new.digest,
            })
        })
        .collect()
}

fn summarise(
    previous: &[ProgramCounts],
    counts: &[ProgramCounts],
    previous_fingerprint: Option<String>,
    failures: Vec<String>,
) -> RecountOutcome {
    let old: BTreeMap<(&str, u64), &ProgramCounts> = previous
        .iter()
        .map(|r| ((r.program.as_str(), r.size), r))
        .collect();
    let changed = counts
        .iter()
        .filter(|r| {
            old.get(&(r.program.as_str(), r.size))
                .is_none_or(|o| o.counts != r.counts)
        })
        .count();
    let totals = |rows: &[ProgramCounts]| {
        let mut t: BTreeMap<String, u64> = BTreeMap::new();
        for r in rows {
            for (c, n) in &r.counts {
                *t.entry(c.clone()).or_default() += n;
            }
        }
        t
    };
    // Totals over the points counted now, so that a program that failed moves nothing.
    let kept: BTreeSet<(&str, u64)> = counts
        .iter()
        .map(|r| (r.program.as_str(), r.size))
        .collect();
    let previous_kept: Vec<ProgramCounts> = previous
        .iter()
        .filter(|r| kept.contains(&(r.program.as_str(), r.size)))
        .cloned()
        .collect();
    let (before, after) = (totals(&previous_kept), totals(counts));
    let names: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    let moved = names
        .into_iter()
        .filter_map(|c| {
            let (b, a) = (
                before.get(c).copied().unwrap_or(0),
                after.get(c).copied().unwrap_or(0),
            );
            (a != b).then(|| ConstructTotal {
                construct: c.clone(),
                before: b,
                after: a,
            })
        })
        .collect();
    let only = |x: &BTreeMap<String, u64>, y: &BTreeMap<String, u64>| {
        x.keys().filter(|c| !y.contains_key(*c)).cloned().collect()
    };
    RecountOutcome {
        previous_fingerprint,
        fingerprint: semantics::catalogue_fingerprint(),
        points: counts.len(),
        changed,
        constructs_added: only(&after, &before),
        constructs_removed: only(&before, &after),
        moved,
        failures,
    }
}
