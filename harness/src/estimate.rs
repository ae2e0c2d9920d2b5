//! From samples to estimates: per code layout, the regression slopes of time, words and
//! collections on the batch size; per (benchmark, size), their layout average, whose interval
//! carries the spread across layouts (DESIGN.md: layout is a random factor).

use crate::regression::{bootstrap_slopes, gc_fit, ols, percentile_interval, GcFit, Interval};
use ocaml_runtime::BatchSample;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// Bootstrap replicates per layout, and for the layout average.
pub const BOOTSTRAP_RESAMPLES: usize = 1000;

/// One layout variant of one (benchmark, size).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayoutEstimate {
    pub layout: u32,
    /// Bytes by which this variant's code was moved.
    pub offset_bytes: u64,
    pub samples: usize,
    /// Samples left out of the regression because the process lost the CPU during the batch
    /// (they stay in `samples.jsonl`).
    #[serde(default)]
    pub descheduled_samples: usize,
    pub ns_per_run: Interval,
    /// Time per batch not explained by its runs: the driver's fixed cost.
    pub intercept_ns: f64,
    pub r2: f64,
    pub minor_words_per_run: f64,
    pub promoted_words_per_run: f64,
    pub major_words_per_run: f64,
    pub minor_collections_per_run: f64,
    pub major_collections_per_run: f64,
    pub gc_fit: Option<GcFit>,
    /// Sorted bootstrap replicates of the slope, kept to build the layout-averaged interval.
    #[serde(skip)]
    pub replicates: Vec<f64>,
}

/// One (benchmark, size): the figures `mlcost bench` prints and `--json` emits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub benchmark: String,
    pub compiler: String,
    pub size: u64,
    /// Samples over all layouts.
    pub samples: usize,
    /// Layout-averaged time per run; the interval covers the spread across layouts.
    pub ns_per_run: Interval,
    /// The worst layout's R² of time on runs.
    pub r2: f64,
    pub minor_words_per_run: f64,
    pub major_words_per_run: f64,
    pub promoted_words_per_run: f64,
    pub minor_collections_per_run: f64,
    pub major_collections_per_run: f64,
    /// (slowest − fastest layout) / layout average, in percent.
    pub layout_spread_pct: f64,
    /// Layout average of the multivariate fit, when collections happened.
    pub gc_fit: Option<GcFit>,
    pub digest: String,
    pub layouts: Vec<LayoutEstimate>,
}

fn column(samples: &[BatchSample], f: impl Fn(&BatchSample) -> f64) -> Vec<f64> {
    samples.iter().map(f).collect()
}

fn slope(x: &[f64], y: &[f64]) -> f64 {
    ols(x, y).map_or(f64::NAN, |l| l.slope)
}

/// The samples a regression should use: those whose batch kept the CPU throughout, unless
/// fewer than half did (then the machine was busy all along, and all are used).
pub fn undisturbed(samples: &[BatchSample]) -> Vec<BatchSample> {
    let kept: Vec<BatchSample> = samples
        .iter()
        .filter(|s| !s.descheduled())
        .copied()
        .collect();
    if kept.len() * 2 >= samples.len() && kept.len() >= 3 {
        kept
    } else {
        samples.to_vec()
    }
}

/// Estimates for one layout; `None` with fewer than two distinct batch sizes.
pub fn layout_estimate(
    layout: u32,
    offset_bytes: u64,
    all_samples: &[BatchSample],
    seed: u64,
) -> Option<LayoutEstimate> {
    let kept = undisturbed(all_samples);
    let samples = kept.as_slice();
    let runs = column(samples, |s| s.runs as f64);
    let ns = column(samples, |s| s.ns as f64);
    let line = ols(&runs, &ns)?;
    let replicates = bootstrap_slopes(&runs, &ns, BOOTSTRAP_RESAMPLES, seed);
    let (ci_low, ci_high) = percentile_interval(&replicates).unwrap_or((line.slope, line.slope));
    let minor_gcs = column(samples, |s| s.minor_collections as f64);
    let major_gcs = column(samples, |s| s.major_collections as f64);
    Some(LayoutEstimate {
        layout,
        offset_bytes,
        samples: all_samples.len(),
        descheduled_samples: all_samples.len() - samples.len(),
        ns_per_run: Interval {
            estimate: line.slope,
            ci_low: ci_low.min(line.slope),
            ci_high: ci_high.max(line.slope),
        },
        intercept_ns: line.intercept,
        r2: line.r2,
        minor_words_per_run: slope(&runs, &column(samples, |s| s.minor_words)),
        promoted_words_per_run: slope(&runs, &column(samples, |s| s.promoted_words)),
        major_words_per_run: slope(&runs, &column(samples, |s| s.major_words)),
        minor_collections_per_run: slope(&runs, &minor_gcs),
        major_collections_per_run: slope(&runs, &major_gcs),
        gc_fit: gc_fit(&runs, &minor_gcs, &major_gcs, &ns),
        replicates,
    })
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    sum / n as f64
}

/// The layout average of one (benchmark, size). Its interval is a two-stage bootstrap (draw
/// layouts with replacement, then one replicate slope within each), widened to contain every
/// layout's own estimate, so that no single build's figure falls outside it.
pub fn combine_layouts(
    benchmark: &str,
    compiler: &str,
    size: u64,
    digest: String,
    layouts: Vec<LayoutEstimate>,
    seed: u64,
) -> Estimate {
    assert!(!layouts.is_empty(), "an estimate needs at least one layout");
    let avg = |f: &dyn Fn(&LayoutEstimate) -> f64| mean(layouts.iter().map(f));
    let estimate = avg(&|l| l.ns_per_run.estimate);
    let fastest = layouts
        .iter()
        .map(|l| l.ns_per_run.estimate)
        .fold(f64::INFINITY, f64::min);
    let slowest = layouts
        .iter()
        .map(|l| l.ns_per_run.estimate)
        .fold(f64::NEG_INFINITY, f64::max);
    let (ci_low, ci_high) = if layouts.len() == 1 {
        (layouts[0].ns_per_run.ci_low, layouts[0].ns_per_run.ci_high)
    } else {
        let mut rng = StdRng::seed_from_u64(seed);
        let k = layouts.len();
        let averages: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
            .map(|_| {
                mean((0..k).map(|_| {
                    let layout = &layouts[rng.random_range(0..k)];
                    match layout.replicates.len() {
                        0 => layout.ns_per_run.estimate,
                        n => layout.replicates[rng.random_range(0..n)],
                    }
                }))
            })
            .collect();
        percentile_interval(&averages).unwrap_or((estimate, estimate))
    };
    let gc_fits: Vec<GcFit> = layouts.iter().filter_map(|l| l.gc_fit).collect();
    let gc_fit = (!gc_fits.is_empty()).then(|| {
        let opt_mean = |f: &dyn Fn(&GcFit) -> Option<f64>| {
            let v: Vec<f64> = gc_fits.iter().filter_map(f).collect();
            (!v.is_empty()).then(|| mean(v.into_iter()))
        };
        GcFit {
            ns_per_run: mean(gc_fits.iter().map(|g| g.ns_per_run)),
            ns_per_minor_collection: opt_mean(&|g| g.ns_per_minor_collection),
            ns_per_major_collection: opt_mean(&|g| g.ns_per_major_collection),
            r2: gc_fits.iter().map(|g| g.r2).fold(f64::INFINITY, f64::min),
        }
    });
    Estimate {
        benchmark: benchmark.to_string(),
        compiler: compiler.to_string(),
        size,
        samples: layouts.iter().map(|l| l.samples).sum(),
        ns_per_run: Interval {
            estimate,
            ci_low: ci_low.min(fastest),
            ci_high: ci_high.max(slowest),
        },
        r2: layouts.iter().map(|l| l.r2).fold(f64::INFINITY, f64::min),
        minor_words_per_run: avg(&|l| l.minor_words_per_run),
        major_words_per_run: avg(&|l| l.major_words_per_run),
        promoted_words_per_run: avg(&|l| l.promoted_words_per_run),
        minor_collections_per_run: avg(&|l| l.minor_collections_per_run),
        major_collections_per_run: avg(&|l| l.major_collections_per_run),
        layout_spread_pct: if estimate > 0.0 {
            100.0 * (slowest - fastest) / estimate
        } else {
            0.0
        },
        gc_fit,
        digest,
        layouts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(ns_per_run: f64, overhead: f64) -> Vec<BatchSample> {
        let mut runs = 1u64;
        let mut out = Vec::new();
        for i in 0..80 {
            let wobble = if i % 2 == 0 { 1.01 } else { 0.99 };
            out.push(BatchSample {
                runs,
                ns: (runs as f64 * ns_per_run * wobble + overhead) as u64,
                minor_words: 3.0 * runs as f64,
                promoted_words: 0.0,
                major_words: 0.0,
                minor_collections: 0,
                major_collections: 0,
                compactions: 0,
                cpu_ns: None,
            });
            runs = (runs + 1).max((runs as f64 * 1.1).ceil() as u64);
        }
        out
    }

    #[test]
    fn descheduled_batches_are_left_out_of_the_slope() {
        let mut samples = samples(1000.0, 40.0);
        for s in &mut samples {
            s.cpu_ns = Some(s.ns);
        }
        // Every fifth batch lost a millisecond to another process.
        for s in samples.iter_mut().step_by(5) {
            s.ns += 1_000_000;
        }
        let e = layout_estimate(0, 0, &samples, 1).unwrap();
        assert_eq!(e.descheduled_samples, 16);
        assert_eq!(e.samples, 80);
        assert!(
            (e.ns_per_run.estimate - 1000.0).abs() < 15.0,
            "{:?}",
            e.ns_per_run
        );
        assert!(e.r2 > 0.999, "{}", e.r2);
    }

    #[test]
    fn layout_average_contains_every_layout_and_reports_spread() {
        let layouts: Vec<LayoutEstimate> = [1.1, 1.1, 4.5, 1.2]
            .iter()
            .enumerate()
            .map(|(j, &t)| {
                layout_estimate(
                    j as u32,
                    16 * j as u64,
                    &samples(t * 1000.0, 40.0),
                    j as u64,
                )
                .unwrap()
            })
            .collect();
        for l in &layouts {
            assert!((l.minor_words_per_run - 3.0).abs() < 1e-9);
        }
        let per_layout: Vec<f64> = layouts.iter().map(|l| l.ns_per_run.estimate).collect();
        let e = combine_layouts("fapp", "4.13.1", 1000, "0".repeat(16), layouts, 9);
        assert!(
            (e.ns_per_run.estimate - 1975.0).abs() < 30.0,
            "{:?}",
            e.ns_per_run
        );
        for t in per_layout {
            assert!(
                e.ns_per_run.ci_low <= t && t <= e.ns_per_run.ci_high,
                "{t} outside {:?}",
                e.ns_per_run
            );
        }
        assert!(
            (e.layout_spread_pct - 100.0 * 3400.0 / 1975.0).abs() < 3.0,
            "{}",
            e.layout_spread_pct
        );
        assert_eq!(e.samples, 320);
    }
}
