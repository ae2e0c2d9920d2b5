//! The descent must end at the exact L1 optimum: checked against brute force over all vertices,
//! against an independent simplex LP solver (`microlp`), and by an optimality certificate
//! recomputed here from scratch.

use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{solve, Start};

fn objective(a: &DMatrix<f64>, b: &DVector<f64>, weights: &[f64], x: &DVector<f64>) -> f64 {
    let residuals = b - a * x;
    residuals
        .iter()
        .zip(weights)
        .map(|(r, w)| w * r.abs())
        .sum()
}

fn least_squares(a: &DMatrix<f64>, b: &DVector<f64>) -> DVector<f64> {
    a.clone().svd(true, true).solve(b, 1e-12).unwrap()
}

/// The L1 optimum by enumerating every vertex (every p-subset of rows it could interpolate).
fn brute_force_optimum(a: &DMatrix<f64>, b: &DVector<f64>, weights: &[f64]) -> f64 {
    let (n, p) = a.shape();
    let mut best = f64::INFINITY;
    let mut subset: Vec<usize> = (0..p).collect();
    loop {
        let rows = DMatrix::from_fn(p, p, |k, j| a[(subset[k], j)]);
        let rhs = DVector::from_fn(p, |k, _| b[subset[k]]);
        if let Some(x) = rows.lu().solve(&rhs) {
            if x.iter().all(|v| v.is_finite()) {
                best = best.min(objective(a, b, weights, &x));
            }
        }
        // Next combination in lexicographic order.
        let mut position = p;
        while position > 0 && subset[position - 1] == n - p + position - 1 {
            position -= 1;
        }
        if position == 0 {
            return best;
        }
        subset[position - 1] += 1;
        for next in position..p {
            subset[next] = subset[next - 1] + 1;
        }
    }
}

/// The same problem as an LP for `microlp`: min Σ w (u + v) s.t. A x + u − v = b, u, v ≥ 0.
fn lp_optimum(a: &DMatrix<f64>, b: &DVector<f64>, weights: &[f64]) -> f64 {
    use microlp::{ComparisonOp, OptimizationDirection, Problem};
    let mut problem = Problem::new(OptimizationDirection::Minimize);
    let x: Vec<_> = (0..a.ncols())
        .map(|_| problem.add_var(0.0, (f64::NEG_INFINITY, f64::INFINITY)))
        .collect();
    for row in 0..a.nrows() {
        let above = problem.add_var(weights[row], (0.0, f64::INFINITY));
        let below = problem.add_var(weights[row], (0.0, f64::INFINITY));
        let mut terms: Vec<_> = x
            .iter()
            .enumerate()
            .map(|(column, variable)| (*variable, a[(row, column)]))
            .collect();
        terms.push((above, 1.0));
        terms.push((below, -1.0));
        problem.add_constraint(terms.as_slice(), ComparisonOp::Eq, b[row]);
    }
    problem.solve().unwrap().objective()
}

/// Recomputes the dual values at the returned basis from scratch: optimal iff |z_k| ≤ w_k.
fn certificate_holds(a: &DMatrix<f64>, b: &DVector<f64>, weights: &[f64], basis: &[usize]) -> bool {
    let p = a.ncols();
    let basis_rows = DMatrix::from_fn(p, p, |k, j| a[(basis[k], j)]);
    let x = basis_rows
        .clone()
        .lu()
        .solve(&DVector::from_fn(p, |k, _| b[basis[k]]))
        .unwrap();
    let residuals = b - a * &x;
    let mut signed_sum = DVector::zeros(p);
    for row in (0..a.nrows()).filter(|row| !basis.contains(row)) {
        if residuals[row].abs() > 1e-12 {
            signed_sum += a.row(row).transpose() * (weights[row] * residuals[row].signum());
        }
    }
    let duals = basis_rows.transpose().lu().solve(&signed_sum).unwrap();
    (0..p).all(|k| duals[k].abs() <= weights[basis[k]] + 1e-9)
}

/// A regression problem with Gaussian noise and `outliers` gross errors (10–100x the noise).
fn noisy_problem(n: usize, p: usize, outliers: usize, seed: u64) -> (DMatrix<f64>, DVector<f64>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let a = DMatrix::from_fn(n, p, |_, _| rng.random_range(-1.0..1.0));
    let truth = DVector::from_fn(p, |j, _| 1.0 + j as f64);
    let mut b = &a * &truth;
    for row in 0..n {
        b[row] += 0.01 * rng.random_range(-1.0..1.0);
    }
    for row in 0..outliers {
        b[row * (n / outliers.max(1))] +=
            rng.random_range(0.1..1.0) * if row % 2 == 0 { 1.0 } else { -1.0 };
    }
    (a, b)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// On small weighted problems (bootstrap-like multiplicities, some rows weight 0) the
    /// objective equals the best over all vertices.
    #[test]
    fn matches_brute_force_on_small_weighted_problems(seed in 0u64..10_000, p in 1usize..=3) {
        let (a, b) = noisy_problem(11, p, 2, seed);
        let mut rng = StdRng::seed_from_u64(seed ^ 0xabc);
        let mut weights: Vec<f64> = (0..11).map(|_| f64::from(rng.random_range(0u8..=3))).collect();
        weights[0] = 1.0; // keep some weight whatever the draw
        let start = least_squares(&a, &b);
        let solution = solve(&a, &b, &weights, Start::NearFit(&start)).unwrap();
        let best = brute_force_optimum(&a, &b, &weights);
        prop_assert!((solution.objective - best).abs() <= 1e-9 * (1.0 + best),
            "descent {} vs brute force {}", solution.objective, best);
        prop_assert!((objective(&a, &b, &weights, &solution.coefficients) - best).abs() <= 1e-9 * (1.0 + best));
    }
}

#[test]
fn matches_an_independent_lp_solver_with_outliers() {
    for seed in 0..4 {
        let (a, b) = noisy_problem(200, 6, 20, seed);
        let weights: Vec<f64> = (0..200).map(|row| 1.0 + (row % 3) as f64).collect();
        let start = least_squares(&a, &b);
        let solution = solve(&a, &b, &weights, Start::NearFit(&start)).unwrap();
        let reference = lp_optimum(&a, &b, &weights);
        assert!(
            (solution.objective - reference).abs() <= 1e-8 * reference,
            "seed {seed}: descent {} vs LP {}",
            solution.objective,
            reference
        );
        assert!(certificate_holds(&a, &b, &weights, &solution.basis));
        // And LS is visibly worse in L1 terms: the outliers matter to it.
        assert!(objective(&a, &b, &weights, &start) > 1.01 * solution.objective);
    }
}

#[test]
fn resists_gross_outliers_that_move_least_squares() {
    let (a, b) = noisy_problem(300, 4, 15, 11);
    let weights = vec![1.0; 300];
    let truth = DVector::from_fn(4, |j, _| 1.0 + j as f64);
    let ls = least_squares(&a, &b);
    let l1 = solve(&a, &b, &weights, Start::NearFit(&ls))
        .unwrap()
        .coefficients;
    let l1_error = (&l1 - &truth).amax();
    let ls_error = (&ls - &truth).amax();
    assert!(l1_error < 0.01, "L1 off by {l1_error}");
    assert!(
        ls_error > 3.0 * l1_error,
        "LS off by {ls_error}, L1 by {l1_error}"
    );
}

#[test]
fn warm_start_from_any_basis_reaches_the_same_optimum() {
    let (a, b) = noisy_problem(150, 5, 10, 3);
    let weights = vec![1.0; 150];
    let cold = solve(&a, &b, &weights, Start::NearFit(&least_squares(&a, &b))).unwrap();
    // The last five rows: an arbitrary vertex, far from the optimum.
    let rows: Vec<usize> = (145..150).collect();
    let inverse = DMatrix::from_fn(5, 5, |k, j| a[(rows[k], j)])
        .try_inverse()
        .unwrap();
    let warm = solve(
        &a,
        &b,
        &weights,
        Start::Basis {
            rows: &rows,
            inverse: &inverse,
        },
    )
    .unwrap();
    assert!((warm.objective - cold.objective).abs() <= 1e-10 * cold.objective);
    assert!(warm.pivots > 0);
    // Restarting at the optimum needs no pivot at all.
    let again = solve(
        &a,
        &b,
        &weights,
        Start::Basis {
            rows: &cold.basis,
            inverse: &cold.basis_inverse,
        },
    )
    .unwrap();
    assert_eq!(again.pivots, 0);
}

#[test]
fn zero_weight_rows_are_ignored() {
    let (a, b) = noisy_problem(60, 3, 6, 5);
    let weights: Vec<f64> = (0..60)
        .map(|row| if row % 4 == 0 { 0.0 } else { 1.0 })
        .collect();
    let kept: Vec<usize> = (0..60).filter(|row| row % 4 != 0).collect();
    let a_kept = DMatrix::from_fn(kept.len(), 3, |i, j| a[(kept[i], j)]);
    let b_kept = DVector::from_fn(kept.len(), |i, _| b[kept[i]]);
    let with_zeros = solve(&a, &b, &weights, Start::NearFit(&least_squares(&a, &b))).unwrap();
    let subset = solve(
        &a_kept,
        &b_kept,
        &vec![1.0; kept.len()],
        Start::NearFit(&least_squares(&a_kept, &b_kept)),
    )
    .unwrap();
    assert!((with_zeros.objective - subset.objective).abs() <= 1e-10 * subset.objective);
}

#[test]
fn exact_data_is_a_degenerate_vertex_with_zero_objective() {
    let mut rng = StdRng::seed_from_u64(9);
    let a = DMatrix::from_fn(40, 4, |_, _| f64::from(rng.random_range(0u8..10)));
    let truth = DVector::from_vec(vec![0.5, -1.0, 2.0, 3.0]);
    let b = &a * &truth;
    let solution = solve(&a, &b, &vec![1.0; 40], Start::NearFit(&DVector::zeros(4))).unwrap();
    assert!(solution.objective < 1e-9);
    assert!((&solution.coefficients - &truth).amax() < 1e-9);
}
