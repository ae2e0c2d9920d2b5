//! Which branches the processor mispredicts. A mispredicted branch throws away the work of
//! 15–20 cycles, more than most constructs cost, and whether a branch is predictable depends
//! on the data, not on the source: the test of a search in a random tree is a coin toss, the
//! base-case test of a recursion is almost always right. The interpreter sees every outcome,
//! so it runs a model predictor beside the program and counts `BranchMiss`.
//!
//! The model is gshare (McFarling, 1993): 2-bit saturating counters indexed by the branch
//! site hashed with the outcomes of the last branches, which learns biased branches and short
//! patterns as the tables of current x86 cores do, and is right half the time on random
//! outcomes — as they are. A `match` of more than two arms is an indirect jump through a
//! table: its target is predicted as the last target seen at the same site and history.

/// Bits of the site-and-history index: 16 K counters, the order of a real predictor's table.
const TABLE_BITS: u32 = 14;
/// Outcomes of earlier branches folded into the index.
const HISTORY_BITS: u32 = 12;

pub(crate) struct BranchPredictor {
    history: u32,
    counters: Box<[u8]>,
    targets: Box<[u8]>,
}

impl Default for BranchPredictor {
    fn default() -> Self {
        BranchPredictor {
            history: 0,
            // Weakly taken: a first encounter is a guess either way.
            counters: vec![2; 1 << TABLE_BITS].into(),
            targets: vec![0; 1 << TABLE_BITS].into(),
        }
    }
}

impl BranchPredictor {
    fn index(&self, site: u32) -> usize {
        let hashed = site.wrapping_mul(0x9E37_79B1) >> (32 - TABLE_BITS);
        let history = self.history & ((1 << HISTORY_BITS) - 1);
        ((hashed ^ history) & ((1 << TABLE_BITS) - 1)) as usize
    }

    /// A two-way branch at `site` went the `taken` way: was it mispredicted?
    #[inline]
    pub(crate) fn conditional(&mut self, site: u32, taken: bool) -> bool {
        let i = self.index(site);
        let counter = &mut self.counters[i];
        let predicted = *counter >= 2;
        *counter = if taken {
            (*counter + 1).min(3)
        } else {
            counter.saturating_sub(1)
        };
        self.history = (self.history << 1) | u32::from(taken);
        predicted != taken
    }

    /// A jump through a table at `site` went to entry `target`: was it mispredicted?
    #[inline]
    pub(crate) fn indirect(&mut self, site: u32, target: u8) -> bool {
        let i = self.index(site);
        let missed = self.targets[i] != target;
        self.targets[i] = target;
        self.history = (self.history << 2) | u32::from(target & 3);
        missed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn misses(outcomes: impl Iterator<Item = bool>) -> usize {
        let mut p = BranchPredictor::default();
        outcomes.filter(|&t| p.conditional(7, t)).count()
    }

    #[test]
    fn learns_a_biased_branch_and_a_short_pattern_but_not_a_coin() {
        // A loop test: taken 999 times, then not.
        assert!(misses((0..1000).map(|i| i < 999)) <= 2);
        // Alternating outcomes: history makes them predictable after warm-up.
        assert!(misses((0..1000).map(|i| i % 2 == 0)) < 20);
        // Pseudo-random outcomes: about half missed.
        let mut s: u64 = 12345;
        let coin = (0..10_000).map(move |_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) & 1 == 1
        });
        let m = misses(coin);
        assert!((4000..6000).contains(&m), "{m}");
    }

    #[test]
    fn an_indirect_jump_to_the_same_target_is_predicted() {
        let mut p = BranchPredictor::default();
        let missed = (0..100).filter(|_| p.indirect(3, 2)).count();
        assert!(missed <= HISTORY_BITS as usize, "{missed}");
    }
}
