//! From visits to estimates: per code layout, the robust time per run over its visits and the
//! regression slopes of words and collections on the batch size; per (benchmark, size), their
//! layout average, whose interval carries the spread across layouts (layout is a random
//! factor: the same machine code runs at different speeds depending on where it sits).

use crate::regression::{gc_fit, ols, percentile_interval, GcFit, Interval};
use crate::robust::{self, fit_visit, VisitData, VisitFit};
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
    /// Visits (one per round) with a usable regression.
    #[serde(default)]
    pub visits: usize,
    /// Visits left out because the canary saw the machine disturbed while they ran.
    #[serde(default)]
    pub slow_machine_visits: usize,
    /// Visits left out because their regression put them implausibly far below the others
    /// ([`robust::plausible`]).
    #[serde(default)]
    pub implausible_visits: usize,
    /// Time per run of each visit the estimate considered, in round order.
    #[serde(default)]
    pub visit_ns_per_run: Vec<f64>,
    /// Mean of the fastest half of the visits, with a 95% interval from resampling visits.
    pub ns_per_run: Interval,
    /// Time per batch not explained by its runs: the driver's fixed cost (median over the
    /// fastest visits).
    pub intercept_ns: f64,
    pub r2: f64,
    pub minor_words_per_run: f64,
    pub promoted_words_per_run: f64,
    pub major_words_per_run: f64,
    pub minor_collections_per_run: f64,
    pub major_collections_per_run: f64,
    /// Heap compactions per run: a major cycle that ends with most of the heap free compacts
    /// it and hands chunks back to the C library, whose pages the next cycle faults in again.
    #[serde(default)]
    pub compactions_per_run: f64,
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
    /// Visits over all layouts, and how many of them the canary had flagged.
    #[serde(default)]
    pub visits: usize,
    #[serde(default)]
    pub slow_machine_visits: usize,
    /// Layout-averaged time per run; the interval covers the spread across layouts.
    pub ns_per_run: Interval,
    /// The worst layout's R² of time on runs (each layout's: the median over its fastest visits).
    pub r2: f64,
    pub minor_words_per_run: f64,
    pub major_words_per_run: f64,
    pub promoted_words_per_run: f64,
    pub minor_collections_per_run: f64,
    pub major_collections_per_run: f64,
    /// Heap compactions per run (see [`LayoutEstimate::compactions_per_run`]).
    #[serde(default)]
    pub compactions_per_run: f64,
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

/// What the collector did per run, over every batch: its total over their runs. A batch
/// holds no collector work but its runs' (the driver allocates nothing between its counter
/// reads: a batch of one run of a program that never collects shows none), and collections
/// come at a phase each visit randomises, so the total over the runs is the expectation's
/// estimate with the least variance. A slope would give the batches' phase-locked pattern
/// within a visit (two collections in one batch, none in the next) the leverage of its
/// largest batches: `stdlist_assoc` at 1500, with a collection every ~17 runs, measured 915
/// promoted words a run by slope and 500 by total over 380 runs, the interpreter 507.
fn per_run(samples: &[BatchSample], count: impl Fn(&BatchSample) -> f64) -> f64 {
    let runs: f64 = samples.iter().map(|s| s.runs as f64).sum();
    if runs == 0.0 {
        return f64::NAN;
    }
    samples.iter().map(count).sum::<f64>() / runs
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

/// Estimates for one layout from its visits; `None` when no visit has two distinct batch
/// sizes. Time is the robust estimate over visits ([`crate::robust`]); words and collections,
/// which do not depend on the machine's state, come from batches chosen without regard to
/// time: minor words as the slope over every usable visit's batches, the collector's counters
/// as totals over every visit's.
pub fn layout_estimate(
    layout: u32,
    offset_bytes: u64,
    visits: &[VisitData],
    seed: u64,
) -> Option<LayoutEstimate> {
    let fits: Vec<VisitFit> = visits.iter().filter_map(fit_visit).collect();
    if fits.is_empty() {
        return None;
    }
    let quiet = robust::usable(&fits);
    let usable = robust::plausible(&quiet);
    let slopes: Vec<f64> = usable.iter().map(|f| f.line.slope).collect();
    let (estimate, (ci_low, ci_high), replicates) =
        robust::estimate(&slopes, BOOTSTRAP_RESAMPLES, seed);
    // The fastest visits: the ones the estimate averages, and whose batches the GC fit uses.
    let mut fastest = usable.clone();
    fastest.sort_by(|a, b| a.line.slope.total_cmp(&b.line.slope));
    fastest.truncate(robust::kept_count(fastest.len()));
    let pooled = |rounds: &[u32]| -> Vec<BatchSample> {
        visits
            .iter()
            .filter(|v| rounds.contains(&v.round))
            .flat_map(|v| undisturbed(&v.samples))
            .collect()
    };
    let usable_rounds: Vec<u32> = usable.iter().map(|f| f.round).collect();
    let fastest_rounds: Vec<u32> = fastest.iter().map(|f| f.round).collect();
    let all = pooled(&usable_rounds);
    let runs = column(&all, |s| s.runs as f64);
    // The collector's counters do not depend on the machine's state, but whether a visit
    // held a collection moves its time: choosing visits or batches by time would choose by
    // collections. Every batch of every visit counts.
    let every: Vec<BatchSample> = visits
        .iter()
        .flat_map(|v| v.samples.iter().copied())
        .collect();
    let fast = pooled(&fastest_rounds);
    let fast_runs = column(&fast, |s| s.runs as f64);
    let samples: usize = visits.iter().map(|v| v.samples.len()).sum();
    let kept: usize = visits.iter().map(|v| undisturbed(&v.samples).len()).sum();
    Some(LayoutEstimate {
        layout,
        offset_bytes,
        samples,
        descheduled_samples: samples - kept,
        visits: fits.len(),
        slow_machine_visits: fits.len() - quiet.len(),
        implausible_visits: quiet.len() - usable.len(),
        visit_ns_per_run: usable.iter().map(|f| f.line.slope).collect(),
        ns_per_run: Interval {
            estimate,
            ci_low: ci_low.min(estimate),
            ci_high: ci_high.max(estimate),
        },
        intercept_ns: median(fastest.iter().map(|f| f.line.intercept)),
        r2: median(fastest.iter().map(|f| f.line.r2)),
        minor_words_per_run: slope(&runs, &column(&all, |s| s.minor_words)),
        promoted_words_per_run: per_run(&every, |s| s.promoted_words),
        major_words_per_run: per_run(&every, |s| s.major_words),
        minor_collections_per_run: per_run(&every, |s| s.minor_collections as f64),
        major_collections_per_run: per_run(&every, |s| s.major_collections as f64),
        compactions_per_run: per_run(&every, |s| s.compactions as f64),
        gc_fit: gc_fit(
            &fast_runs,
            &column(&fast, |s| s.minor_collections as f64),
            &column(&fast, |s| s.major_collections as f64),
            &column(&fast, |s| s.ns as f64),
        ),
        replicates,
    })
}

fn median(values: impl Iterator<Item = f64>) -> f64 {
    statrs::statistics::Median::median(&statrs::statistics::Data::new(values.collect::<Vec<_>>()))
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
        visits: layouts.iter().map(|l| l.visits).sum(),
        slow_machine_visits: layouts.iter().map(|l| l.slow_machine_visits).sum(),
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
        compactions_per_run: avg(&|l| l.compactions_per_run),
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
        for i in 0..40 {
            let wobble = if i % 2 == 0 { 1.01 } else { 0.99 };
            out.push(BatchSample {
                minor_words: 3.0 * runs as f64,
                ..BatchSample::timing(runs, (runs as f64 * ns_per_run * wobble + overhead) as u64)
            });
            runs = (runs + 1).max((runs as f64 * 1.1).ceil() as u64);
        }
        out
    }

    /// Eight visits at `ns_per_run`, the rounds in `slow` running `factor` times slower.
    fn visits(ns_per_run: f64, slow: &[u32], factor: f64) -> Vec<VisitData> {
        (0..8)
            .map(|round| {
                let t = if slow.contains(&round) {
                    ns_per_run * factor
                } else {
                    ns_per_run * (1.0 + 0.002 * round as f64)
                };
                VisitData {
                    round,
                    samples: samples(t, 40.0),
                    slow_machine: false,
                }
            })
            .collect()
    }

    #[test]
    fn descheduled_batches_are_left_out_of_the_slope() {
        let mut visits = visits(1000.0, &[], 1.0);
        for visit in &mut visits {
            for s in &mut visit.samples {
                s.cpu_ns = Some(s.ns);
            }
            // Every fifth batch lost a millisecond to another process.
            for s in visit.samples.iter_mut().step_by(5) {
                s.ns += 1_000_000;
            }
        }
        let e = layout_estimate(0, 0, &visits, 1).unwrap();
        assert_eq!(e.descheduled_samples, 8 * 8);
        assert_eq!(e.samples, 8 * 40);
        assert_eq!(e.visits, 8);
        assert!(
            (e.ns_per_run.estimate - 1000.0).abs() < 15.0,
            "{:?}",
            e.ns_per_run
        );
        assert!(e.r2 > 0.999, "{}", e.r2);
        assert!((e.minor_words_per_run - 3.0).abs() < 1e-9);
    }

    #[test]
    fn collector_counters_are_totals_over_the_runs_not_slopes() {
        // A collection every 5 runs, at a phase that repeats within each visit: the batches of
        // 1, 2, 3, 4 runs see 0, 1, 0, 1 collections (and 100 promoted words each), whose
        // slope is 0.2 a run with a negative intercept; one visit's batches of 2, 4, 6, 8
        // runs see 1, 1, 1, 2 (slope 0.15). Over every batch: 7 collections in 30 runs.
        let batch = |runs: u64, collections: u64| BatchSample {
            minor_collections: collections,
            promoted_words: 100.0 * collections as f64,
            ..BatchSample::timing(runs, runs * 1000)
        };
        let visits: Vec<VisitData> = (0..2)
            .map(|round| VisitData {
                round,
                samples: if round == 0 {
                    vec![batch(1, 0), batch(2, 1), batch(3, 0), batch(4, 1)]
                } else {
                    vec![batch(2, 1), batch(4, 1), batch(6, 1), batch(8, 2)]
                },
                slow_machine: false,
            })
            .collect();
        let e = layout_estimate(0, 0, &visits, 1).unwrap();
        assert!((e.minor_collections_per_run - 7.0 / 30.0).abs() < 1e-12);
        assert!((e.promoted_words_per_run - 700.0 / 30.0).abs() < 1e-9);
        assert_eq!(e.compactions_per_run, 0.0);
    }

    #[test]
    fn collector_counters_keep_the_visits_and_batches_the_time_estimate_leaves_out() {
        // The canary flags rounds 1 and 4, which ran slow, and one batch of every visit lost the
        // CPU; only the flagged visits and the descheduled batches held collections. R9's
        // `stdlist_assoc` at 1500 measured 148 promoted words a run over the kept visits, 408
        // over all of them, against the interpreter's 475.
        let mut visits = visits(1000.0, &[1, 4], 1.5);
        for v in &mut visits {
            v.slow_machine = [1, 4].contains(&v.round);
            for s in &mut v.samples {
                s.cpu_ns = Some(s.ns);
            }
            let lost = &mut v.samples[7];
            lost.ns += 1_000_000;
            lost.minor_collections = 1;
            lost.promoted_words = 500.0;
            if v.slow_machine {
                v.samples[20].minor_collections = 2;
                v.samples[20].promoted_words = 900.0;
            }
        }
        let runs: u64 = visits.iter().flat_map(|v| &v.samples).map(|s| s.runs).sum();
        let e = layout_estimate(0, 0, &visits, 1).unwrap();
        assert_eq!((e.slow_machine_visits, e.descheduled_samples), (2, 8));
        let expected = (8.0 * 500.0 + 2.0 * 900.0) / runs as f64;
        assert!(
            (e.promoted_words_per_run - expected).abs() < 1e-9,
            "{} against {expected}",
            e.promoted_words_per_run
        );
        assert!((e.minor_collections_per_run - 12.0 / runs as f64).abs() < 1e-12);
    }

    #[test]
    fn slow_visits_move_neither_the_estimate_nor_the_words() {
        let quiet = layout_estimate(0, 0, &visits(1000.0, &[], 1.0), 1).unwrap();
        let slowed = layout_estimate(0, 0, &visits(1000.0, &[1, 4, 6], 2.0), 1).unwrap();
        let ratio = slowed.ns_per_run.estimate / quiet.ns_per_run.estimate;
        assert!((0.99..1.01).contains(&ratio), "{ratio}");
        assert!(slowed.ns_per_run.ci_high > quiet.ns_per_run.ci_high);
        assert!((slowed.minor_words_per_run - 3.0).abs() < 1e-9);
        // Flagged by the canary: left out and counted.
        let mut flagged = visits(1000.0, &[1, 4, 6], 2.0);
        for v in &mut flagged {
            v.slow_machine = [1, 4, 6].contains(&v.round);
        }
        let e = layout_estimate(0, 0, &flagged, 1).unwrap();
        assert_eq!((e.visits, e.slow_machine_visits), (8, 3));
        assert_eq!(e.visit_ns_per_run.len(), 5);
        assert!(e.ns_per_run.ci_high < 1.02 * quiet.ns_per_run.ci_high.max(1000.0));
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
                    &visits(t * 1000.0, &[], 1.0),
                    j as u64,
                )
                .unwrap()
            })
            .collect();
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
        assert_eq!(e.samples, 4 * 8 * 40);
        assert_eq!(e.visits, 32);
    }
}
