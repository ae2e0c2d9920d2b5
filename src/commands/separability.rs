//! What `mlcost gen` says about a suite before it is measured: can the regression separate
//! every construct? Counts every program with the interpreter at its sizes and reports rank,
//! condition number, aliased groups and the constructs that are hard to separate.

use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;
use training_gen::Manifest;

/// VIF above which a construct is reported as hard to separate.
const VIF_LIMIT: f64 = 10.0;

pub fn print_for_suite(suite: &Path, manifest: &Manifest) -> Result<fit::Separability> {
    let mut rows: Vec<(String, BTreeMap<String, f64>)> = Vec::new();
    for entry in &manifest.programs {
        let program = match semantics::Program::load(&suite.join(&entry.source)) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("mlcost: {}: not counted: {e}", entry.name);
                continue;
            }
        };
        for &size in &entry.sizes {
            match program.count(size as i64) {
                Ok(r) => rows.push((
                    entry.name.clone(),
                    r.counts.into_iter().map(|(k, v)| (k, v as f64)).collect(),
                )),
                Err(e) => eprintln!("mlcost: {} at size {size}: not counted: {e}", entry.name),
            }
        }
    }
    let s = fit::separability(&rows);
    println!(
        "design: {} points × {} constructs, rank {}{}, condition number {:.1}",
        s.points,
        s.constructs.len(),
        s.rank,
        if s.rank == s.constructs.len() {
            " (full)"
        } else {
            " (DEFICIENT)"
        },
        s.condition_number
    );
    for group in &s.aliased {
        println!("cannot be separated: {}", group.join(" ~ "));
    }
    let hard = s.hard_to_separate(VIF_LIMIT);
    if !hard.is_empty() {
        let listed: Vec<String> = hard
            .iter()
            .map(|(c, v)| format!("{c} (VIF {v:.1})"))
            .collect();
        println!("hard to separate: {}", listed.join(", "));
    }
    let catalogued: Vec<&str> = semantics::catalogue().iter().map(|c| c.name).collect();
    let unstressed: Vec<&str> = catalogued
        .iter()
        .copied()
        .filter(|c| !s.constructs.iter().any(|x| x == c))
        .collect();
    if !unstressed.is_empty() {
        println!(
            "never run by the suite (no cost will be learned): {}",
            unstressed.join(", ")
        );
    }
    Ok(s)
}
