//! The order of a run's visits: every point once per round, each round in a fresh random
//! order drawn from the run's seed. A slow phase of the machine then falls on a few visits
//! of many points, scattered over the run, instead of on every batch of a few points; and
//! compilers and layouts of one program are visited at unrelated times, so drift cannot
//! masquerade as a difference between them.
//!
//! Seeds come from FNV-1a over the parts' bytes: a hash whose algorithm is fixed, so that a
//! recorded seed reproduces the same order on any build of mlcost.

use crate::samples::PointKey;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

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
/// then round 1 in another, and so on.
pub fn visit_order(points: &[PointKey], rounds: u32, seed: u64) -> Vec<Visit> {
    let mut order = Vec::with_capacity(points.len() * rounds as usize);
    for round in 0..rounds {
        let mut shuffled: Vec<&PointKey> = points.iter().collect();
        let round_seed = stable_seed(&[seed.to_le_bytes(), u64::from(round).to_le_bytes()]);
        shuffled.shuffle(&mut StdRng::seed_from_u64(round_seed));
        order.extend(shuffled.into_iter().map(|key| Visit {
            round,
            key: key.clone(),
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
