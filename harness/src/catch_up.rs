//! Catch-up rounds: visits taken again because the canary saw the machine disturbed during
//! too many of a point's planned ones.
//!
//! The estimate over visits (the mean of the fastest half, [`crate::robust`]) holds as long as
//! fewer than half of a point's visits fell in a slow phase. On this machine a neighbour has
//! kept the canary 1.8× slower for 60% of a stage, and then most points have a slow majority:
//! their estimates move by up to 2×, and a model validated on them looks 30–50% off. So after
//! the planned rounds, every point with fewer than half its planned visits quiet is visited
//! again, in extra rounds of their own (each in a fresh random order), until it has them or
//! the extra rounds run out: at most as many as were planned, so a run disturbed throughout
//! takes at most twice its time, and a quiet run none.

use crate::canary::CanaryTimeline;
use crate::samples::{PointKey, VisitRecord};
use std::collections::BTreeMap;

/// Quiet visits a point needs: half its planned visits, and at least two (the fewest
/// [`crate::robust::usable`] accepts without falling back to disturbed ones).
pub fn quiet_visits_needed(rounds: u32) -> usize {
    (rounds as usize).div_ceil(2).max(2).min(rounds as usize)
}

/// The points that need another visit: fewer quiet visits than [`quiet_visits_needed`], judged
/// by `timeline` (no timeline, no catch-up). In `points`' order.
pub fn points_needing_visits(
    points: &[PointKey],
    visits: &[VisitRecord],
    timeline: Option<&CanaryTimeline>,
    rounds: u32,
) -> Vec<PointKey> {
    let Some(timeline) = timeline else {
        return Vec::new();
    };
    let mut quiet: BTreeMap<&PointKey, usize> = BTreeMap::new();
    for v in visits {
        if !timeline.disturbed_during(v.start_ms, v.end_ms) {
            *quiet.entry(&v.key).or_default() += 1;
        }
    }
    let needed = quiet_visits_needed(rounds);
    points
        .iter()
        .filter(|k| quiet.get(k).copied().unwrap_or(0) < needed)
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::CanaryRecord;

    fn key(benchmark: &str) -> PointKey {
        PointKey {
            benchmark: benchmark.into(),
            compiler: "4.13.1".into(),
            size: 100,
            layout: 0,
        }
    }

    fn visit(benchmark: &str, round: u32, at_s: u64) -> VisitRecord {
        VisitRecord {
            key: key(benchmark),
            round,
            sequence: 0,
            start_ms: at_s * 1000 + 100,
            end_ms: at_s * 1000 + 200,
            digest: None,
            input_ns: None,
            samples: 10,
        }
    }

    #[test]
    fn half_the_planned_visits_and_at_least_two() {
        assert_eq!(quiet_visits_needed(6), 3);
        assert_eq!(quiet_visits_needed(7), 4);
        assert_eq!(quiet_visits_needed(3), 2);
        assert_eq!(quiet_visits_needed(1), 1);
    }

    #[test]
    fn points_with_a_disturbed_majority_are_visited_again() {
        // Seconds 10–19 slow, the rest quiet.
        let readings: Vec<CanaryRecord> = (0..40)
            .map(|s| CanaryRecord {
                at_ms: s * 1000,
                ns_per_run: if (10..20).contains(&s) {
                    14000.0
                } else {
                    7500.0
                },
            })
            .collect();
        let timeline = CanaryTimeline::new(readings).unwrap();
        let visits = vec![
            // Six planned rounds: three quiet visits needed. a has two, b three, c none.
            visit("a", 0, 2),
            visit("a", 1, 12),
            visit("a", 2, 14),
            visit("a", 3, 30),
            visit("b", 0, 3),
            visit("b", 1, 13),
            visit("b", 2, 25),
            visit("b", 3, 31),
            visit("c", 0, 11),
            visit("c", 1, 15),
        ];
        let points = [key("a"), key("b"), key("c")];
        let needing = points_needing_visits(&points, &visits, Some(&timeline), 6);
        assert_eq!(needing, [key("a"), key("c")]);
        // Without a canary nothing is known to be disturbed.
        assert!(points_needing_visits(&points, &visits, None, 6).is_empty());
    }
}
