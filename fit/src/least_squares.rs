//! Least squares on the normalised design, in two forms that share their factorisations.
//!
//! * The full fit uses a Householder QR of the scaled design: `R` (p x p) and `Qᵀb` give the
//!   solution, its classical standard errors (`σ² (RᵀR)⁻¹`), the rank analysis (the SVD of `R`
//!   has the design's singular values) and NNLS's reduced problem, from one factorisation.
//! * Reweighted fits (bootstrap resamples, left-out programs) use the normal equations
//!   `AᵀWA x = AᵀWb` with a Cholesky factor `L`. On column-scaled designs the squared
//!   condition number stays far from f64's limits, and the Cholesky factor is shared with NNLS:
//!   `‖W^½(Ax − b)‖² = ‖Lᵀx − L⁻¹AᵀWb‖² + const`, so NNLS solves a p x p problem instead of
//!   an n x p one.

use nalgebra::{DMatrix, DVector};

/// QR factorisation of the full scaled design.
#[derive(Debug, Clone)]
pub(crate) struct FullFactorisation {
    qr: nalgebra::linalg::QR<f64, nalgebra::Dyn, nalgebra::Dyn>,
    /// The p x p upper-triangular factor.
    pub r: DMatrix<f64>,
}

/// A least-squares solution with its residual statistics (all in scaled units).
#[derive(Debug, Clone)]
pub(crate) struct LeastSquaresFit {
    pub solution: DVector<f64>,
    /// Classical standard errors `sqrt(σ² [(RᵀR)⁻¹]_cc)` with `σ² = RSS / (n − p)`.
    pub standard_errors: DVector<f64>,
}

impl FullFactorisation {
    pub fn new(scaled: &DMatrix<f64>) -> FullFactorisation {
        let qr = nalgebra::linalg::QR::new(scaled.clone());
        let r = qr.r();
        FullFactorisation { qr, r }
    }

    /// `Qᵀb` restricted to its first p entries: the right-hand side of `R x = Qᵀb`.
    pub fn project(&self, response: &DVector<f64>) -> DVector<f64> {
        let mut projected = response.clone();
        self.qr.q_tr_mul(&mut projected);
        projected.rows(0, self.r.ncols()).into_owned()
    }

    /// Least squares for `response` (full rank is checked before this is called).
    pub fn least_squares(
        &self,
        scaled: &DMatrix<f64>,
        response: &DVector<f64>,
    ) -> Option<LeastSquaresFit> {
        let solution = self.r.solve_upper_triangular(&self.project(response))?;
        let residuals = response - scaled * &solution;
        let degrees_of_freedom = (scaled.nrows() - scaled.ncols()) as f64;
        let residual_variance = residuals.norm_squared() / degrees_of_freedom;
        let r_inverse = self
            .r
            .solve_upper_triangular(&DMatrix::identity(self.r.nrows(), self.r.ncols()))?;
        // diag((RᵀR)⁻¹) = diag(R⁻¹R⁻ᵀ) = squared norms of R⁻¹'s rows.
        let standard_errors = DVector::from_fn(r_inverse.nrows(), |row, _| {
            (residual_variance * r_inverse.row(row).norm_squared()).sqrt()
        });
        Some(LeastSquaresFit {
            solution,
            standard_errors,
        })
    }
}

/// Cholesky factor of a reweighted problem's normal equations, shared by LS and NNLS.
#[derive(Debug, Clone)]
pub(crate) struct WeightedNormalEquations {
    /// `AᵀWA`.
    pub gram: DMatrix<f64>,
    /// `AᵀWb`.
    pub right_hand_side: DVector<f64>,
    /// Lower-triangular `L` with `LLᵀ = AᵀWA`.
    pub lower: DMatrix<f64>,
    /// `L⁻¹AᵀWb`: the right-hand side of the equivalent triangular problem `Lᵀx ≈ this`.
    pub projected: DVector<f64>,
}

impl WeightedNormalEquations {
    /// Builds the normal equations of rows with weights `weights` (multiplicities); rows of
    /// weight 0 do not enter. `None` when the reweighted design is not positive definite.
    pub fn new(
        scaled: &DMatrix<f64>,
        weights: &[f64],
        response: &DVector<f64>,
    ) -> Option<WeightedNormalEquations> {
        let rows: Vec<usize> = (0..scaled.nrows()).filter(|&i| weights[i] > 0.0).collect();
        let root_weights: Vec<f64> = rows.iter().map(|&i| weights[i].sqrt()).collect();
        let weighted = DMatrix::from_fn(rows.len(), scaled.ncols(), |row, column| {
            scaled[(rows[row], column)] * root_weights[row]
        });
        let weighted_response =
            DVector::from_fn(rows.len(), |row, _| response[rows[row]] * root_weights[row]);
        // `transpose() * matrix` goes through the blocked GEMM kernel; `tr_mul` would not.
        let transposed = weighted.transpose();
        let gram = &transposed * &weighted;
        let right_hand_side = &transposed * &weighted_response;
        let lower = nalgebra::linalg::Cholesky::new(gram.clone())?.unpack();
        let projected = lower.solve_lower_triangular(&right_hand_side)?;
        Some(WeightedNormalEquations {
            gram,
            right_hand_side,
            lower,
            projected,
        })
    }

    pub fn least_squares(&self) -> Option<DVector<f64>> {
        self.lower.tr_solve_lower_triangular(&self.projected)
    }
}
