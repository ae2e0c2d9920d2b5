//! The design matrix: the paper's normalised rows, column-scaled for the solvers.
//!
//! Row i of program j is `n_c(i) / S_j` with response `T_i / S_j`, where S_j is the sum of
//! program j's measured times (paper §2). Dividing by S_j makes each program weigh the same
//! whatever its run time, which is what a multiplicative error calls for.
//!
//! The solvers see one more transformation: every column divided by its Euclidean norm. Counts
//! span six orders of magnitude (`Base` is 1 per run, `FunApp` 10^5), and unscaled columns
//! would make rank decisions and pivots depend on units rather than on the suite. The scaled
//! solution `x_s` maps back to costs as `T_c = x_s[c] / column_norm[c]`.

use std::collections::{BTreeMap, BTreeSet};

use nalgebra::{DMatrix, DVector};

use crate::error::FitError;
use crate::input::Observation;

/// The normalised, column-scaled regression problem built from the observations.
#[derive(Debug, Clone)]
pub(crate) struct Design {
    /// Column names: every construct counted (> 0) in at least one observation, sorted.
    pub constructs: Vec<String>,
    /// Program names in order of first appearance.
    pub programs: Vec<String>,
    /// Program index of each row (rows are in observation order).
    pub row_program: Vec<usize>,
    /// Row indices of each program.
    pub program_rows: Vec<Vec<usize>>,
    /// S_j: the sum of each program's layout-averaged times.
    pub program_total_ns: Vec<f64>,
    /// Raw counts per run, rows x constructs (for predictions in nanoseconds).
    pub counts: DMatrix<f64>,
    /// Norm of each normalised column `n_c / S_j` (the scaling undone by `to_costs`).
    pub column_norms: Vec<f64>,
    /// Normalised and column-scaled design: `n_c / S_j / column_norm_c`.
    pub scaled: DMatrix<f64>,
    /// Normalised time response `T_i / S_j`.
    pub response: DVector<f64>,
    /// Per row, each code layout's time divided by the mean over layouts (at least one entry).
    pub layout_ratios: Vec<Vec<f64>>,
}

impl Design {
    pub fn build(observations: &[Observation]) -> Result<Design, FitError> {
        let constructs: Vec<String> = observations
            .iter()
            .flat_map(|observation| observation.counts.iter())
            .filter(|(_, count)| **count > 0.0)
            .map(|(construct, _)| construct.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if constructs.is_empty() {
            return Err(FitError::NoConstructs);
        }
        if observations.len() <= constructs.len() {
            return Err(FitError::TooFewPoints {
                points: observations.len(),
                constructs: constructs.len(),
            });
        }

        let mut programs: Vec<String> = Vec::new();
        let mut program_index: BTreeMap<&str, usize> = BTreeMap::new();
        let mut row_program = Vec::with_capacity(observations.len());
        for observation in observations {
            let index = *program_index
                .entry(observation.program.as_str())
                .or_insert_with(|| {
                    programs.push(observation.program.clone());
                    programs.len() - 1
                });
            row_program.push(index);
        }
        let mut program_rows = vec![Vec::new(); programs.len()];
        let mut program_total_ns = vec![0.0; programs.len()];
        for (row, (&program, observation)) in row_program.iter().zip(observations).enumerate() {
            program_rows[program].push(row);
            program_total_ns[program] += observation.ns_per_run;
        }

        let counts = DMatrix::from_fn(observations.len(), constructs.len(), |row, column| {
            observations[row]
                .counts
                .get(&constructs[column])
                .copied()
                .unwrap_or(0.0)
        });
        let mut scaled = DMatrix::from_fn(counts.nrows(), counts.ncols(), |row, column| {
            counts[(row, column)] / program_total_ns[row_program[row]]
        });
        let column_norms: Vec<f64> = scaled.column_iter().map(|column| column.norm()).collect();
        for (mut column, norm) in scaled.column_iter_mut().zip(&column_norms) {
            column /= *norm;
        }
        let response = DVector::from_fn(observations.len(), |row, _| {
            observations[row].ns_per_run / program_total_ns[row_program[row]]
        });
        let layout_ratios = observations.iter().map(layout_ratios_of).collect();

        Ok(Design {
            constructs,
            programs,
            row_program,
            program_rows,
            program_total_ns,
            counts,
            column_norms,
            scaled,
            response,
            layout_ratios,
        })
    }

    pub fn rows(&self) -> usize {
        self.scaled.nrows()
    }

    pub fn columns(&self) -> usize {
        self.scaled.ncols()
    }

    /// Normalises a per-row quantity the way the time response is (divided by S_j).
    pub fn normalise(&self, per_row: impl Fn(usize) -> f64) -> DVector<f64> {
        DVector::from_fn(self.rows(), |row, _| {
            per_row(row) / self.program_total_ns[self.row_program[row]]
        })
    }

    /// Maps a solution of the scaled problem back to per-construct costs.
    pub fn to_costs(&self, scaled_solution: &DVector<f64>) -> Vec<f64> {
        scaled_solution
            .iter()
            .zip(&self.column_norms)
            .map(|(value, norm)| value / norm)
            .collect()
    }

    /// Predicted per-run quantity of each row from per-construct costs.
    pub fn predict_rows(&self, costs: &[f64]) -> DVector<f64> {
        &self.counts * DVector::from_column_slice(costs)
    }

    /// The scaled design restricted to some rows (in the given order).
    pub fn scaled_rows(&self, rows: &[usize]) -> DMatrix<f64> {
        DMatrix::from_fn(rows.len(), self.columns(), |row, column| {
            self.scaled[(rows[row], column)]
        })
    }
}

fn layout_ratios_of(observation: &Observation) -> Vec<f64> {
    let layouts = &observation.ns_per_run_layouts;
    if layouts.is_empty() {
        return vec![1.0];
    }
    let mean = layouts.iter().sum::<f64>() / layouts.len() as f64;
    layouts.iter().map(|ns| ns / mean).collect()
}
