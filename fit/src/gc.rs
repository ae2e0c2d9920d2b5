//! The minor-GC model of paper §6: every minor collection starts with a full minor heap of
//! H0 bytes and empties it, and takes T_gc nanoseconds. A run that allocates M bytes then
//! spends `M / H0 · T_gc` in collections (the expected value per run; the paper's floor is the
//! count for a single run).

use serde::{Deserialize, Serialize};
use statrs::distribution::{Binomial, DiscreteCDF};

use crate::diagnostics::median;
use crate::input::{FitContext, Observation};
use crate::model::ConstantEstimate;

/// H0 and T_gc, as stored under `gc` in `model.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GcModel {
    /// H0: minor heap words from the runtime x word size.
    pub minor_heap_bytes: u64,
    /// T_gc: median over points of the harness's per-collection time, with a distribution-free
    /// interval for that median. Null when no point collected.
    pub ns_per_minor_collection: Option<ConstantEstimate>,
    /// Points that contributed a per-collection time.
    pub collection_points: usize,
    /// The paper's check of H0: median over collecting points of bytes allocated per minor
    /// collection. Close to `minor_heap_bytes` when the model's assumption holds; well above it
    /// when much of the allocation goes straight to the major heap.
    pub minor_heap_bytes_from_allocation: Option<f64>,
}

pub(crate) fn fit_gc(
    observations: &[Observation],
    context: &FitContext,
    confidence: f64,
) -> GcModel {
    let word_size = f64::from(context.word_size_bytes);
    let collection_times: Vec<f64> = observations
        .iter()
        .filter_map(|observation| observation.ns_per_minor_collection)
        .collect();
    let bytes_per_collection: Vec<f64> = observations
        .iter()
        .filter(|o| o.minor_collections_per_run > 0.0 && o.words_per_run > 0.0)
        .map(|o| o.words_per_run * word_size / o.minor_collections_per_run)
        .collect();
    GcModel {
        minor_heap_bytes: context.minor_heap_words * u64::from(context.word_size_bytes),
        collection_points: collection_times.len(),
        ns_per_minor_collection: median_with_interval(collection_times, confidence),
        minor_heap_bytes_from_allocation: median(bytes_per_collection),
    }
}

/// Median with the order-statistic interval `[x_(l), x_(n+1−l)]`, where l is the largest rank
/// with `P(Binomial(n, ½) < l) ≤ (1 − confidence) / 2`: coverage at least `confidence` for any
/// continuous distribution, and untouched by a few wild points. With too few points for such
/// an interval, it is the range.
pub(crate) fn median_with_interval(
    mut values: Vec<f64>,
    confidence: f64,
) -> Option<ConstantEstimate> {
    let estimate = median(values.clone())?;
    values.sort_unstable_by(f64::total_cmp);
    let count = values.len();
    let tail = (1.0 - confidence) / 2.0;
    let mut rank = 0; // 1-based rank of the lower bound; 0 = no rank qualifies
    if let Ok(binomial) = Binomial::new(0.5, count as u64) {
        while rank < count / 2 && binomial.cdf(rank as u64) <= tail {
            rank += 1;
        }
    }
    let (ci_low, ci_high) = if rank == 0 {
        (values[0], values[count - 1])
    } else {
        (values[rank - 1], values[count - rank])
    };
    Some(ConstantEstimate {
        estimate,
        ci_low,
        ci_high,
        std_error: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_interval_uses_binomial_ranks() {
        // n = 20: P(B ≤ 5) = 0.0207 ≤ 0.025 < P(B ≤ 6) = 0.0577, so ranks 6 and 15.
        let values: Vec<f64> = (1..=20).map(f64::from).collect();
        let estimate = median_with_interval(values, 0.95).unwrap();
        assert_eq!(estimate.estimate, 10.5);
        assert_eq!((estimate.ci_low, estimate.ci_high), (6.0, 15.0));
    }

    #[test]
    fn too_few_points_give_the_range() {
        let estimate = median_with_interval(vec![3.0, 1.0, 2.0], 0.95).unwrap();
        assert_eq!((estimate.ci_low, estimate.ci_high), (1.0, 3.0));
        assert!(median_with_interval(Vec::new(), 0.95).is_none());
    }
}
