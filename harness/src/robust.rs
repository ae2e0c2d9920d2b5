//! From visits to one figure per (point, layout), robust to slow phases.
//!
//! Interference on a shared machine only ever adds time: a visit taken while the sibling
//! hyperthread is busy runs up to 2× slower, for seconds to a minute, and nothing inside the
//! visit shows it (the CPU time grows with the wall time). So the estimate is the mean of the
//! **fastest half** of a point's visits: as long as fewer than half of its visits fell in a
//! slow phase it does not move, and averaging half the visits rather than keeping the single
//! fastest keeps its own noise low (the minimum of eight noisy visits is both further below
//! the truth and more variable). `docs/measuring.md` gives the measurements behind the choice.
//! Its 95% interval comes from resampling the visits: noise that drifts between visits widens
//! the interval instead of hiding in it.

use crate::estimate::undisturbed;
use crate::regression::{ols, percentile_interval, Line};
use ocaml_runtime::BatchSample;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The share of a point's visits the estimate averages: the fastest half.
pub const KEPT_FRACTION: f64 = 0.5;

/// One visit of one (point, layout): its batches, and whether the canary saw the machine
/// disturbed while it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct VisitData {
    pub round: u32,
    pub samples: Vec<BatchSample>,
    pub slow_machine: bool,
}

/// The regression of one visit's batches (descheduled batches left out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VisitFit {
    pub round: u32,
    pub line: Line,
    /// The visit's total time over its total runs: what its slope is checked against
    /// ([`plausible`]).
    pub per_run: f64,
    pub slow_machine: bool,
}

/// Runs at least this long make a batch's fixed cost (tens of nanoseconds) negligible, and
/// a visit of them holds only a few small batches, whose OLS slope one major-GC slice can
/// swing by 2× or even below zero: such a visit's time per run is its total time over its
/// total runs.
pub const LONG_RUN_NS: f64 = 20_000.0;

/// A visit's time per run: Core_bench's OLS slope of time on batch size, or for long runs
/// the ratio of totals ([`LONG_RUN_NS`]).
pub fn fit_visit(visit: &VisitData) -> Option<VisitFit> {
    let kept = undisturbed(&visit.samples);
    let runs: Vec<f64> = kept.iter().map(|s| s.runs as f64).collect();
    let ns: Vec<f64> = kept.iter().map(|s| s.ns as f64).collect();
    let total_runs: f64 = runs.iter().sum();
    let per_run = ns.iter().sum::<f64>() / total_runs;
    let line = if total_runs > 0.0 && per_run >= LONG_RUN_NS {
        Line {
            slope: per_run,
            intercept: 0.0,
            r2: ols(&runs, &ns).map_or(1.0, |l| l.r2),
        }
    } else {
        ols(&runs, &ns)?
    };
    Some(VisitFit {
        round: visit.round,
        line,
        per_run,
        slow_machine: visit.slow_machine,
    })
}

/// How many of `n` visits the estimate keeps.
pub fn kept_count(n: usize) -> usize {
    ((n as f64 * KEPT_FRACTION).ceil() as usize).clamp(1.min(n), n)
}

/// The mean of the fastest half of `slopes` (any order).
pub fn fast_half_mean(slopes: &[f64]) -> f64 {
    let mut sorted = slopes.to_vec();
    sorted.sort_by(f64::total_cmp);
    let k = kept_count(sorted.len());
    sorted[..k].iter().sum::<f64>() / k as f64
}

/// Bootstrap of [`fast_half_mean`] over visits: the replicates, sorted.
pub fn bootstrap_fast_half_mean(slopes: &[f64], resamples: usize, seed: u64) -> Vec<f64> {
    if slopes.len() < 2 {
        return slopes.to_vec();
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let mut draw = vec![0.0; slopes.len()];
    let mut replicates: Vec<f64> = (0..resamples)
        .map(|_| {
            for d in draw.iter_mut() {
                *d = slopes[rng.random_range(0..slopes.len())];
            }
            fast_half_mean(&draw)
        })
        .collect();
    replicates.sort_by(f64::total_cmp);
    replicates
}

/// The visits an estimate rests on: those the canary did not flag, unless fewer than two
/// remain (then every visit, as a machine disturbed throughout is still the best there is) —
/// and the flagged ones that ran faster than the others' estimate anyway. Interference only
/// adds time: a flagged visit faster than that was not slowed more than the unflagged ones,
/// which something the canary did not feel slowed instead. Seen on a host whose neighbour
/// halved the speed for most of a measurement: the canary flagged the visits that ran at full
/// speed and not those of a slow phase of the program's own, and leaving the flagged ones out
/// made the estimate the slow phase's.
pub fn usable(fits: &[VisitFit]) -> Vec<VisitFit> {
    let quiet: Vec<f64> = fits
        .iter()
        .filter(|f| !f.slow_machine)
        .map(|f| f.line.slope)
        .collect();
    if quiet.len() < 2 {
        return fits.to_vec();
    }
    let quiet_estimate = fast_half_mean(&quiet);
    fits.iter()
        .filter(|f| !f.slow_machine || f.line.slope < quiet_estimate)
        .copied()
        .collect()
}

/// A visit whose slope is this much below its own time per run (total time over total runs)
/// was tilted by its regression, not a fast moment. A burst of slow batches at the small batch
/// sizes of a visit (12 batches 26× slower, CPU time growing with wall time, seen in a quiet
/// run) tilts its OLS line below zero while hardly moving its totals, and the fastest-half
/// mean would average it in.
pub const TILTED: f64 = 0.7;

/// A visit this much faster than the median of its layout's visits is an artifact too:
/// interference only adds time, and slows a program at most about 2× (a neighbour on the
/// sibling vCPU), so a visit at full speed among slowed ones sits near half their median. The
/// floor was 0.7× the median while tilts were found only that way; on a host disturbed for
/// most of a measurement it left out the visits that ran at full speed (0.47× the median).
pub const IMPLAUSIBLY_FAST: f64 = 0.4;

/// The visits whose time per run is plausible: a positive slope, at least [`TILTED`] of the
/// visit's own time per run and [`IMPLAUSIBLY_FAST`] of the median of the positive slopes (all
/// of them when none is positive). The median visit itself always stays, so some visit is
/// always kept.
pub fn plausible(fits: &[VisitFit]) -> Vec<VisitFit> {
    let mut positive: Vec<f64> = fits
        .iter()
        .map(|f| f.line.slope)
        .filter(|&s| s > 0.0)
        .collect();
    if positive.is_empty() {
        return fits.to_vec();
    }
    positive.sort_by(f64::total_cmp);
    let median = positive[positive.len() / 2];
    fits.iter()
        .filter(|f| {
            let slope = f.line.slope;
            slope == median || (slope >= IMPLAUSIBLY_FAST * median && slope >= TILTED * f.per_run)
        })
        .copied()
        .collect()
}

/// The estimate and its 95% interval over visits' slopes.
pub fn estimate(slopes: &[f64], resamples: usize, seed: u64) -> (f64, (f64, f64), Vec<f64>) {
    let estimate = fast_half_mean(slopes);
    let replicates = bootstrap_fast_half_mean(slopes, resamples, seed);
    let interval = percentile_interval(&replicates).unwrap_or((estimate, estimate));
    (estimate, interval, replicates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_half_mean_ignores_a_minority_of_slow_visits() {
        let quiet = [100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 100.2, 99.8];
        let base = fast_half_mean(&quiet);
        let mut disturbed = quiet;
        // Three of the slower visits fell in a slow phase.
        disturbed[1] = 200.0;
        disturbed[3] = 190.0;
        disturbed[6] = 150.0;
        assert_eq!(fast_half_mean(&disturbed), base);
        // The plain mean is dragged by 16%.
        let mean = disturbed.iter().sum::<f64>() / 8.0;
        assert!(mean / base > 1.15, "{mean}");
        assert_eq!(kept_count(8), 4);
        assert_eq!(kept_count(7), 4);
        assert_eq!(kept_count(1), 1);
        assert_eq!(fast_half_mean(&[5.0]), 5.0);
    }

    #[test]
    fn the_interval_widens_when_visits_disagree() {
        let tight = [100.0, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.0];
        let loose = [100.0, 110.0, 90.0, 105.0, 95.0, 108.0, 92.0, 100.0];
        let (_, (a, b), _) = estimate(&tight, 2000, 1);
        let (_, (c, d), _) = estimate(&loose, 2000, 1);
        assert!(a <= 100.0 && b >= 99.5, "({a}, {b})");
        assert!(d - c > 5.0 * (b - a), "({a}, {b}) vs ({c}, {d})");
    }

    fn batch(runs: u64, ns: u64) -> BatchSample {
        BatchSample::timing(runs, ns)
    }

    #[test]
    fn long_runs_are_priced_by_total_time_not_by_a_slope_a_gc_slice_can_swing() {
        // One millisecond a run; the third batch escaped a major slice that the others paid.
        let visit = VisitData {
            round: 0,
            samples: vec![
                batch(1, 1_400_000),
                batch(2, 2_400_000),
                batch(3, 2_500_000),
                batch(4, 4_400_000),
            ],
            slow_machine: false,
        };
        let fit = fit_visit(&visit).unwrap();
        assert!(
            (fit.line.slope - 10_700_000.0 / 10.0).abs() < 1e-6,
            "{fit:?}"
        );
        // Short runs keep the regression, whose intercept absorbs the batch's fixed cost.
        let short = VisitData {
            round: 0,
            samples: (1..=20).map(|k| batch(k, 100 + 10 * k)).collect(),
            slow_machine: false,
        };
        let fit = fit_visit(&short).unwrap();
        assert!((fit.line.slope - 10.0).abs() < 1e-9 && (fit.line.intercept - 100.0).abs() < 1e-6);
    }

    #[test]
    fn canary_flagged_visits_are_left_out_unless_too_few_remain() {
        let fits = [fit(0, 1.0, false), fit(1, 2.0, true), fit(2, 1.1, false)];
        let kept: Vec<u32> = usable(&fits).iter().map(|f| f.round).collect();
        assert_eq!(kept, vec![0, 2]);
        let mostly_slow = [fit(0, 1.0, true), fit(1, 2.0, true), fit(2, 1.1, false)];
        assert_eq!(usable(&mostly_slow).len(), 3);
    }

    fn fit(round: u32, slope: f64, slow_machine: bool) -> VisitFit {
        VisitFit {
            round,
            line: Line {
                slope,
                intercept: 0.0,
                r2: 1.0,
            },
            per_run: slope,
            slow_machine,
        }
    }

    fn rounds(fits: &[VisitFit]) -> Vec<u32> {
        fits.iter().map(|f| f.round).collect()
    }

    /// One layout of a measurement on a host whose neighbour halved the speed for most of it
    /// (µs per run at 20 000): rounds 0–2 a slow phase of the program's own (3× the work) that
    /// the canary did not see, round 3 at full speed, rounds 4–9 flagged, two of them at full
    /// speed all the same.
    const HALVED: [(f64, bool); 10] = [
        (46.4, false),
        (47.6, false),
        (47.6, false),
        (17.9, false),
        (14.5, true),
        (17.8, true),
        (29.9, true),
        (30.9, true),
        (27.3, true),
        (27.7, true),
    ];

    #[test]
    fn flagged_visits_faster_than_the_unflagged_estimate_are_kept() {
        let fits: Vec<VisitFit> = HALVED
            .iter()
            .enumerate()
            .map(|(i, &(slope, flagged))| fit(i as u32, slope, flagged))
            .collect();
        // The unflagged estimate is the mean of 17.9 and 46.4: every flagged visit is faster.
        assert_eq!(rounds(&usable(&fits)), (0..10).collect::<Vec<_>>());
        let estimate = fast_half_mean(
            &plausible(&usable(&fits))
                .iter()
                .map(|f| f.line.slope)
                .collect::<Vec<_>>(),
        );
        // The full-speed visits lead it: within 30% of their mean, not at the slow phase's 47.
        assert!((estimate / 16.7 - 1.0).abs() < 0.3, "{estimate}");
        // Of two flagged visits, the one slower than the unflagged estimate (10.0) stays out.
        let slowed = [
            fit(0, 10.0, false),
            fit(1, 10.5, false),
            fit(2, 9.8, true),
            fit(3, 20.0, true),
        ];
        assert_eq!(rounds(&usable(&slowed)), vec![0, 1, 2]);
    }

    #[test]
    fn full_speed_among_halved_visits_is_plausible_and_a_tilt_is_not() {
        let fits: Vec<VisitFit> = HALVED[3..]
            .iter()
            .enumerate()
            .map(|(i, &(slope, _))| fit(i as u32, slope, false))
            .collect();
        // 14.5 is 0.5× the median (27.7): the old floor of 0.7× left it and 17.8, 17.9 out.
        assert_eq!(plausible(&fits).len(), fits.len());
        // A visit whose slope is half its own time per run was tilted by its regression.
        let mut tilted = fits.clone();
        tilted[0].per_run = 2.0 * tilted[0].line.slope;
        assert_eq!(rounds(&plausible(&tilted)), (1..7).collect::<Vec<_>>());
    }

    /// Visit 1 of `integrate` at 300 elements, layout 0, in a quiet run: batches 9 to 20 ran
    /// 26× slower (CPU time growing with wall time), and its OLS line falls below zero. The
    /// layout's other visits came out at 750, 877, 862, 867 and 307 ns per run.
    const TILTED_VISIT: [(u64, u64); 59] = [
        (1, 1365),
        (2, 2922),
        (3, 3464),
        (4, 5359),
        (5, 7602),
        (6, 7440),
        (7, 11125),
        (8, 10978),
        (9, 205550),
        (10, 229416),
        (11, 259325),
        (12, 292913),
        (13, 309462),
        (14, 358656),
        (15, 361344),
        (16, 375533),
        (17, 405546),
        (18, 426727),
        (19, 448416),
        (20, 469666),
        (21, 84364),
        (23, 30034),
        (25, 31656),
        (27, 34094),
        (29, 34321),
        (31, 29656),
        (33, 28338),
        (35, 32295),
        (37, 32150),
        (39, 33991),
        (41, 36332),
        (44, 37020),
        (47, 39527),
        (50, 43174),
        (53, 44793),
        (56, 48920),
        (59, 49604),
        (62, 53471),
        (66, 57634),
        (70, 59388),
        (74, 63760),
        (78, 67760),
        (82, 68949),
        (87, 74525),
        (92, 84142),
        (97, 84867),
        (102, 92402),
        (108, 94569),
        (114, 103448),
        (120, 104431),
        (126, 115254),
        (133, 113837),
        (140, 125191),
        (147, 131330),
        (155, 140391),
        (163, 136811),
        (172, 153877),
        (181, 159445),
        (191, 167883),
    ];

    #[test]
    fn a_visit_tilted_below_the_others_by_its_regression_is_left_out() {
        let tilted = fit_visit(&VisitData {
            round: 1,
            samples: TILTED_VISIT.iter().map(|&(r, ns)| batch(r, ns)).collect(),
            slow_machine: false,
        })
        .unwrap();
        assert!(tilted.line.slope < 0.0, "{:?}", tilted.line);
        let others = [750.0, 877.0, 862.0, 867.0, 307.0];
        let mut fits: Vec<VisitFit> = others
            .iter()
            .enumerate()
            .map(|(i, &slope)| VisitFit {
                round: i as u32 + 2,
                line: Line {
                    slope,
                    intercept: 0.0,
                    r2: 0.9,
                },
                per_run: slope,
                slow_machine: false,
            })
            .collect();
        fits.push(tilted);
        let all: Vec<f64> = fits.iter().map(|f| f.line.slope).collect();
        let kept: Vec<f64> = plausible(&fits).iter().map(|f| f.line.slope).collect();
        assert_eq!(kept, vec![750.0, 877.0, 862.0, 867.0]);
        // Against the median of the good visits (862 ns): unguarded, the fastest half
        // averages the two artifacts and falls by two thirds.
        assert!(
            fast_half_mean(&all) < 0.4 * 862.0,
            "{}",
            fast_half_mean(&all)
        );
        let guarded = fast_half_mean(&kept);
        assert!(guarded > 0.9 * 862.0, "{guarded}");
        assert_eq!(plausible(&fits[..0]).len(), 0);
    }
}
