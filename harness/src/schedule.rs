//! The order of a run's visits: every point once per round, each round in a fresh random
//! order drawn from the run's seed. A slow phase of the machine then falls on a few visits
//! of many points, scattered over the run, instead of on every batch of a few points.
//! Compilers are compared by pairs of visits, as Chromium's Pinpoint measures A and B: the
//! compilers of one (program, size, layout) are visited back to back, in a random order, so
//! that a slow phase lasting seconds falls on all of them or, at its edge, on a random one,
//! and moves their ratio far less than their times.
//!
//! Seeds come from FNV-1a over the parts' bytes: a hash whose algorithm is fixed, so that a
//! recorded seed reproduces the same order on any build of mlcost.

use crate::samples::PointKey;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::collections::BTreeMap;

/// FNV-1a (64 bit) over `parts`, each followed by a separator byte.
pub fn stable_seed<S: AsRef<[u8]>>(parts: &[S]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash = OFFSET;
    for part in parts {
        for &byte in part.as_ref().iter().chain(std::iter::once(&0xff)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(PRIME);
        }
    }
    hash
}

/// One visit to take: a point in a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Visit {
    pub round: u32,
    pub key: PointKey,
}

/// Every visit of a run, in the order they are to be taken: round 0 in its shuffled order,
/// then round 1 in another, and so on; within a round the compilers of one (program, size,
/// layout) follow one another.
pub fn visit_order(points: &[PointKey], rounds: u32, seed: u64) -> Vec<Visit> {
    (0..rounds)
        .flat_map(|round| round_order(points, round, seed))
        .collect()
}

/// One round's visits of `points`: their (program, size, layout) groups in a random order
/// drawn from the run's seed and the round, the compilers of a group back to back in a random
/// order. Catch-up rounds ([`crate::catch_up`]) use it on the points that still need visits.
pub fn round_order(points: &[PointKey], round: u32, seed: u64) -> Vec<Visit> {
    let mut by_pair: BTreeMap<(&str, u64, u32), Vec<&PointKey>> = BTreeMap::new();
    for key in points {
        by_pair
            .entry((key.benchmark.as_str(), key.size, key.layout))
            .or_default()
            .push(key);
    }
    let round_seed = stable_seed(&[seed.to_le_bytes(), u64::from(round).to_le_bytes()]);
    let mut rng = StdRng::seed_from_u64(round_seed);
    let mut groups: Vec<Vec<&PointKey>> = by_pair.into_values().collect();
    groups.shuffle(&mut rng);
    let mut order = Vec::with_capacity(points.len());
    for group in &mut groups {
        group.shuffle(&mut rng);
        order.extend(group.iter().map(|key| Visit {
            round,
            key: (*key).clone(),
        }));
    }
    order
}

/// Milliseconds since the Unix epoch: visits and canary readings are placed on one clock
/// that survives a resume in another process.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(benchmark: &str, size: u64, layout: u32) -> PointKey {
        PointKey {
            benchmark: benchmark.into(),
            compiler: "4.13.1".into(),
            size,
            layout,
        }
    }

    #[test]
    fn the_compilers_of_a_point_are_visited_back_to_back_in_random_order() {
        let mut points = Vec::new();
        for i in 0..30 {
            for compiler in ["a", "b"] {
                points.push(PointKey {
                    compiler: compiler.into(),
                    ..key("p", 100 + i, (i % 3) as u32)
                });
            }
        }
        let order = visit_order(&points, 4, 11);
        assert_eq!(order.len(), 240);
        let mut a_first = 0;
        for pair in order.chunks(2) {
            let (x, y) = (&pair[0].key, &pair[1].key);
            assert_eq!(
                (&x.benchmark, x.size, x.layout),
                (&y.benchmark, y.size, y.layout)
            );
            assert_ne!(x.compiler, y.compiler);
            assert_eq!(pair[0].round, pair[1].round);
            a_first += usize::from(x.compiler == "a");
        }
        // Which compiler goes first is a coin toss per pair: over 120 pairs, far from 0 or 120.
        assert!(
            (30..=90).contains(&a_first),
            "{a_first} of 120 pairs start with a"
        );
    }

    #[test]
    fn fnv1a_matches_its_published_test_vector() {
        // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c; our separator byte follows each part.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in b"a\xff" {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
        assert_eq!(stable_seed(&["a"]), hash);
        assert_ne!(stable_seed(&["ab", "c"]), stable_seed(&["a", "bc"]));
    }

    #[test]
    fn each_round_visits_every_point_once_in_its_own_order() {
        let points: Vec<PointKey> = (0..40).map(|i| key("p", 100 + i, (i % 4) as u32)).collect();
        let order = visit_order(&points, 5, 7);
        assert_eq!(order.len(), 200);
        let rounds: Vec<Vec<PointKey>> = (0..5)
            .map(|r| {
                order
                    .iter()
                    .filter(|v| v.round == r)
                    .map(|v| v.key.clone())
                    .collect()
            })
            .collect();
        for round in &rounds {
            let mut sorted = round.clone();
            sorted.sort();
            let mut expected = points.clone();
            expected.sort();
            assert_eq!(sorted, expected);
        }
        assert_ne!(rounds[0], rounds[1]);
        assert_ne!(rounds[0], points);
        // The same seed gives the same order; another seed another.
        assert_eq!(visit_order(&points, 5, 7), order);
        assert_ne!(visit_order(&points, 5, 8), order);
    }
}
