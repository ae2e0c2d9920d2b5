//! How much the processor's branch predictor remembers, as a machine figure like the cache
//! sizes of [`crate::cache`]: the model predictor's long table ([`crate::two_way`]) is sized
//! from it.
//!
//! The figure is the **kept tosses**: over how many coin-toss `if`s a walk repeated run
//! after run loses half of its outcomes, the steady state a benchmark is timed in. Below it the
//! processor predicts the walk in full, well above it misses half the tosses as a cold
//! predictor would. It is a property of the core, not of the program: on the Intel host whose
//! measurements sized the model it is about 11 000 (session 47, 2 layouts, 1 run: the walk of
//! 8000 lost 9% of its tosses, 10 000 41%, 12 000 61%, 16 000 71%), as many as the model's own
//! tables keep (10 950); on a Zen 5 about 44 000 (session 46: 16 000 cost nothing, 32 000 lost
//! about a sixth, 64 000 nine tenths).
//! A model sized for one core overpredicts a search tree the other learns in full
//! (`bst_search` at 2000 queries, 4.7× on the Zen 5) or underpredicts one it loses.
//!
//! `mlcost suite` measures the figure before it counts anything (the harness's branch
//! probe) and keeps it in the run (`branch-memory.json`, a [`BranchMemory`]), so that a rescore counts as the run's
//! machine did; `mlcost count --predictor-tosses` sets it for one program. Without either, the
//! model keeps [`MODEL_KEPT_TOSSES`], the Intel host's.

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};

/// The tosses the model's tables keep as [`crate::two_way`] sizes them (scale 1): the point
/// where a repeated walk of tosses loses half of them, found as the probe finds the machine's
/// (see [`model_kept_tosses`], which the tests check this against).
pub const MODEL_KEPT_TOSSES: f64 = 10_950.0;

/// The smallest and largest scale the long table takes: a figure beyond them is a probe that
/// measured something else (a machine too disturbed, a predictor of another kind).
const SCALE_RANGE: (f64, f64) = (0.25, 32.0);

/// The set kept tosses as `f64` bits, 0 while unset.
static SET_TOSSES: AtomicU64 = AtomicU64::new(0);

/// Makes the interpreter count branch misses as a predictor keeping `kept_tosses` would
/// (a run's measured figure, or `mlcost count --predictor-tosses`). Counting after this call
/// uses it.
pub fn set_kept_tosses(kept_tosses: f64) {
    if kept_tosses.is_finite() && kept_tosses > 0.0 {
        SET_TOSSES.store(kept_tosses.to_bits(), Ordering::Relaxed);
    }
}

/// The kept tosses counting uses now: the figure last set ([`set_kept_tosses`]), else
/// [`MODEL_KEPT_TOSSES`].
pub fn kept_tosses() -> f64 {
    match SET_TOSSES.load(Ordering::Relaxed) {
        0 => MODEL_KEPT_TOSSES,
        bits => f64::from_bits(bits),
    }
}

/// How many times its reference size the long table is for the machine's kept tosses: the
/// tosses a table keeps grow with its entries (checked by the tests at scale 4).
pub(crate) fn table_scale() -> f64 {
    (kept_tosses() / MODEL_KEPT_TOSSES).clamp(SCALE_RANGE.0, SCALE_RANGE.1)
}

/// Lost shares at these walk lengths find the half-loss point: a geometric ladder, two
/// steps an octave, as the harness's probe measures.
pub fn probe_sizes() -> Vec<u64> {
    (0..13)
        .map(|k| (2000.0 * 2f64.powf(f64::from(k) / 2.0)).round() as u64)
        .collect()
}

/// Each length's lost share of its tosses, from `(length, extra)` pairs in increasing length:
/// `extra` is what the tosses cost over the same walk with outcomes a predictor learns
/// (nanoseconds on the machine, misses in the model), and the share is its extra per toss
/// over the longest one's. `None` when the longest walk loses nothing measurable
/// (`min_extra_per_toss` and less), or the lengths are not increasing.
pub fn lost_shares(points: &[(u64, f64)], min_extra_per_toss: f64) -> Option<Vec<(u64, f64)>> {
    let &(longest, extra) = points.last()?;
    if points.windows(2).any(|w| w[0].0 >= w[1].0) || longest == 0 {
        return None;
    }
    let full = extra / longest as f64;
    if full.is_nan() || full <= min_extra_per_toss {
        return None;
    }
    Some(
        points
            .iter()
            .map(|&(n, e)| (n, (e / n as f64 / full).max(0.0)))
            .collect(),
    )
}

/// The walk length at which a repeated walk of coin tosses loses half of them, from the
/// pairs [`lost_shares`] reads: interpolated on a log scale between the last length below
/// half and the first above.
pub fn half_loss_point(points: &[(u64, f64)], min_extra_per_toss: f64) -> Option<f64> {
    let shares = lost_shares(points, min_extra_per_toss)?;
    // The last length that still keeps more than half, scanning back from the longest: a
    // dip at a short length (a disturbed reading) does not end the search early.
    let Some(i) = shares.iter().rposition(|&(_, lost)| lost < 0.5) else {
        return Some(shares[0].0 as f64);
    };
    let ((na, la), (nb, lb)) = (shares[i], shares[i + 1]);
    let t = ((0.5 - la) / (lb - la)).clamp(0.0, 1.0);
    Some(na as f64 * (nb as f64 / na as f64).powf(t))
}

/// The kept tosses of the model predictor at `scale` times its long table, found as the
/// probe finds the machine's: the steady-state misses of a walk of tosses (and the walk's own
/// loop test) at [`probe_sizes`], each against a walk that misses nothing.
pub fn model_kept_tosses(scale: f64) -> Option<f64> {
    let points: Vec<(u64, f64)> = probe_sizes()
        .into_iter()
        .map(|n| {
            let misses = crate::branch_trace::steady_coin_toss_misses(n as usize, scale);
            (n, misses as f64)
        })
        .collect();
    half_loss_point(&points, 0.1)
}

/// Below this extra time per toss at the longest walk the machine lost nothing measurable (a
/// miss costs 4–8 ns on the hosts measured, and half the tosses of a lost walk miss).
pub const MIN_EXTRA_NS_PER_TOSS: f64 = 0.5;

/// One walk length the branch probe timed: the time per run of both walks, over its code
/// layouts and in each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbePoint {
    pub tosses: u64,
    pub toss_ns: f64,
    pub learnt_ns: f64,
    /// Per code layout, in layout order.
    #[serde(default)]
    pub toss_ns_by_layout: Vec<f64>,
    #[serde(default)]
    pub learnt_ns_by_layout: Vec<f64>,
}

/// Each point's length and the tosses' extra time over the learnt walk.
fn extras(points: &[ProbePoint]) -> Vec<(u64, f64)> {
    points
        .iter()
        .map(|p| (p.tosses, p.toss_ns - p.learnt_ns))
        .collect()
}

/// What the branch probe found: a run's `branch-memory.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BranchMemory {
    /// The walk length at which half the tosses are lost; `None` when the probe could not
    /// tell (the longest walk lost nothing measurable), and counting keeps the model's own.
    pub kept_tosses: Option<f64>,
    /// The same figure read from each code layout alone: how far the layouts agree.
    #[serde(default)]
    pub kept_tosses_by_layout: Vec<Option<f64>>,
    pub points: Vec<ProbePoint>,
    /// Visits the canary saw disturbed, of all the probe's visits.
    pub disturbed_visits: usize,
    pub visits: usize,
}

impl BranchMemory {
    /// The figures from the points, as [`half_loss_point`] reads them.
    pub fn from_points(points: Vec<ProbePoint>, disturbed_visits: usize, visits: usize) -> Self {
        let layouts = points
            .iter()
            .map(|p| p.toss_ns_by_layout.len().min(p.learnt_ns_by_layout.len()))
            .min()
            .unwrap_or(0);
        let kept_tosses_by_layout = (0..layouts)
            .map(|l| {
                let layout_extras: Vec<(u64, f64)> = points
                    .iter()
                    .map(|p| (p.tosses, p.toss_ns_by_layout[l] - p.learnt_ns_by_layout[l]))
                    .collect();
                half_loss_point(&layout_extras, MIN_EXTRA_NS_PER_TOSS)
            })
            .collect();
        BranchMemory {
            kept_tosses: half_loss_point(&extras(&points), MIN_EXTRA_NS_PER_TOSS),
            kept_tosses_by_layout,
            points,
            disturbed_visits,
            visits,
        }
    }

    /// Each length's share of tosses lost ([`lost_shares`]), for the report's chart.
    pub fn lost_shares(&self) -> Option<Vec<(u64, f64)>> {
        lost_shares(&extras(&self.points), MIN_EXTRA_NS_PER_TOSS)
    }

    /// Makes the interpreter count with this figure ([`set_kept_tosses`]); a probe that could
    /// not tell leaves the model's own.
    pub fn make_current(&self) {
        if let Some(kept) = self.kept_tosses {
            set_kept_tosses(kept);
        }
    }

    /// The smallest and largest of the per-layout figures, when every layout gave one.
    pub fn layout_range(&self) -> Option<(f64, f64)> {
        let figures: Option<Vec<f64>> = self.kept_tosses_by_layout.iter().copied().collect();
        let figures = figures.filter(|f| !f.is_empty())?;
        Some((
            figures.iter().copied().fold(f64::INFINITY, f64::min),
            figures.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        ))
    }

    /// One line for the terminal.
    pub fn summary(&self) -> String {
        let disturbed = if self.disturbed_visits > 0 {
            format!(
                " ({} of {} visits disturbed)",
                self.disturbed_visits, self.visits
            )
        } else {
            String::new()
        };
        match self.kept_tosses {
            Some(kept) => {
                let range = self
                    .layout_range()
                    .map(|(lo, hi)| format!(", layouts {lo:.0}–{hi:.0}"))
                    .unwrap_or_default();
                format!(
                    "branch predictor: keeps about {kept:.0} coin tosses{range} (the model's \
                     tables: {MODEL_KEPT_TOSSES:.0}; long table ×{:.2}){disturbed}",
                    kept / MODEL_KEPT_TOSSES
                )
            }
            None => format!(
                "branch predictor: the probe saw no lost tosses up to {} (counting with the \
                 model's own {MODEL_KEPT_TOSSES:.0}){disturbed}",
                self.points.last().map_or(0, |p| p.tosses)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(tosses: u64, extra_per_toss: f64) -> ProbePoint {
        let learnt = tosses as f64 * 1.3;
        let toss = tosses as f64 * (1.3 + extra_per_toss);
        ProbePoint {
            tosses,
            toss_ns: toss,
            learnt_ns: learnt,
            // A second layout that loses a little later than the first.
            toss_ns_by_layout: vec![toss, tosses as f64 * (1.3 + 0.8 * extra_per_toss)],
            learnt_ns_by_layout: vec![learnt, learnt],
        }
    }

    #[test]
    fn the_probe_reads_the_length_that_loses_half_its_tosses() {
        // The Intel host's walk (session 47): 9% lost at 8000, 41% at 10 000, 61% at 12 000.
        let memory = BranchMemory::from_points(
            vec![
                point(4000, 0.0),
                point(8000, 0.27),
                point(10_000, 1.23),
                point(12_000, 1.84),
                point(64_000, 3.0),
            ],
            0,
            40,
        );
        let kept = memory.kept_tosses.unwrap();
        assert!((10_500.0..11_500.0).contains(&kept), "{kept}");
        // Both layouts lose their longest walk in full, so the second's shares are the
        // first's: the same figure.
        let (lo, hi) = memory.layout_range().unwrap();
        assert!(
            (lo - kept).abs() < 1.0 && (hi - kept).abs() < 1.0,
            "{lo} {hi}"
        );
        let shares = memory.lost_shares().unwrap();
        assert!((shares[2].1 - 0.41).abs() < 0.01, "{shares:?}");
        assert!(
            memory.summary().contains("keeps about"),
            "{}",
            memory.summary()
        );
    }

    #[test]
    fn a_probe_that_saw_no_loss_keeps_the_models_figure_and_says_so() {
        let memory = BranchMemory::from_points(vec![point(4000, 0.0), point(128_000, 0.1)], 3, 40);
        assert_eq!(memory.kept_tosses, None);
        assert_eq!(memory.layout_range(), None);
        assert!(
            memory.summary().contains("no lost tosses up to 128000")
                && memory.summary().contains("3 of 40 visits disturbed"),
            "{}",
            memory.summary()
        );
    }

    #[test]
    fn a_record_from_before_the_layouts_reads() {
        let json = r#"{"kept_tosses": 11579.7, "points": [{"tosses": 2000, "toss_ns": 2646.2,
            "learnt_ns": 2696.4}], "disturbed_visits": 0, "visits": 104}"#;
        let memory: BranchMemory = serde_json::from_str(json).unwrap();
        assert_eq!(memory.kept_tosses, Some(11579.7));
        assert!(memory.kept_tosses_by_layout.is_empty() && memory.layout_range().is_none());
    }

    #[test]
    fn the_half_loss_point_is_interpolated_between_the_lengths_around_it() {
        // Lost shares 0, 0.25, 0.75, 1 of the longest's per-toss extra (2 a toss).
        let points = [(1000, 0.0), (2000, 1000.0), (4000, 6000.0), (8000, 16000.0)];
        let kept = half_loss_point(&points, 0.5).unwrap();
        // Halfway between 2000 and 4000 on a log scale.
        assert!((kept - 2000.0 * 2f64.sqrt()).abs() < 1.0, "{kept}");
        // A dip at a short length does not stop the search.
        let dipped = [
            (1000, 800.0),
            (2000, 1000.0),
            (4000, 6000.0),
            (8000, 16000.0),
        ];
        assert!((half_loss_point(&dipped, 0.5).unwrap() - kept).abs() < 1.0);
    }

    #[test]
    fn a_walk_that_loses_nothing_or_everything_is_said_so() {
        // The longest walk costs no more than the learnt one: the predictor keeps it all.
        assert_eq!(half_loss_point(&[(1000, 0.0), (2000, 10.0)], 0.5), None);
        // Every walk loses more than half: the figure is at most the shortest.
        assert_eq!(
            half_loss_point(&[(1000, 1800.0), (2000, 4000.0)], 0.5),
            Some(1000.0)
        );
        // Lengths out of order are no ladder.
        assert_eq!(half_loss_point(&[(2000, 1.0), (1000, 4000.0)], 0.5), None);
    }

    #[test]
    fn the_model_keeps_the_tosses_it_says_and_more_with_a_larger_table() {
        let kept = model_kept_tosses(1.0).unwrap();
        assert!(
            (kept / MODEL_KEPT_TOSSES - 1.0).abs() < 0.05,
            "the model keeps {kept} tosses, MODEL_KEPT_TOSSES says {MODEL_KEPT_TOSSES}"
        );
        // Four times the table keeps about four times the tosses: the scale the machine's
        // figure asks for is the one it gets.
        let quadruple = model_kept_tosses(4.0).unwrap();
        assert!(
            (quadruple / kept / 4.0 - 1.0).abs() < 0.15,
            "{quadruple} at scale 4 against {kept}"
        );
    }
}
