//! Bootstrap intervals over (program, size) points and over code layouts.
//!
//! Each resample changes two things, then refits every method:
//! * **Points.** Within each program, its sizes are drawn with replacement (a stratified
//!   bootstrap): each program keeps its weight in the fit, and a construct that only its own
//!   template runs can never vanish from a resample, which would make the design singular.
//! * **Layouts.** A layout variant is one build of a program, measured at every size, so its
//!   placement accident is shared by all of the program's points: the layout-averaged time of
//!   a program is off by one common random effect, known only from L (typically 4) variants.
//!   Resampling four values with replacement would understate that effect's uncertainty badly
//!   (its spread is estimated from L − 1 degrees of freedom, and the bootstrap ignores that).
//!   So each resample draws one `t ~ Student(L − 1)` per program and scales every point's time
//!   by `1 + t · sd_i / sqrt(L)`, where sd_i is the spread of that point's layout estimates:
//!   a constant that rests on one program then gets the t-interval of its layout mean, which
//!   is exact for normal layout effects. With a single layout there is no such term.
//!
//! S_j stays that of the full data: it is the weighting the paper chose, not an estimate.
//! Every resample has its own random stream derived from (seed, index), and reweighted L1
//! starts from the full data's optimum rather than the previous resample, so results do not
//! depend on how resamples are split between threads.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use nalgebra::DVector;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, StudentT};
use statrs::statistics::{Data, OrderStatistics};

use crate::design::Design;
use crate::input::Method;
use crate::methods::{fit_reweighted, WarmStart};

/// Per-construct cost draws of each method over the resamples it survived.
#[derive(Debug, Clone, Default)]
pub(crate) struct Draws {
    /// Method -> one cost vector (per construct, in `Design::constructs` order) per resample.
    pub costs: BTreeMap<Method, Vec<Vec<f64>>>,
    /// Method -> resamples on which it failed (singular resample, solver gave up).
    pub failed: BTreeMap<Method, usize>,
}

/// One resample: multiplicity of each row and the normalised response with drawn layouts.
#[derive(Debug, Clone)]
pub(crate) struct Resample {
    pub weights: Vec<f64>,
    pub response: DVector<f64>,
}

pub(crate) fn run(
    design: &Design,
    methods: &BTreeSet<Method>,
    warm_start: &WarmStart,
    resamples: usize,
    seed: u64,
    threads: usize,
) -> Draws {
    let threads = worker_count(threads, resamples);
    // Workers take the next resample index as they finish one, so a worker slowed down by a
    // busy machine holds up nobody; each result is stored by index, so the order is fixed.
    let next_index = AtomicUsize::new(0);
    let mut per_resample: Vec<BTreeMap<Method, Option<DVector<f64>>>> =
        vec![BTreeMap::new(); resamples];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next_index.fetch_add(1, Ordering::Relaxed);
                        if index >= resamples {
                            return done;
                        }
                        let mut rng = StdRng::seed_from_u64(resample_seed(seed, index));
                        let resample = draw(design, &mut rng);
                        let solutions = fit_reweighted(
                            design,
                            methods,
                            warm_start,
                            &resample.weights,
                            &resample.response,
                        );
                        done.push((index, solutions));
                    }
                })
            })
            .collect();
        for worker in workers {
            // A panicking worker is a bug; propagate it rather than report partial intervals.
            let done = worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            for (index, solutions) in done {
                per_resample[index] = solutions;
            }
        }
    });

    let mut draws = Draws::default();
    for method in methods {
        draws.costs.insert(*method, Vec::with_capacity(resamples));
        draws.failed.insert(*method, 0);
    }
    for solutions in per_resample {
        for (method, solution) in solutions {
            // A non-finite solution (a nearly singular resample) counts as a failure: NaN must
            // not reach a percentile.
            match solution.filter(|scaled| scaled.iter().all(|value| value.is_finite())) {
                Some(scaled) => draws
                    .costs
                    .entry(method)
                    .or_default()
                    .push(design.to_costs(&scaled)),
                None => *draws.failed.entry(method).or_default() += 1,
            }
        }
    }
    draws
}

fn worker_count(requested: usize, resamples: usize) -> usize {
    let available = std::thread::available_parallelism().map_or(1, usize::from);
    let wanted = if requested == 0 { available } else { requested };
    wanted.clamp(1, resamples.max(1))
}

/// Decorrelates the streams of neighbouring resample indices (SplitMix64's increment).
fn resample_seed(seed: u64, index: usize) -> u64 {
    seed.wrapping_add((index as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// Draws one resample: sizes within each program, and a layout draw per program.
pub(crate) fn draw(design: &Design, rng: &mut impl Rng) -> Resample {
    let mut weights = vec![0.0; design.rows()];
    let mut response = design.response.clone();
    for rows in &design.program_rows {
        for _ in 0..rows.len() {
            weights[rows[rng.random_range(0..rows.len())]] += 1.0;
        }
        let fewest_layouts = rows
            .iter()
            .map(|&row| design.layout_ratios[row].len())
            .min()
            .unwrap_or(1);
        if fewest_layouts < 2 {
            continue;
        }
        let degrees_of_freedom = (fewest_layouts - 1) as f64;
        let shift = StudentT::new(degrees_of_freedom)
            .map(|student| student.sample(rng))
            .unwrap_or(0.0);
        for &row in rows {
            response[row] *= layout_factor(&design.layout_ratios[row], shift);
        }
    }
    Resample { weights, response }
}

/// `1 + shift · sd / sqrt(L)` for a point whose layout ratios (mean 1) are `ratios`.
fn layout_factor(ratios: &[f64], shift: f64) -> f64 {
    let count = ratios.len() as f64;
    let variance = ratios
        .iter()
        .map(|ratio| (ratio - 1.0).powi(2))
        .sum::<f64>()
        / (count - 1.0);
    let factor = 1.0 + shift * (variance / count).sqrt();
    // Only a far tail draw with a huge layout spread reaches this floor; times stay positive.
    factor.max(0.05)
}

/// The central `confidence` percentile interval of `samples`, with statrs's quantile (the
/// harness's intervals use the same definition, so the two read alike).
pub(crate) fn percentile_interval(samples: &mut [f64], confidence: f64) -> Option<(f64, f64)> {
    if samples.is_empty() {
        return None;
    }
    let tail = (1.0 - confidence) / 2.0;
    let mut data = Data::new(samples);
    Some((data.quantile(tail), data.quantile(1.0 - tail)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_interval_interpolates_between_order_statistics() {
        // statrs's definition (R's type 8) on 0..=100: h = (101 + 1/3)·p + 1/3.
        let mut samples: Vec<f64> = (0..=100).rev().map(f64::from).collect();
        let (low, high) = percentile_interval(&mut samples, 0.95).unwrap();
        let h = |p: f64| (101.0 + 1.0 / 3.0) * p + 1.0 / 3.0 - 1.0;
        assert!((low - h(0.025)).abs() < 1e-9, "{low}");
        assert!((high - h(0.975)).abs() < 1e-9, "{high}");
        assert!(percentile_interval(&mut [], 0.95).is_none());
    }

    #[test]
    fn layout_factor_scales_the_standard_error_of_the_layout_mean() {
        // sd of (0.8, 0.9, 1.1, 1.2) is sqrt(0.1 / 3); the mean's standard error is half that.
        let ratios = [0.8, 0.9, 1.1, 1.2];
        let standard_error = (0.1f64 / 3.0).sqrt() / 2.0;
        assert!((layout_factor(&ratios, 2.0) - (1.0 + 2.0 * standard_error)).abs() < 1e-12);
        assert_eq!(layout_factor(&ratios, 0.0), 1.0);
        assert_eq!(layout_factor(&ratios, -1e6), 0.05);
    }
}
