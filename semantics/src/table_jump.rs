//! Which table jumps the processor mispredicts. A `match` of more than two arms is compiled
//! to a jump through a table; when its target changes with the data — the constructor of each
//! node of a random expression tree — the processor's indirect-branch predictor misses, and a
//! miss costs about 10 ns on this kind of machine (measured: a walk over a list of random
//! constructors of four kinds runs 4× slower than over a list of one kind). The interpreter
//! sees every target, so it runs a model predictor beside the program and counts `JumpMiss`.
//!
//! The model is a small ITTAGE: a table of 2048 entries in sets of 8, tagged by the site and
//! the last [`HISTORY`] targets of any table jump, kept in the order last used and filled on
//! mispredictions; where it holds nothing, the target last seen at the site. It learns a
//! constant target and a short cycle, misses three jumps in four on a long random sequence of
//! four targets, and memorises a short one — as the predictor of this machine does, measured
//! on the `jumpmiss` templates (walks of 1000 to 20 000 list elements, 8 layouts; extra time
//! over the one-target walk at about 12 ns a miss):
//!
//! | sequence | measured | model |
//! |---|---|---|
//! | 1000 of 4 random targets | 1% missed | 0% |
//! | 10 000 and 20 000 of 4 random targets | 72–73% | 74% |
//! | 1000 of 2 random targets | 39% | 44% |
//! | 10 000 and 20 000 of 2 random targets | 49–50% | 50% |
//! | A B C D A B … | 0% | 0% |
//!
//! Two random targets carry one bit of history each, four carry two: nine targets of history
//! tell the 1000 positions of a four-target sequence apart, not those of a two-target one;
//! 2048 entries hold 1000 positions, not 10 000. The interpreter replays a run's jumps
//! through it after two warm passes (`branch_trace.rs`): a benchmark's run follows identical
//! ones, so the table holds what they taught it. The table is the same kind the conditional
//! branches' predictor uses (`tagged.rs`).

use crate::tagged::{context_hash, TaggedTable};

/// Targets of recent table jumps in the tag.
const HISTORY: u32 = 9;
/// Bits per target in the history (arms beyond 127 share bits).
const TARGET_BITS: u32 = 7;
/// Sets of the tagged table, of 8 entries each: 2048 entries.
const SETS: usize = 256;
/// Entries of the per-site fallback, indexed by a hash of the site.
const SITE_BITS: u32 = 12;

pub(crate) struct JumpPredictor {
    history: u64,
    /// The target last seen in each context of site and history.
    targets: TaggedTable<u8>,
    last_target: Box<[u8]>,
}

impl Default for JumpPredictor {
    fn default() -> Self {
        JumpPredictor {
            history: 0,
            targets: TaggedTable::new(SETS),
            last_target: vec![0; 1 << SITE_BITS].into(),
        }
    }
}

impl JumpPredictor {
    /// A jump through a table at `site` went to entry `target`: was it mispredicted?
    #[inline]
    pub(crate) fn jump(&mut self, site: u32, target: u8) -> bool {
        let mask = (1u64 << (HISTORY * TARGET_BITS)) - 1;
        let slot = self.targets.slot(context_hash(site, self.history & mask));
        let site_slot = (site.wrapping_mul(0x9E37_79B1) >> (32 - SITE_BITS)) as usize;
        let missed = match self.targets.get(slot) {
            Some(predicted) => {
                self.targets.put(slot, target);
                predicted != target
            }
            None => {
                let missed = self.last_target[site_slot] != target;
                if missed {
                    self.targets.put(slot, target);
                }
                missed
            }
        };
        self.last_target[site_slot] = target;
        self.history = (self.history << TARGET_BITS) | u64::from(target & 0x7f);
        missed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Misses of the third pass over `targets` at one site, after two warm passes.
    fn steady_misses(targets: &[u8]) -> usize {
        let mut p = JumpPredictor::default();
        for _ in 0..2 {
            for &t in targets {
                p.jump(3, t);
            }
        }
        targets.iter().filter(|&&t| p.jump(3, t)).count()
    }

    fn random(n: usize, kinds: u64) -> Vec<u8> {
        let mut s: u64 = 12345;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 33) % kinds) as u8
            })
            .collect()
    }

    #[test]
    fn learns_constant_targets_cycles_and_short_random_runs_but_not_long_ones() {
        assert_eq!(steady_misses(&vec![2; 1000]), 0);
        let cycle: Vec<u8> = (0..1000).map(|i| (i % 4) as u8).collect();
        assert_eq!(steady_misses(&cycle), 0);
        assert!(steady_misses(&random(1000, 4)) < 20);
        let long = steady_misses(&random(10_000, 4));
        assert!((6_500..8_000).contains(&long), "{long}");
        // Two targets carry half the history: a short run stays hard to learn.
        let two = steady_misses(&random(1000, 2));
        assert!((300..550).contains(&two), "{two}");
    }

    #[test]
    fn a_cold_run_misses_random_targets() {
        let mut p = JumpPredictor::default();
        let m = random(1000, 4)
            .into_iter()
            .filter(|&t| p.jump(3, t))
            .count();
        assert!((650..850).contains(&m), "{m}");
    }
}
