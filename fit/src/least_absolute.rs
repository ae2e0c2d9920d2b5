//! Least absolute deviations (robust L1 regression), solved exactly as a linear program.
//!
//! The problem `min_x Σ w_i |b_i − a_iᵀx|` is an LP whose vertices are the fits that pass
//! exactly through p rows (a *basis* B, `x = A_B⁻¹ b_B`). This module walks from vertex to
//! vertex by *direct descent*, the simplex method specialised to L1 (Barrodale & Roberts 1973;
//! Wesolowsky 1981):
//!
//! 1. At a vertex, the dual values `z = A_B⁻ᵀ g`, with `g = Σ_{i∉B} w_i sign(r_i) a_i`, tell
//!    the objective's slope when basis row k is released: `w_k − |z_k|`. If every `|z_k| ≤ w_k`
//!    the vertex is optimal — an exact certificate, not a convergence threshold.
//! 2. Otherwise release the most violating row and move along that edge. The objective along
//!    the edge is convex piecewise linear, with breakpoints where other residuals cross zero;
//!    its minimum is a weighted median of the breakpoints (B–R's multiple pivot: one step may
//!    cross many rows). The row at the minimum joins the basis.
//! 3. `A_B⁻¹` is updated by a rank-one pivot and refactorised every few pivots to stop drift;
//!    the final optimality check is made on quantities recomputed from the basis.
//!
//! Why not IRLS: it only approaches the optimum (its weights `1/|r_i|` blow up at the
//! interpolated rows), needs a fresh weighted factorisation per iteration, and has no
//! certificate. Why not a general LP solver: a vertex of this LP is feasible whatever the
//! weights and responses are, so a bootstrap resample (new weights, new layout draws) or a
//! left-out program (weight 0) starts from the full data's optimal basis and its inverse and
//! needs only the pivots the change requires.
//!
//! Degenerate vertices (a row outside the basis with zero residual, as in noise-free data) are
//! handled by counting such rows' slope in the line search; a direction that is not a descent
//! because of them is skipped, and the walk stops when no released row descends.

use nalgebra::{DMatrix, DVector};

/// Pivots between refactorisations of the basis inverse: often enough to keep the product-form
/// updates' rounding at ~1e-13, rarely enough that the O(p³) inverse stays a small cost.
const REFACTORISE_EVERY: usize = 32;
/// Breakpoints taken per partial sort in the line search: the minimum usually lies among the
/// first few, so selecting them in O(n) beats sorting them all.
const BREAKPOINT_BATCH: usize = 16;
const NOT_IN_BASIS: usize = usize::MAX;

/// An optimal vertex.
#[derive(Debug, Clone)]
pub(crate) struct LadSolution {
    pub coefficients: DVector<f64>,
    /// Row indices interpolated by the solution (the LP basis).
    pub basis: Vec<usize>,
    /// Inverse of the basis rows' matrix, reusable as a warm start.
    pub basis_inverse: DMatrix<f64>,
    /// `Σ w_i |r_i|` at the solution.
    #[allow(dead_code)] // read by the optimality tests
    pub objective: f64,
    #[allow(dead_code)] // read by the warm-start tests
    pub pivots: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LadFailure {
    /// No p linearly independent rows: the design is rank-deficient.
    NoIndependentBasis,
    /// A refactorisation found the basis matrix singular.
    SingularBasis,
    /// The objective decreased without bound along an edge (only with zero weights everywhere).
    Unbounded,
    /// The pivot budget ran out (cycling on a degenerate problem).
    PivotLimit,
}

/// Where the descent starts.
pub(crate) enum Start<'a> {
    /// At p independent rows chosen for small residuals under a nearby fit (e.g. LS).
    NearFit(&'a DVector<f64>),
    /// At a known basis, with its inverse (rows of the same matrix, in the same order).
    Basis {
        rows: &'a [usize],
        inverse: &'a DMatrix<f64>,
    },
}

/// Minimises `Σ w_i |b_i − a_iᵀx|` over x, for the rows of `a` (n x p, full column rank).
pub(crate) fn solve(
    a: &DMatrix<f64>,
    b: &DVector<f64>,
    weights: &[f64],
    start: Start<'_>,
) -> Result<LadSolution, LadFailure> {
    let (basis, inverse) = match start {
        Start::NearFit(fit) => (independent_rows_near(a, b, weights, fit)?, None),
        Start::Basis { rows, inverse } => (rows.to_vec(), Some(inverse.clone())),
    };
    let mut descent = Descent::new(a, b, weights, basis, inverse)?;
    descent.run()?;
    let objective = descent.objective();
    Ok(LadSolution {
        coefficients: descent.x,
        basis: descent.basis,
        basis_inverse: descent.basis_inverse,
        objective,
        pivots: descent.pivots,
    })
}

/// Picks p linearly independent rows, smallest residuals under `fit` first (weighted rows
/// before unweighted ones), by Gram–Schmidt against the rows already picked.
fn independent_rows_near(
    a: &DMatrix<f64>,
    b: &DVector<f64>,
    weights: &[f64],
    fit: &DVector<f64>,
) -> Result<Vec<usize>, LadFailure> {
    let p = a.ncols();
    let residuals = b - a * fit;
    let mut order: Vec<usize> = (0..a.nrows()).collect();
    order.sort_by(|&i, &j| {
        (weights[i] <= 0.0, residuals[i].abs())
            .partial_cmp(&(weights[j] <= 0.0, residuals[j].abs()))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    // A row must keep this fraction of its norm after removing the picked rows' directions;
    // the looser second pass only matters for nearly collinear designs.
    for independence in [1e-6, 1e-10] {
        let mut picked = Vec::with_capacity(p);
        let mut orthonormal: Vec<DVector<f64>> = Vec::with_capacity(p);
        for &row in &order {
            let original = a.row(row).transpose();
            let mut remainder = original.clone();
            for direction in &orthonormal {
                let projection = direction.dot(&remainder);
                remainder.axpy(-projection, direction, 1.0);
            }
            let norm = remainder.norm();
            if norm > independence * original.norm() && norm > 0.0 {
                orthonormal.push(remainder / norm);
                picked.push(row);
                if picked.len() == p {
                    return Ok(picked);
                }
            }
        }
    }
    Err(LadFailure::NoIndependentBasis)
}

/// A step along an edge: how far, and which row becomes interpolated there.
struct Step {
    length: f64,
    entering: usize,
    /// Breakpoints (sorted prefix of `Descent::breakpoints`) crossed or reached by the step.
    crossed: usize,
}

enum LineSearch {
    Descends(Step),
    /// Releasing this row does not lower the objective (a degenerate vertex).
    Flat,
    Unbounded,
}

struct Descent<'a> {
    a: &'a DMatrix<f64>,
    b: &'a DVector<f64>,
    weights: &'a [f64],
    basis: Vec<usize>,
    /// Position of each row in `basis`, or `NOT_IN_BASIS`.
    position: Vec<usize>,
    basis_inverse: DMatrix<f64>,
    x: DVector<f64>,
    residuals: DVector<f64>,
    /// -1, 0 or +1 per row: the residual's sign, 0 for basis rows and zero residuals.
    signs: Vec<i8>,
    /// `Σ w_i sign_i a_i`, kept in step with `signs`.
    signed_sum: DVector<f64>,
    /// Scratch: the edge direction and the rows' rates of change along it.
    direction: DVector<f64>,
    rates: DVector<f64>,
    breakpoints: Vec<(f64, usize)>,
    zero_rows: Vec<usize>,
    zero_tolerance: f64,
    optimality_tolerance: f64,
    pivots: usize,
    pivot_limit: usize,
}

impl<'a> Descent<'a> {
    fn new(
        a: &'a DMatrix<f64>,
        b: &'a DVector<f64>,
        weights: &'a [f64],
        basis: Vec<usize>,
        inverse: Option<DMatrix<f64>>,
    ) -> Result<Descent<'a>, LadFailure> {
        let (n, p) = a.shape();
        let mut position = vec![NOT_IN_BASIS; n];
        for (k, &row) in basis.iter().enumerate() {
            position[row] = k;
        }
        let largest_response = b.amax().max(f64::MIN_POSITIVE);
        let largest_weight = weights.iter().copied().fold(0.0, f64::max).max(1.0);
        let needs_factorisation = inverse.is_none();
        let mut descent = Descent {
            a,
            b,
            weights,
            basis,
            position,
            basis_inverse: inverse.unwrap_or_else(|| DMatrix::zeros(p, p)),
            x: DVector::zeros(p),
            residuals: DVector::zeros(n),
            signs: vec![0; n],
            signed_sum: DVector::zeros(p),
            direction: DVector::zeros(p),
            rates: DVector::zeros(n),
            breakpoints: Vec::with_capacity(n),
            zero_rows: Vec::new(),
            zero_tolerance: 1e-12 * largest_response,
            optimality_tolerance: 1e-9 * largest_weight,
            pivots: 0,
            pivot_limit: 50 * p + 10 * n,
        };
        if needs_factorisation {
            descent.refactorise()?;
        }
        descent.recompute_from_basis();
        Ok(descent)
    }

    fn run(&mut self) -> Result<(), LadFailure> {
        let p = self.basis.len();
        let mut pivots_since_refactorisation = 0;
        // Whether x, residuals, signs and the signed sum were recomputed from the basis since
        // the last pivot (rather than updated incrementally).
        let mut recomputed = true;
        let mut flat = vec![false; p];
        loop {
            let duals = self.basis_inverse.tr_mul(&self.signed_sum);
            let most_violating = (0..p)
                .filter(|&k| !flat[k])
                .map(|k| (k, duals[k].abs() - self.weights[self.basis[k]]))
                .filter(|(_, violation)| *violation > self.optimality_tolerance)
                .max_by(|left, right| left.1.total_cmp(&right.1));
            let Some((k, _)) = most_violating else {
                if recomputed {
                    return Ok(()); // optimal, judged on recomputed quantities
                }
                // Confirm on recomputed quantities; incremental ones may hide a last violation.
                self.recompute_from_basis();
                recomputed = true;
                flat.fill(false);
                continue;
            };
            let release_sign = duals[k].signum();
            match self.line_search(k, release_sign, duals[k].abs()) {
                LineSearch::Descends(step) => {
                    self.pivot(k, release_sign, &step);
                    flat.fill(false);
                    recomputed = false;
                    self.pivots += 1;
                    pivots_since_refactorisation += 1;
                    if self.pivots > self.pivot_limit {
                        return Err(LadFailure::PivotLimit);
                    }
                    if pivots_since_refactorisation >= REFACTORISE_EVERY {
                        self.refactorise()?;
                        self.recompute_from_basis();
                        recomputed = true;
                        pivots_since_refactorisation = 0;
                    }
                }
                LineSearch::Flat => flat[k] = true,
                LineSearch::Unbounded => return Err(LadFailure::Unbounded),
            }
        }
    }

    /// Follows the edge that releases basis row k in direction `release_sign` to its minimum.
    fn line_search(&mut self, k: usize, release_sign: f64, dual: f64) -> LineSearch {
        self.direction = self.basis_inverse.column(k) * release_sign;
        self.rates.gemv(1.0, self.a, &self.direction, 0.0);
        let mut slope = self.weights[self.basis[k]] - dual;
        self.breakpoints.clear();
        self.zero_rows.clear();
        for row in 0..self.rates.len() {
            let rate = self.rates[row];
            if self.position[row] != NOT_IN_BASIS || rate == 0.0 {
                continue;
            }
            if self.signs[row] == 0 {
                // A zero residual grows in either direction: its cost rises from the start.
                slope += self.weights[row] * rate.abs();
                self.zero_rows.push(row);
                continue;
            }
            let crossing = self.residuals[row] / rate;
            if crossing > 0.0 {
                self.breakpoints.push((crossing, row));
            }
        }
        if slope >= -self.optimality_tolerance * 1e-3 {
            return LineSearch::Flat;
        }
        let by_length = |left: &(f64, usize), right: &(f64, usize)| left.0.total_cmp(&right.0);
        let mut start = 0;
        while start < self.breakpoints.len() {
            let remaining = &mut self.breakpoints[start..];
            let batch = remaining.len().min(BREAKPOINT_BATCH);
            if batch < remaining.len() {
                remaining.select_nth_unstable_by(batch - 1, by_length);
            }
            remaining[..batch].sort_unstable_by(by_length);
            for index in start..start + batch {
                let (length, row) = self.breakpoints[index];
                slope += 2.0 * self.weights[row] * self.rates[row].abs();
                if slope >= 0.0 {
                    return LineSearch::Descends(Step {
                        length,
                        entering: row,
                        crossed: index + 1,
                    });
                }
            }
            start += batch;
        }
        LineSearch::Unbounded
    }

    fn pivot(&mut self, k: usize, release_sign: f64, step: &Step) {
        let leaving = self.basis[k];
        let entering = step.entering;
        self.x.axpy(step.length, &self.direction, 1.0);
        self.residuals.axpy(-step.length, &self.rates, 1.0);
        self.residuals[entering] = 0.0;

        // Replace row `leaving` by row `entering` in A_B: column k of the inverse is divided by
        // the pivot, the others lose their component along it (a product-form update).
        let pivot_value = self.rates[entering] * release_sign;
        let entering_row = self.a.row(entering);
        let row_times_inverse = entering_row * &self.basis_inverse;
        let released_column = self.basis_inverse.column(k).into_owned();
        for column in 0..self.basis.len() {
            if column == k {
                self.basis_inverse
                    .column_mut(k)
                    .copy_from(&(&released_column / pivot_value));
            } else {
                let factor = row_times_inverse[column] / pivot_value;
                self.basis_inverse
                    .column_mut(column)
                    .axpy(-factor, &released_column, 1.0);
            }
        }
        self.basis[k] = entering;
        self.position[entering] = k;
        self.position[leaving] = NOT_IN_BASIS;

        // Only rows whose residual crossed or reached zero, rows that were at zero, and the two
        // rows that swapped can have changed sign.
        let touched: Vec<usize> = self.breakpoints[..step.crossed]
            .iter()
            .map(|&(_, row)| row)
            .chain(self.zero_rows.iter().copied())
            .chain([entering, leaving])
            .collect();
        for row in touched {
            self.update_sign(row);
        }
    }

    fn update_sign(&mut self, row: usize) {
        let new_sign = if self.position[row] != NOT_IN_BASIS {
            0
        } else {
            self.sign_of(self.residuals[row])
        };
        let old_sign = self.signs[row];
        if new_sign != old_sign {
            let change = self.weights[row] * f64::from(new_sign - old_sign);
            for column in 0..self.signed_sum.len() {
                self.signed_sum[column] += change * self.a[(row, column)];
            }
            self.signs[row] = new_sign;
        }
    }

    fn sign_of(&self, residual: f64) -> i8 {
        if residual.abs() <= self.zero_tolerance {
            0
        } else if residual > 0.0 {
            1
        } else {
            -1
        }
    }

    fn refactorise(&mut self) -> Result<(), LadFailure> {
        let p = self.basis.len();
        let basis_rows = DMatrix::from_fn(p, p, |k, column| self.a[(self.basis[k], column)]);
        self.basis_inverse = basis_rows.try_inverse().ok_or(LadFailure::SingularBasis)?;
        Ok(())
    }

    /// Recomputes x, residuals, signs and the signed sum from the basis and its inverse.
    fn recompute_from_basis(&mut self) {
        let basis_response =
            DVector::from_iterator(self.basis.len(), self.basis.iter().map(|&row| self.b[row]));
        self.x = &self.basis_inverse * basis_response;
        self.residuals.copy_from(self.b);
        self.residuals.gemv(-1.0, self.a, &self.x, 1.0);
        for &row in &self.basis {
            self.residuals[row] = 0.0;
        }
        let mut weighted_signs = DVector::zeros(self.residuals.len());
        for row in 0..self.residuals.len() {
            let sign = if self.position[row] != NOT_IN_BASIS {
                0
            } else {
                self.sign_of(self.residuals[row])
            };
            self.signs[row] = sign;
            weighted_signs[row] = self.weights[row] * f64::from(sign);
        }
        self.signed_sum.gemv_tr(1.0, self.a, &weighted_signs, 0.0);
    }

    fn objective(&self) -> f64 {
        self.residuals
            .iter()
            .zip(self.weights)
            .map(|(residual, weight)| weight * residual.abs())
            .sum()
    }
}

#[cfg(test)]
#[path = "least_absolute_tests.rs"]
mod tests;
