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
use crate::samples::{CanaryRecord, PointKey, VisitRecord};
use std::collections::BTreeMap;

/// Quiet visits a point needs: half its planned visits, and at least two (the fewest
/// [`crate::robust::usable`] accepts without falling back to disturbed ones).
pub fn quiet_visits_needed(rounds: u32) -> usize {
    (rounds as usize).div_ceil(2).max(2).min(rounds as usize)
}

/// The points that need another visit: fewer quiet visits than [`quiet_visits_needed`], judged
/// by `timeline` (no timeline, no catch-up). In `points`' order.
pub fn points_needing_visits<'a>(
    points: &[PointKey],
    visits: impl IntoIterator<Item = &'a VisitRecord>,
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

/// The points catch-up round `round` visits, decided as the run decided it when it got there:
/// on the visits of the rounds before it and, once the round has begun (a resumed run), on
/// the canary readings taken by the end of the last of those visits. The readings taken since
/// would move the decision: the typical level is a quartile of all the readings, and a
/// resumed R8 with its whole timeline chose 3 750 points more for its last five rounds than
/// the run had, and measured them. `reference` is the plan's quiet level
/// ([`CanaryTimeline::with_reference`]).
pub fn points_needing_visits_in_round(
    points: &[PointKey],
    visits: &[VisitRecord],
    canary: &[CanaryRecord],
    reference: Option<f64>,
    rounds: u32,
    round: u32,
) -> Vec<PointKey> {
    let before = || visits.iter().filter(|v| v.round < round);
    let begun = visits.iter().any(|v| v.round == round);
    let decided_by = before().map(|v| v.end_ms).max();
    let readings: Vec<CanaryRecord> = canary
        .iter()
        .filter(|r| !begun || decided_by.is_none_or(|end| r.at_ms <= end))
        .cloned()
        .collect();
    let timeline = CanaryTimeline::new(readings).map(|t| t.with_reference(reference));
    points_needing_visits(points, before(), timeline.as_ref(), rounds)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_begun_round_is_decided_on_what_was_known_when_it_began() {
        // Quiet at 7 500 ns until second 20; the planned rounds end at second 20, when `a` has
        // two quiet visits of six. Round 6 begins, and from second 21 on the machine runs at
        // 5 000 ns: read with those readings, the first quartile falls to 5 000, and every
        // planned visit of `b` looks disturbed.
        let canary = |last: u64| -> Vec<CanaryRecord> {
            (0..last)
                .map(|s| CanaryRecord {
                    at_ms: s * 1000 + 500,
                    ns_per_run: if (8..12).contains(&s) {
                        14000.0
                    } else if s > 20 {
                        5000.0
                    } else {
                        7500.0
                    },
                })
                .collect()
        };
        let mut visits = vec![
            visit("a", 0, 9),
            visit("a", 1, 10),
            visit("a", 2, 11),
            visit("a", 3, 12),
            visit("b", 0, 2),
            visit("b", 1, 3),
            visit("b", 2, 4),
            visit("b", 3, 20),
        ];
        let points = [key("a"), key("b")];
        let decided = points_needing_visits_in_round(&points, &visits, &canary(21), None, 6, 6);
        assert_eq!(decided, [key("a")]);
        visits.push(visit("a", 6, 21));
        visits.push(visit("a", 7, 35));
        let everything = canary(60);
        let naive = CanaryTimeline::new(everything.clone()).unwrap();
        assert_eq!(
            points_needing_visits(&points, &visits, Some(&naive), 6),
            [key("a"), key("b")],
            "the whole timeline would judge the run again"
        );
        let resumed = points_needing_visits_in_round(&points, &visits, &everything, None, 6, 6);
        assert_eq!(resumed, decided);
        // A round not begun yet is decided on every reading and the visits before it.
        let next = points_needing_visits_in_round(&points, &visits, &everything, None, 6, 8);
        assert_eq!(next, [key("a"), key("b")]);
    }
}
