//! Non-negative least squares with the `nnls` crate (Lawson–Hanson active set).
//!
//! The crate works on the matrix it is given, so it is always given the p x p triangular
//! problem equivalent to the full one (`R`, `Qᵀb` from the QR; or `Lᵀ`, `L⁻¹AᵀWb` from a
//! reweighted Cholesky): same minimiser, a fraction of the work, which is what makes a thousand
//! bootstrap refits cheap.
//!
//! A reweighted fit usually holds the same constants at 0 as the full data's fit. So that active
//! set is tried first: least squares on the other constants, accepted only if the KKT conditions
//! certify it (free constants > 0, no descent into a held one). NNLS's minimiser is unique on a
//! full-rank design, so the answer is the one the crate would give; the crate runs whenever the
//! certificate fails.

use std::panic::{catch_unwind, AssertUnwindSafe};

use nalgebra::{DMatrix, DVector};
use ndarray::{Array1, Array2};

/// Minimises `‖upper x − rhs‖` subject to `x ≥ 0`. `None` if the solver gave up (the crate
/// panics on one round-off path of the original Fortran; a panic here must not end the fit).
pub(crate) fn solve(upper: &DMatrix<f64>, rhs: &DVector<f64>) -> Option<DVector<f64>> {
    let matrix = Array2::from_shape_fn((upper.nrows(), upper.ncols()), |(row, column)| {
        upper[(row, column)]
    });
    let vector = Array1::from_iter(rhs.iter().copied());
    let (solution, _residual_norm) = catch_unwind(AssertUnwindSafe(|| {
        nnls::nnls(matrix.view(), vector.view())
    }))
    .ok()?;
    let solution = DVector::from_iterator(solution.len(), solution.iter().copied());
    solution
        .iter()
        .all(|value| value.is_finite())
        .then_some(solution)
}

/// NNLS of the normal equations `gram x = rhs` (minimising `½xᵀ·gram·x − rhsᵀx`, x ≥ 0) when the
/// constants flagged in `at_zero` are exactly those at 0 in the solution; `None` otherwise.
pub(crate) fn solve_on_active_set(
    gram: &DMatrix<f64>,
    rhs: &DVector<f64>,
    at_zero: &[bool],
) -> Option<DVector<f64>> {
    let free: Vec<usize> = (0..gram.ncols())
        .filter(|&column| !at_zero[column])
        .collect();
    let mut solution = DVector::zeros(gram.ncols());
    if !free.is_empty() {
        let free_gram = DMatrix::from_fn(free.len(), free.len(), |i, j| gram[(free[i], free[j])]);
        let free_rhs = DVector::from_fn(free.len(), |i, _| rhs[free[i]]);
        let free_solution = nalgebra::linalg::Cholesky::new(free_gram)?.solve(&free_rhs);
        if !free_solution.iter().all(|value| *value > 0.0) {
            return None;
        }
        for (index, &column) in free.iter().enumerate() {
            solution[column] = free_solution[index];
        }
    }
    // At the optimum the objective's gradient is 0 on free constants and ≥ 0 on held ones
    // (raising a held constant from 0 would not lower the objective).
    let gradient = gram * &solution - rhs;
    let tolerance = 1e-12 * rhs.amax();
    let held_ok =
        (0..gram.ncols()).all(|column| !at_zero[column] || gradient[column] >= -tolerance);
    held_ok.then_some(solution)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A problem where LS gives one negative constant, so NNLS holds it at 0.
    fn problem() -> (DMatrix<f64>, DVector<f64>) {
        let a = DMatrix::from_row_slice(
            4,
            3,
            &[1.0, 0.2, 0.1, 0.3, 1.0, 0.2, 0.1, 0.4, 1.0, 0.5, 0.5, 0.5],
        );
        let b = DVector::from_vec(vec![1.0, 2.0, -1.5, 0.6]);
        (a, b)
    }

    #[test]
    fn certified_active_set_gives_the_crates_solution() {
        let (a, b) = problem();
        let qr = a.clone().qr();
        let mut projected = b.clone();
        qr.q_tr_mul(&mut projected);
        let from_crate = solve(&qr.r(), &projected.rows(0, 3).into_owned()).unwrap();
        let at_zero: Vec<bool> = from_crate.iter().map(|value| *value == 0.0).collect();
        assert!(
            at_zero.iter().any(|zero| *zero),
            "the problem must have an active constraint"
        );
        let gram = a.transpose() * &a;
        let rhs = a.transpose() * &b;
        let certified = solve_on_active_set(&gram, &rhs, &at_zero).unwrap();
        assert!((certified - &from_crate).amax() < 1e-12);
    }

    #[test]
    fn a_wrong_active_set_is_refused() {
        let (a, b) = problem();
        let gram = a.transpose() * &a;
        let rhs = a.transpose() * &b;
        // Holding nothing at 0 gives the LS solution, which has a negative constant.
        assert!(solve_on_active_set(&gram, &rhs, &[false, false, false]).is_none());
        // Holding a constant at 0 that wants to be positive violates the gradient condition.
        assert!(solve_on_active_set(&gram, &rhs, &[true, false, false]).is_none());
    }
}
