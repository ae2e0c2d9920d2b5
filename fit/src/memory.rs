//! Bytes allocated per construct: words per run x word size, fitted like time.
//!
//! The rows are the time fit's rows (same design, same S_j), with bytes per run as the
//! response, so the QR factorisation of the time fit is reused. S_j of *time* is the normaliser
//! because it is positive for every program, including those that allocate nothing (their rows
//! are what pin most constructs' memory at 0). Allocation is deterministic, so any positive
//! weighting gives the same exact answer when the linear model holds.
//!
//! An OCaml block is whole words, and on x86-64 the answers are integers (Cons 24, FunDef 24,
//! Closure 8, the rest 0; paper §4). The model reports them rounded to whole bytes, and beside
//! them the raw estimates, each rounding residual, and how far the rounded model misses the
//! measured bytes: a large residual says the rounding hides something real.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::design::Design;
use crate::error::FitError;
use crate::input::Observation;
use crate::least_squares::FullFactorisation;

/// The unrounded memory fit, stored beside the rounded `memory_bytes`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryFit {
    pub word_size_bytes: u32,
    /// Construct -> least-squares bytes per occurrence before rounding.
    pub raw_bytes: BTreeMap<String, f64>,
    /// Construct -> raw − rounded.
    pub rounding_residual: BTreeMap<String, f64>,
    /// Largest |raw − rounded| over constructs.
    pub max_abs_rounding_residual: f64,
    /// Largest |measured − predicted| bytes per run over points, predicting with the rounded
    /// values: 0 when the rounded model reproduces every measurement.
    pub max_abs_error_bytes_per_run: f64,
}

/// Fits bytes per construct. Returns the rounded values and the fit behind them.
pub(crate) fn fit_memory(
    design: &Design,
    factorisation: &FullFactorisation,
    observations: &[Observation],
    word_size_bytes: u32,
) -> Result<(BTreeMap<String, i64>, MemoryFit), FitError> {
    let bytes_per_run: Vec<f64> = observations
        .iter()
        .map(|observation| observation.words_per_run * f64::from(word_size_bytes))
        .collect();
    let response = design.normalise(|row| bytes_per_run[row]);
    let solution = factorisation
        .r
        .solve_upper_triangular(&factorisation.project(&response))
        .ok_or_else(|| FitError::Numerical {
            method: "memory".into(),
            reason: "the triangular factor is singular".into(),
        })?;
    let raw = design.to_costs(&solution);
    let rounded: Vec<f64> = raw.iter().map(|value| value.round()).collect();
    let predicted = design.predict_rows(&rounded);
    let max_abs_error_bytes_per_run = bytes_per_run
        .iter()
        .zip(predicted.iter())
        .map(|(measured, predicted)| (measured - predicted).abs())
        .fold(0.0, f64::max);

    let mut memory_bytes = BTreeMap::new();
    let mut raw_bytes = BTreeMap::new();
    let mut rounding_residual = BTreeMap::new();
    for ((construct, raw), rounded) in design.constructs.iter().zip(&raw).zip(&rounded) {
        // Rounded values are whole numbers of bytes far inside i64's range.
        memory_bytes.insert(construct.clone(), *rounded as i64);
        raw_bytes.insert(construct.clone(), *raw);
        rounding_residual.insert(construct.clone(), raw - rounded);
    }
    let max_abs_rounding_residual = rounding_residual
        .values()
        .map(|residual| residual.abs())
        .fold(0.0, f64::max);
    Ok((
        memory_bytes,
        MemoryFit {
            word_size_bytes,
            raw_bytes,
            rounding_residual,
            max_abs_rounding_residual,
            max_abs_error_bytes_per_run,
        },
    ))
}
