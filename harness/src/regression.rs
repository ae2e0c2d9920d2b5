//! The statistics of one (benchmark, size, layout): ordinary least squares of a counter on the
//! batch size, its closed-form and bootstrap 95% intervals, and the multivariate fit that puts
//! collection counts beside the batch size to separate GC time (Core_bench's predictors).

use nalgebra::{DMatrix, DVector};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};
use statrs::statistics::{Data, OrderStatistics};

/// A point estimate with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub estimate: f64,
    pub ci_low: f64,
    pub ci_high: f64,
}

impl Interval {
    pub fn half_width(&self) -> f64 {
        (self.ci_high - self.ci_low) / 2.0
    }

    /// Half-width relative to the estimate (infinite for a zero estimate).
    pub fn relative_half_width(&self) -> f64 {
        self.half_width() / self.estimate.abs()
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    pub slope: f64,
    pub intercept: f64,
    pub r2: f64,
}

/// OLS of `y` on `x` with intercept. `None` with fewer than two distinct `x`.
pub fn ols(x: &[f64], y: &[f64]) -> Option<Line> {
    let n = x.len() as f64;
    if x.len() < 2 {
        return None;
    }
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for (&xi, &yi) in x.iter().zip(y) {
        sxx += (xi - mx) * (xi - mx);
        sxy += (xi - mx) * (yi - my);
        syy += (yi - my) * (yi - my);
    }
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let r2 = if syy > 0.0 {
        (sxy * sxy) / (sxx * syy)
    } else {
        1.0
    };
    Some(Line {
        slope,
        intercept: my - slope * mx,
        r2,
    })
}

/// Closed-form 95% half-width of the OLS slope (Student t on n-2 degrees of freedom): cheap
/// enough to test after every batch for the `--target-ci` stopping rule.
pub fn slope_half_width(x: &[f64], y: &[f64]) -> Option<f64> {
    let line = ols(x, y)?;
    let n = x.len();
    if n < 3 {
        return None;
    }
    let mx = x.iter().sum::<f64>() / n as f64;
    let sxx: f64 = x.iter().map(|xi| (xi - mx) * (xi - mx)).sum();
    let ssr: f64 = x
        .iter()
        .zip(y)
        .map(|(xi, yi)| {
            let r = yi - (line.intercept + line.slope * xi);
            r * r
        })
        .sum();
    let se = (ssr / (n - 2) as f64 / sxx).sqrt();
    let t = StudentsT::new(0.0, 1.0, (n - 2) as f64)
        .ok()?
        .inverse_cdf(0.975);
    Some(t * se)
}

/// Bootstrap of the OLS slope over (x, y) pairs: the replicate slopes, sorted.
pub fn bootstrap_slopes(x: &[f64], y: &[f64], resamples: usize, seed: u64) -> Vec<f64> {
    let mut rng = StdRng::seed_from_u64(seed);
    let n = x.len();
    let (mut bx, mut by) = (vec![0.0; n], vec![0.0; n]);
    let mut slopes = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        for i in 0..n {
            let j = rng.random_range(0..n);
            bx[i] = x[j];
            by[i] = y[j];
        }
        if let Some(line) = ols(&bx, &by) {
            slopes.push(line.slope);
        }
    }
    slopes.sort_by(f64::total_cmp);
    slopes
}

/// The 2.5% and 97.5% quantiles of replicates.
pub fn percentile_interval(replicates: &[f64]) -> Option<(f64, f64)> {
    if replicates.is_empty() {
        return None;
    }
    let mut data = Data::new(replicates.to_vec());
    Some((data.quantile(0.025), data.quantile(0.975)))
}

/// Time split by Core_bench's predictors: per run, per minor and per major collection.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GcFit {
    pub ns_per_run: f64,
    pub ns_per_minor_collection: Option<f64>,
    pub ns_per_major_collection: Option<f64>,
    pub r2: f64,
}

/// Least squares of `ns` on an intercept, runs, minor and major collections. A collection
/// predictor that never varies is left out (its coefficient is `None`); `None` altogether when
/// no collection happened, or the predictors cannot be told apart.
pub fn gc_fit(runs: &[f64], minor: &[f64], major: &[f64], ns: &[f64]) -> Option<GcFit> {
    let varies = |v: &[f64]| v.iter().any(|&x| x != v[0]);
    let use_minor = varies(minor);
    let use_major = varies(major);
    if !use_minor && !use_major {
        return None;
    }
    let mut columns: Vec<&[f64]> = vec![runs];
    if use_minor {
        columns.push(minor);
    }
    if use_major {
        columns.push(major);
    }
    let n = ns.len();
    let p = columns.len() + 1;
    if n <= p + 1 {
        return None;
    }
    let design = DMatrix::from_fn(n, p, |i, j| if j == 0 { 1.0 } else { columns[j - 1][i] });
    let target = DVector::from_column_slice(ns);
    let svd = design.clone().svd(true, true);
    let singular = &svd.singular_values;
    let (max, min) = (singular.max(), singular.min());
    if min <= 0.0 || max / min > 1e12 {
        return None;
    }
    let beta = svd.solve(&target, 1e-12).ok()?;
    let fitted = &design * &beta;
    let mean = target.mean();
    let ss_tot: f64 = target.iter().map(|y| (y - mean) * (y - mean)).sum();
    let ss_res: f64 = target
        .iter()
        .zip(fitted.iter())
        .map(|(y, f)| (y - f) * (y - f))
        .sum();
    let mut k = 2;
    let mut next = |used: bool| {
        used.then(|| {
            let v = beta[k];
            k += 1;
            v
        })
    };
    let ns_per_minor_collection = next(use_minor);
    let ns_per_major_collection = next(use_major);
    Some(GcFit {
        ns_per_run: beta[1],
        ns_per_minor_collection,
        ns_per_major_collection,
        r2: if ss_tot > 0.0 {
            1.0 - ss_res / ss_tot
        } else {
            1.0
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ols_recovers_an_exact_line() {
        let x: Vec<f64> = (1..=20).map(f64::from).collect();
        let y: Vec<f64> = x.iter().map(|x| 3.0 * x + 7.0).collect();
        let line = ols(&x, &y).unwrap();
        assert!((line.slope - 3.0).abs() < 1e-12 && (line.intercept - 7.0).abs() < 1e-9);
        assert!((line.r2 - 1.0).abs() < 1e-12);
        assert!(slope_half_width(&x, &y).unwrap() < 1e-9);
    }

    #[test]
    fn bootstrap_interval_covers_the_true_slope_under_noise() {
        let mut rng = StdRng::seed_from_u64(7);
        let x: Vec<f64> = (0..200).map(|i| 1.05f64.powi(i).ceil()).collect();
        let y: Vec<f64> = x
            .iter()
            .map(|x| 10.0 * x * (1.0 + 0.05 * (rng.random::<f64>() - 0.5)) + 50.0)
            .collect();
        let slopes = bootstrap_slopes(&x, &y, 1000, 1);
        let (lo, hi) = percentile_interval(&slopes).unwrap();
        assert!(lo < 10.0 && 10.0 < hi, "[{lo}, {hi}]");
        assert!(hi - lo < 1.0, "[{lo}, {hi}] too wide");
    }

    #[test]
    fn gc_fit_separates_collection_time() {
        let runs: Vec<f64> = (1..60).map(|i| f64::from(i) * 10.0).collect();
        let minor: Vec<f64> = runs.iter().map(|r| (r / 7.0).floor()).collect();
        let major = vec![0.0; runs.len()];
        let ns: Vec<f64> = runs
            .iter()
            .zip(&minor)
            .map(|(r, m)| 100.0 * r + 5000.0 * m + 30.0)
            .collect();
        let fit = gc_fit(&runs, &minor, &major, &ns).unwrap();
        assert!((fit.ns_per_run - 100.0).abs() < 1e-6, "{fit:?}");
        assert!(
            (fit.ns_per_minor_collection.unwrap() - 5000.0).abs() < 1e-4,
            "{fit:?}"
        );
        assert_eq!(fit.ns_per_major_collection, None);
        assert_eq!(gc_fit(&runs, &major, &major, &ns), None);
    }
}
