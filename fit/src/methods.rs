//! Runs the selected methods: once on the full data, then many times on reweighted data
//! (bootstrap resamples, left-out programs), reusing what the full fit learned.
//!
//! All solutions here are in scaled units (see `design`); `Design::to_costs` maps them back.

use std::collections::{BTreeMap, BTreeSet};

use nalgebra::{DMatrix, DVector};

use crate::design::Design;
use crate::error::FitError;
use crate::input::Method;
use crate::least_absolute::{self, LadFailure, Start};
use crate::least_squares::{FullFactorisation, WeightedNormalEquations};
use crate::nonnegative;

/// What reweighted fits reuse from the full data's fits.
#[derive(Debug, Clone, Default)]
pub(crate) struct WarmStart {
    /// The full data's optimal L1 vertex, from which reweighted L1 fits start.
    pub l1_vertex: Option<L1Vertex>,
    /// Which constants the full data's NNLS held at 0: tried first as a reweighted fit's
    /// active set (see `nonnegative::solve_on_active_set`).
    pub nnls_at_zero: Option<Vec<bool>>,
    /// The full data's robust weight of each row in NNLS ([`huber_weights`]): a reweighted
    /// fit multiplies its own weights by them.
    pub nnls_weights: Option<Vec<f64>>,
}

/// Huber's tuning constant, in robust standard deviations of the residuals: rows within it
/// weigh fully, rows beyond it in inverse proportion to their residual (95% efficiency when
/// the residuals are normal).
pub(crate) const HUBER_K: f64 = 1.345;

/// Rounds of reweighting NNLS (it settles in a few).
const ROBUST_ROUNDS: usize = 20;

/// Huber weights of `residuals`: 1 within [`HUBER_K`] robust standard deviations (1.4826 × the
/// median absolute residual), `k·s/|r|` beyond. All 1 when the residuals are all (nearly) 0.
pub(crate) fn huber_weights(residuals: &DVector<f64>) -> Vec<f64> {
    let mut absolute: Vec<f64> = residuals.iter().map(|r| r.abs()).collect();
    absolute.sort_by(f64::total_cmp);
    let median = if absolute.is_empty() {
        0.0
    } else if absolute.len() % 2 == 1 {
        absolute[absolute.len() / 2]
    } else {
        (absolute[absolute.len() / 2 - 1] + absolute[absolute.len() / 2]) / 2.0
    };
    let bound = HUBER_K * 1.4826 * median;
    residuals
        .iter()
        .map(|r| {
            if bound <= 0.0 || r.abs() <= bound {
                1.0
            } else {
                bound / r.abs()
            }
        })
        .collect()
}

/// NNLS with Huber weights, by iteratively reweighted least squares from the plain NNLS
/// solution: a few programs whose time the constructs cannot express (a call that costs a
/// third of the others in one template's context) would otherwise set every price, and with
/// relative residuals an overprediction weighs without bound where an underprediction stops
/// at −100%, which biases the plain fit low. Returns the solution and the final weights.
fn robust_nonnegative(design: &Design, start: DVector<f64>) -> (DVector<f64>, Vec<f64>) {
    let mut solution = start;
    let mut weights = vec![1.0; design.rows()];
    for _ in 0..ROBUST_ROUNDS {
        let residuals = &design.scaled * &solution - &design.response;
        let next = huber_weights(&residuals);
        let settled = next.iter().zip(&weights).all(|(a, b)| (a - b).abs() < 1e-6);
        weights = next;
        if settled {
            break;
        }
        let Some(refit) = WeightedNormalEquations::new(&design.scaled, &weights, &design.response)
            .and_then(|normal| nonnegative::solve(&normal.lower.transpose(), &normal.projected))
        else {
            break;
        };
        solution = refit;
    }
    (solution, weights)
}

#[derive(Debug, Clone)]
pub(crate) struct L1Vertex {
    pub basis: Vec<usize>,
    pub basis_inverse: DMatrix<f64>,
}

/// Solutions of the selected methods on the full data.
#[derive(Debug, Clone)]
pub(crate) struct FullFits {
    pub solutions: BTreeMap<Method, DVector<f64>>,
    /// Classical standard errors of the LS solution (scaled units), when LS was selected.
    pub ls_standard_errors: Option<DVector<f64>>,
    pub warm_start: WarmStart,
}

pub(crate) fn fit_full(
    design: &Design,
    factorisation: &FullFactorisation,
    methods: &BTreeSet<Method>,
) -> Result<FullFits, FitError> {
    // LS is always solved: it is L1's starting point and costs one triangular solve.
    let least_squares = factorisation
        .least_squares(&design.scaled, &design.response)
        .ok_or_else(|| numerical(Method::Ls, "the triangular factor is singular".into()))?;
    let mut solutions = BTreeMap::new();
    let mut warm_start = WarmStart::default();
    if methods.contains(&Method::L1) {
        let weights = vec![1.0; design.rows()];
        let solve = |response: &DVector<f64>| {
            least_absolute::solve(
                &design.scaled,
                response,
                &weights,
                Start::NearFit(&least_squares.solution),
            )
        };
        // A degenerate vertex (many rows that fit exactly at once, as deterministic instruction
        // counts do) can make the simplex refactorise a singular basis. A perturbation far
        // below any measurement's precision breaks the tie; the minimiser moves by as little.
        let mut first_failure = None;
        let mut found = None;
        for relative in [0.0, 1e-9, 1e-7, 1e-5] {
            match solve(&break_ties(&design.response, relative)) {
                Ok(solution) => {
                    found = Some(solution);
                    break;
                }
                Err(failure) => {
                    first_failure.get_or_insert(failure);
                }
            }
        }
        let solution = found.ok_or_else(|| {
            numerical(
                Method::L1,
                describe(first_failure.unwrap_or(LadFailure::SingularBasis)),
            )
        })?;
        warm_start.l1_vertex = Some(L1Vertex {
            basis: solution.basis,
            basis_inverse: solution.basis_inverse,
        });
        solutions.insert(Method::L1, solution.coefficients);
    }
    if methods.contains(&Method::Nnls) {
        let plain = nonnegative::solve(&factorisation.r, &factorisation.project(&design.response))
            .ok_or_else(|| numerical(Method::Nnls, "the active-set solver gave up".into()))?;
        let (solution, weights) = robust_nonnegative(design, plain);
        warm_start.nnls_at_zero = Some(solution.iter().map(|value| *value == 0.0).collect());
        warm_start.nnls_weights = Some(weights);
        solutions.insert(Method::Nnls, solution);
    }
    let ls_standard_errors = if methods.contains(&Method::Ls) {
        solutions.insert(Method::Ls, least_squares.solution);
        Some(least_squares.standard_errors)
    } else {
        None
    };
    Ok(FullFits {
        solutions,
        ls_standard_errors,
        warm_start,
    })
}

/// Fits the selected methods with row weights `weights` (bootstrap multiplicities; 0 leaves a
/// row out) and response `response`. A method that fails on this reweighting maps to `None`.
pub(crate) fn fit_reweighted(
    design: &Design,
    methods: &BTreeSet<Method>,
    warm_start: &WarmStart,
    weights: &[f64],
    response: &DVector<f64>,
) -> BTreeMap<Method, Option<DVector<f64>>> {
    let mut solutions = BTreeMap::new();
    let needs_normal_equations = methods.contains(&Method::Ls) || methods.contains(&Method::Nnls);
    let normal_equations = needs_normal_equations
        .then(|| WeightedNormalEquations::new(&design.scaled, weights, response))
        .flatten();
    let least_squares = normal_equations
        .as_ref()
        .and_then(WeightedNormalEquations::least_squares);
    if methods.contains(&Method::Nnls) {
        // The full data's robust weights times this fit's own.
        let robust_equations = warm_start.nnls_weights.as_ref().and_then(|robust| {
            let combined: Vec<f64> = weights.iter().zip(robust).map(|(w, r)| w * r).collect();
            WeightedNormalEquations::new(&design.scaled, &combined, response)
        });
        let solution = robust_equations
            .as_ref()
            .or(normal_equations.as_ref())
            .and_then(|normal| {
                warm_start
                    .nnls_at_zero
                    .as_ref()
                    .and_then(|at_zero| {
                        nonnegative::solve_on_active_set(
                            &normal.gram,
                            &normal.right_hand_side,
                            at_zero,
                        )
                    })
                    .or_else(|| nonnegative::solve(&normal.lower.transpose(), &normal.projected))
            });
        solutions.insert(Method::Nnls, solution);
    }
    if methods.contains(&Method::L1) {
        let solution = reweighted_least_absolute(
            design,
            warm_start.l1_vertex.as_ref(),
            weights,
            response,
            least_squares.as_ref(),
        );
        solutions.insert(Method::L1, solution);
    }
    if methods.contains(&Method::Ls) {
        solutions.insert(Method::Ls, least_squares);
    }
    solutions
}

/// L1 on the rows that carry weight (plus the warm basis rows, so the warm inverse stays
/// valid): dropping the ~37% of rows a bootstrap leaves out shortens every pivot.
fn reweighted_least_absolute(
    design: &Design,
    vertex: Option<&L1Vertex>,
    weights: &[f64],
    response: &DVector<f64>,
    least_squares: Option<&DVector<f64>>,
) -> Option<DVector<f64>> {
    let mut in_basis = vec![false; design.rows()];
    for &row in vertex.map_or(&[][..], |vertex| &vertex.basis[..]) {
        in_basis[row] = true;
    }
    let active: Vec<usize> = (0..design.rows())
        .filter(|&row| weights[row] > 0.0 || in_basis[row])
        .collect();
    let mut compact_index = vec![usize::MAX; design.rows()];
    for (index, &row) in active.iter().enumerate() {
        compact_index[row] = index;
    }
    let matrix = design.scaled_rows(&active);
    let compact_response =
        DVector::from_iterator(active.len(), active.iter().map(|&row| response[row]));
    let compact_weights: Vec<f64> = active.iter().map(|&row| weights[row]).collect();
    if let Some(vertex) = vertex {
        let compact_basis: Vec<usize> =
            vertex.basis.iter().map(|&row| compact_index[row]).collect();
        let start = Start::Basis {
            rows: &compact_basis,
            inverse: &vertex.basis_inverse,
        };
        if let Ok(solution) =
            least_absolute::solve(&matrix, &compact_response, &compact_weights, start)
        {
            return Some(solution.coefficients);
        }
    }
    // A cold start near the reweighted LS fit: without a warm vertex, or if the warm walk failed.
    let near = match least_squares {
        Some(fit) => fit.clone(),
        None => WeightedNormalEquations::new(&design.scaled, weights, response)?.least_squares()?,
    };
    least_absolute::solve(
        &matrix,
        &compact_response,
        &compact_weights,
        Start::NearFit(&near),
    )
    .ok()
    .map(|solution| solution.coefficients)
}

fn numerical(method: Method, reason: String) -> FitError {
    FitError::Numerical {
        method: method.name().to_string(),
        reason,
    }
}

fn describe(failure: LadFailure) -> String {
    match failure {
        LadFailure::NoIndependentBasis => "no set of independent rows to start from".into(),
        LadFailure::SingularBasis => "the basis became singular".into(),
        LadFailure::Unbounded => "the objective is unbounded (all weights zero?)".into(),
        LadFailure::PivotLimit => "the descent did not finish within its pivot budget".into(),
    }
}

/// `response` with each entry moved by at most `relative` of itself in a fixed pseudo-random
/// direction (unchanged for 0).
fn break_ties(response: &DVector<f64>, relative: f64) -> DVector<f64> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    response.map(|value| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let unit = (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        value * (1.0 + relative * unit)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bootstrap;
    use crate::diagnostics::{RankAnalysis, RANK_TOLERANCE};
    use crate::synthetic::{generate, SyntheticSpec};
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    /// Reweighted fits that reuse the full fit (L1 vertex, NNLS active set) must reach the
    /// optimum that fits starting from nothing reach.
    #[test]
    fn warm_started_refits_equal_cold_ones() {
        let suite = generate(&SyntheticSpec {
            sizes: (1..=8).map(|k| k * 2500).collect(),
            ..SyntheticSpec::default()
        });
        let design = Design::build(&suite.observations).unwrap();
        let factorisation = FullFactorisation::new(&design.scaled);
        assert_eq!(
            RankAnalysis::of_triangular(&factorisation.r, RANK_TOLERANCE).rank,
            design.columns()
        );
        let methods: BTreeSet<Method> = Method::ALL.into_iter().collect();
        let full = fit_full(&design, &factorisation, &methods).unwrap();
        assert!(full.warm_start.l1_vertex.is_some() && full.warm_start.nnls_at_zero.is_some());
        let mut rng = StdRng::seed_from_u64(17);
        for _ in 0..5 {
            let resample = bootstrap::draw(&design, &mut rng);
            let warm = fit_reweighted(
                &design,
                &methods,
                &full.warm_start,
                &resample.weights,
                &resample.response,
            );
            // Cold: no vertex, no active set; the robust weights are the model's, not a start.
            let cold_start = WarmStart {
                nnls_weights: full.warm_start.nnls_weights.clone(),
                ..WarmStart::default()
            };
            let cold = fit_reweighted(
                &design,
                &methods,
                &cold_start,
                &resample.weights,
                &resample.response,
            );
            let l1_objective = |x: &DVector<f64>| -> f64 {
                let residuals = &resample.response - &design.scaled * x;
                residuals
                    .iter()
                    .zip(&resample.weights)
                    .map(|(r, w)| w * r.abs())
                    .sum()
            };
            // L1's minimiser need not be unique (bootstrap weights are integers, so the objective
            // can be flat along an edge): compare the optimal values.
            let (warm_l1, cold_l1) = (
                l1_objective(warm[&Method::L1].as_ref().unwrap()),
                l1_objective(cold[&Method::L1].as_ref().unwrap()),
            );
            assert!(
                (warm_l1 - cold_l1).abs() < 1e-9 * cold_l1,
                "{warm_l1} vs {cold_l1}"
            );
            for method in [Method::Ls, Method::Nnls] {
                let (warm, cold) = (
                    warm[&method].as_ref().unwrap(),
                    cold[&method].as_ref().unwrap(),
                );
                let difference = (warm - cold).amax() / cold.amax();
                assert!(difference < 1e-9, "{method}: {difference}");
            }
        }
    }

    #[test]
    fn huber_weights_keep_the_bulk_and_weigh_a_far_row_by_its_distance() {
        // Median absolute residual 1.0, so rows within 1.345 · 1.4826 = 1.994 weigh 1.
        let residuals = DVector::from_vec(vec![-1.0, 0.5, 1.0, -1.0, 1.9, 10.0, -20.0]);
        let weights = huber_weights(&residuals);
        let bound = HUBER_K * 1.4826;
        assert_eq!(&weights[..5], &[1.0; 5]);
        assert!((weights[5] - bound / 10.0).abs() < 1e-12);
        assert!((weights[6] - bound / 20.0).abs() < 1e-12);
        // Exact data (instruction counts fitted exactly): nothing is an outlier.
        assert_eq!(huber_weights(&DVector::zeros(4)), vec![1.0; 4]);
    }

    #[test]
    fn ties_are_broken_within_the_relative_bound_and_the_same_way_each_time() {
        let response = DVector::from_vec(vec![1.0, 1.0, 1.0, -2.0, 0.0, 1e6]);
        assert_eq!(break_ties(&response, 0.0), response);
        let moved = break_ties(&response, 1e-7);
        assert_eq!(moved, break_ties(&response, 1e-7));
        // Equal entries no longer tie; every entry stays within its bound.
        assert!(moved[0] != moved[1] && moved[1] != moved[2]);
        for (m, r) in moved.iter().zip(response.iter()) {
            assert!((m - r).abs() <= 1e-7 * r.abs());
        }
    }
}
