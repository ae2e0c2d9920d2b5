//! Whether a suite can separate its constructs, from counts alone: what `mlcost gen` prints
//! before anything is measured. Each program's rows are divided by the program's total count
//! (a stand-in for its total time, which the fit will use), columns are scaled to unit norm,
//! and the same rank analysis as the fit names aliased groups and inflation factors.

use std::collections::{BTreeMap, BTreeSet};

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use crate::diagnostics::{RankAnalysis, RANK_TOLERANCE};
use crate::least_squares::FullFactorisation;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Separability {
    pub points: usize,
    pub constructs: Vec<String>,
    pub rank: usize,
    pub condition_number: f64,
    /// Groups of constructs the suite cannot tell apart.
    pub aliased: Vec<Vec<String>>,
    /// Variance inflation per construct (full rank only): above ~10, hard to separate.
    pub vif: BTreeMap<String, f64>,
}

impl Separability {
    /// Constructs whose VIF is above `limit`, worst first.
    pub fn hard_to_separate(&self, limit: f64) -> Vec<(String, f64)> {
        let mut hard: Vec<(String, f64)> = self
            .vif
            .iter()
            .filter(|(_, v)| **v > limit)
            .map(|(c, v)| (c.clone(), *v))
            .collect();
        hard.sort_by(|a, b| b.1.total_cmp(&a.1));
        hard
    }
}

/// `rows`: (program, counts per run) for every (program, size) of the suite.
pub fn separability(rows: &[(String, BTreeMap<String, f64>)]) -> Separability {
    let constructs: Vec<String> = rows
        .iter()
        .flat_map(|(_, counts)| {
            counts
                .iter()
                .filter(|(_, n)| **n > 0.0)
                .map(|(c, _)| c.clone())
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut program_total: BTreeMap<&str, f64> = BTreeMap::new();
    for (program, counts) in rows {
        *program_total.entry(program).or_default() += counts.values().sum::<f64>();
    }
    let p = constructs.len();
    let mut design = DMatrix::from_fn(rows.len(), p, |i, c| {
        let (program, counts) = &rows[i];
        counts.get(&constructs[c]).copied().unwrap_or(0.0)
            / program_total[program.as_str()].max(1e-300)
    });
    for mut column in design.column_iter_mut() {
        let norm = column.norm();
        if norm > 0.0 {
            column /= norm;
        }
    }
    let analysis = if rows.is_empty() || p == 0 {
        None
    } else {
        let factorisation = FullFactorisation::new(&design);
        Some(RankAnalysis::of_triangular(
            &factorisation.r,
            RANK_TOLERANCE,
        ))
    };
    match analysis {
        Some(a) => Separability {
            points: rows.len(),
            rank: a.rank,
            condition_number: a.condition_number(),
            aliased: a.aliased_names(&constructs),
            vif: a
                .variance_inflation
                .as_ref()
                .map(|v| constructs.iter().cloned().zip(v.iter().copied()).collect())
                .unwrap_or_default(),
            constructs,
        },
        None => Separability {
            points: rows.len(),
            rank: 0,
            condition_number: f64::INFINITY,
            aliased: Vec::new(),
            vif: BTreeMap::new(),
            constructs,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(program: &str, counts: &[(&str, f64)]) -> (String, BTreeMap<String, f64>) {
        (
            program.into(),
            counts.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
        )
    }

    #[test]
    fn constructs_always_run_together_are_named() {
        let rows = vec![
            row("a", &[("FunDef", 10.0), ("Closure", 10.0), ("IntAdd", 1.0)]),
            row("a", &[("FunDef", 20.0), ("Closure", 20.0), ("IntAdd", 5.0)]),
            row("b", &[("IntAdd", 30.0), ("FunDef", 1.0), ("Closure", 1.0)]),
        ];
        let s = separability(&rows);
        assert_eq!(s.rank, 2);
        assert_eq!(
            s.aliased,
            vec![vec!["Closure".to_string(), "FunDef".to_string()]]
        );
        assert!(s.condition_number.is_infinite());
    }

    #[test]
    fn a_separable_suite_has_full_rank_and_finite_vif() {
        let rows = vec![
            row("a", &[("FunDef", 10.0), ("Closure", 10.0)]),
            row("b", &[("FunDef", 10.0), ("Closure", 30.0)]),
            row("c", &[("IntAdd", 4.0), ("FunDef", 1.0)]),
        ];
        let s = separability(&rows);
        assert_eq!(s.rank, 3);
        assert!(s.aliased.is_empty());
        assert!(s.condition_number.is_finite() && s.vif.len() == 3);
    }
}
