//! Which table jumps the processor mispredicts. A `match` of more than two arms is compiled
//! to a jump through a table; when its target changes with the data — the constructor of each
//! node of a random expression tree — the processor's indirect-branch predictor misses, and a
//! miss costs about 10 ns on this kind of machine (measured: a walk over a list of random
//! constructors of four kinds runs 4× slower than over a list of one kind). The interpreter
//! sees every target, so it runs a model predictor beside the program and counts `JumpMiss`.
//!
//! The model predicts the target last seen at the same site after the same recent targets
//! (the last six, hashed with the site), which learns a constant target and a short cycle as
//! the predictors of current x86 cores do, and misses three times in four on four random
//! targets — as they do.
//!
//! The interpreter replays a run's jumps through it after two warm passes (`branch_trace.rs`):
//! a benchmark's run follows identical ones, so the table holds what they taught it.

/// Bits of the site-and-history index.
const TABLE_BITS: u32 = 14;
/// Bits of recent targets folded into the index (two per target).
const HISTORY_BITS: u32 = 12;

pub(crate) struct JumpPredictor {
    history: u32,
    targets: Box<[u8]>,
}

impl Default for JumpPredictor {
    fn default() -> Self {
        JumpPredictor {
            history: 0,
            targets: vec![0; 1 << TABLE_BITS].into(),
        }
    }
}

impl JumpPredictor {
    /// A jump through a table at `site` went to entry `target`: was it mispredicted?
    #[inline]
    pub(crate) fn jump(&mut self, site: u32, target: u8) -> bool {
        let hashed = site.wrapping_mul(0x9E37_79B1) >> (32 - TABLE_BITS);
        let history = self.history & ((1 << HISTORY_BITS) - 1);
        let i = ((hashed ^ history) & ((1 << TABLE_BITS) - 1)) as usize;
        let missed = self.targets[i] != target;
        self.targets[i] = target;
        self.history = (self.history << 2) | u32::from(target & 3);
        missed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn misses(targets: impl Iterator<Item = u8>) -> usize {
        let mut p = JumpPredictor::default();
        targets.filter(|&t| p.jump(3, t)).count()
    }

    #[test]
    fn learns_a_constant_target_and_a_cycle_but_not_random_targets() {
        assert!(misses(std::iter::repeat_n(2, 1000)) <= 7);
        assert!(misses((0..1000).map(|i| (i % 4) as u8)) < 40);
        let mut s: u64 = 12345;
        let random = (0..10_000).map(move |_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) & 3) as u8
        });
        let m = misses(random);
        assert!((6_500..8_500).contains(&m), "{m}");
    }
}
