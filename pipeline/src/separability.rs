//! Whether a generated suite can separate its constructs, before anything is measured: every
//! program counted at its sizes, and the fit's rank analysis of those counts.

use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use training_gen::Manifest;

/// VIF above which a construct is reported as hard to separate.
pub const VIF_LIMIT: f64 = 10.0;

#[derive(Debug, Serialize)]
pub struct SuiteSeparability {
    #[serde(flatten)]
    pub separability: fit::Separability,
    /// Constructs whose VIF is above [`VIF_LIMIT`], worst first.
    pub hard_to_separate: Vec<(String, f64)>,
    /// Catalogue constructs no program runs: no cost will be learned for them.
    pub unstressed: Vec<String>,
    /// Programs the interpreter could not count, with the reason.
    pub not_counted: Vec<String>,
}

pub fn suite_separability(suite: &Path, manifest: &Manifest) -> SuiteSeparability {
    let mut rows: Vec<(String, BTreeMap<String, f64>)> = Vec::new();
    let mut not_counted = Vec::new();
    for entry in &manifest.programs {
        match semantics::Program::count_at_sizes(&suite.join(&entry.source), &entry.sizes) {
            Ok(results) => rows.extend(results.into_iter().map(|r| {
                (
                    entry.name.clone(),
                    r.counts.into_iter().map(|(k, v)| (k, v as f64)).collect(),
                )
            })),
            Err(e) => not_counted.push(format!("{}: not counted: {e}", entry.name)),
        }
    }
    let separability = fit::separability(&rows);
    let unstressed = semantics::catalogue()
        .iter()
        .map(|c| c.name)
        .filter(|c| !separability.constructs.iter().any(|x| x == c))
        .map(str::to_string)
        .collect();
    SuiteSeparability {
        hard_to_separate: separability.hard_to_separate(VIF_LIMIT),
        separability,
        unstressed,
        not_counted,
    }
}
