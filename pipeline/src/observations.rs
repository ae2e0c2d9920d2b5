//! The join of the harness's estimates and the interpreter's counts into the fit's
//! observations, and the rule for which time stands for one run.

use harness::Estimate;
use std::collections::BTreeMap;
use training_gen::ProgramCounts;

/// How far above the plain slope the GC-separated slope may be and still be believed: the
/// multivariate fit removes collection time, so it should not exceed the plain slope by more
/// than noise.
const GC_FIT_TOLERANCE: f64 = 1.05;

/// The time of one run without collections: the multivariate fit's per-run slope where the
/// harness could separate GC time (and it is plausible), the plain slope otherwise.
pub fn time_without_gc(plain: f64, gc_fit: Option<harness::GcFit>) -> f64 {
    match gc_fit {
        Some(g) if g.ns_per_run > 0.0 && g.ns_per_run <= plain * GC_FIT_TOLERANCE => g.ns_per_run,
        _ => plain,
    }
}

/// One observation per (program, size) of `compiler` that was both measured and counted, and
/// the points left out because their time per run is not positive (a slope drowned in noise:
/// too short a quota for a program dominated by collections).
pub fn observations(
    estimates: &[Estimate],
    counts: &[ProgramCounts],
    compiler: &str,
) -> (Vec<fit::Observation>, Vec<String>) {
    let by_point: BTreeMap<(&str, u64), &ProgramCounts> = counts
        .iter()
        .map(|c| ((c.program.as_str(), c.size), c))
        .collect();
    let (usable, unusable): (Vec<&Estimate>, Vec<&Estimate>) = estimates
        .iter()
        .filter(|e| e.compiler == compiler)
        .partition(|e| e.ns_per_run.estimate.is_finite() && e.ns_per_run.estimate > 0.0);
    let left_out = unusable
        .iter()
        .map(|e| {
            format!(
                "{}:{} (slope {:.1} ns, R² {:.3})",
                e.benchmark, e.size, e.ns_per_run.estimate, e.r2
            )
        })
        .collect();
    let observations = usable
        .into_iter()
        .filter_map(|e| {
            let row = by_point.get(&(e.benchmark.as_str(), e.size))?;
            Some(fit::Observation {
                program: e.benchmark.clone(),
                size: e.size,
                ns_per_run: time_without_gc(e.ns_per_run.estimate, e.gc_fit),
                ns_per_run_layouts: e
                    .layouts
                    .iter()
                    .map(|l| time_without_gc(l.ns_per_run.estimate, l.gc_fit))
                    .filter(|t| *t > 0.0)
                    .collect(),
                ns_ci: (e.ns_per_run.ci_low, e.ns_per_run.ci_high),
                words_per_run: e.minor_words_per_run + e.major_words_per_run
                    - e.promoted_words_per_run,
                minor_collections_per_run: e.minor_collections_per_run,
                promoted_words_per_run: e.promoted_words_per_run,
                // Collections nearly proportional to runs make this coefficient unstable; a
                // negative time per collection is such an artefact, not a measurement.
                ns_per_minor_collection: e
                    .gc_fit
                    .and_then(|g| g.ns_per_minor_collection)
                    .filter(|t| t.is_finite() && *t > 0.0),
                counts: row
                    .counts
                    .iter()
                    .map(|(k, &v)| (k.clone(), v as f64))
                    .collect(),
            })
        })
        .collect();
    (observations, left_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gc(ns_per_run: f64) -> Option<harness::GcFit> {
        Some(harness::GcFit {
            ns_per_run,
            ns_per_minor_collection: None,
            ns_per_major_collection: None,
            r2: 1.0,
        })
    }

    #[test]
    fn the_gc_separated_slope_is_used_only_when_plausible() {
        assert_eq!(time_without_gc(100.0, None), 100.0);
        assert_eq!(time_without_gc(100.0, gc(90.0)), 90.0);
        assert_eq!(time_without_gc(100.0, gc(105.0)), 105.0);
        assert_eq!(time_without_gc(100.0, gc(106.0)), 100.0);
        assert_eq!(time_without_gc(100.0, gc(-1.0)), 100.0);
    }
}
