//! The join of the harness's estimates and the interpreter's counts into the fit's
//! observations, and the rule for which time stands for one run.

use harness::Estimate;
use std::collections::BTreeMap;
use training_gen::ProgramCounts;

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
                // The plain slope: collections are inside it, amortised over the runs, and the
                // counts price what makes them dear (PromotedWord, ScannedFrame). The harness's
                // separation of GC time is too unstable to subtract (docs/model.md, "The model").
                ns_per_run: e.ns_per_run.estimate,
                ns_per_run_layouts: e
                    .layouts
                    .iter()
                    .map(|l| l.ns_per_run.estimate)
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

    #[test]
    fn the_time_fitted_is_the_plain_slope_with_collections_inside() {
        // The harness's GC-separated slope (90) is not what enters the fit: the plain slope
        // (100) is, and the counts carry the GC terms.
        let estimate: Estimate = serde_json::from_value(serde_json::json!({
            "benchmark": "cons", "compiler": "c", "size": 1000, "samples": 10,
            "ns_per_run": {"estimate": 100.0, "ci_low": 95.0, "ci_high": 105.0},
            "r2": 0.99, "minor_words_per_run": 3000.0, "major_words_per_run": 18.0,
            "promoted_words_per_run": 18.0, "minor_collections_per_run": 0.01,
            "major_collections_per_run": 0.0, "layout_spread_pct": 1.0,
            "gc_fit": {"ns_per_run": 90.0, "ns_per_minor_collection": 1000.0,
                       "ns_per_major_collection": null, "r2": 1.0},
            "digest": "d", "layouts": []
        }))
        .unwrap();
        let counts = ProgramCounts {
            program: "cons".into(),
            size: 1000,
            counts: [("Cons".to_string(), 1000), ("PromotedWord".to_string(), 17)].into(),
            digest: "d".into(),
        };
        let (obs, left_out) = observations(&[estimate], &[counts], "c");
        assert!(left_out.is_empty());
        assert_eq!(obs.len(), 1);
        assert_eq!(obs[0].ns_per_run, 100.0);
        assert_eq!(obs[0].counts["PromotedWord"], 17.0);
        assert_eq!(obs[0].ns_per_minor_collection, Some(1000.0));
        assert_eq!(obs[0].words_per_run, 3000.0);
    }
}
