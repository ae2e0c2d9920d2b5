//! From reuse times to misses: which of a run's reads a cache no longer holds, from how long
//! ago each block was last touched.
//!
//! **Time is not space.** A read's *reuse time* d is the number of words touched since its
//! block was last touched ([`crate::cache`]'s clock). What decides whether a cache still holds
//! the block is not d but what passed through the cache meanwhile: a search tree's leaf read
//! once a run is reached after every query has read the root again and again, so d is many
//! times the tree, while the distinct words touched in between are at most the tree.
//!
//! **Footprint.** The average number of distinct words in a window of w words touched is, for
//! a run repeated on the same input (a cyclic trace), fp(w) = (1/N) Σ_a s_a · min(d_a, w) over
//! every access a of s_a words with reuse time d_a — a block allocated is new (d = ∞), the
//! input's first reads come back from the last run (d = N, the run's words). An access is
//! the first of its block in a window exactly when its reuse time reaches back before the
//! window's start. This is the all-window footprint of Xiang, Ding et al. ("All-window
//! profiling and composable models of cache sharing", PPoPP 2011); a reuse of time d has a
//! stack distance of about fp(d).
//!
//! **Random replacement evicts on insertions.** A line survives I insertions into a cache of
//! C words with probability e^(−I/C), and only a distinct word that missed is inserted: the
//! insertions in a window are fp's sum with each access weighted by its own miss probability
//! (allocations always insert: the minor heap they write is beyond the level 2). So the miss
//! probabilities are a fixed point, P(d) = 1 − e^(−I(d)/C), taken from "everything misses"
//! downward (the largest one: the state a cold cache settles in). A set of blocks reused in a
//! cycle smaller than the cache then misses nothing, a cycle a few times the cache misses on
//! nearly every read, and between, a cycle of 1.6 caches misses 64% of its reads (where
//! 1 − e^(−1.6) would say 80%).
//!
//! Reads are kept in a histogram of reuse times (16 bins an octave), so the per-read cost is
//! a few additions and the fixed point is taken once per run over at most [`BINS`] bins.

/// Bins an octave of reuse time.
const SUB_BINS_LOG2: u32 = 4;
/// Every reuse time below 2^64 in bins of 1/16 octave.
const BINS: usize = (64 - SUB_BINS_LOG2 as usize + 1) << SUB_BINS_LOG2;
/// The fixed point's iterations: each multiplies the distance to it by at most the ratio of
/// the reused set to the cache; 400 leave under 1e-4 of a read at 0.98 of the cache.
const ITERATIONS: usize = 400;

#[derive(Clone, Copy, Default)]
struct Bin {
    /// Words read (streamed or not).
    words: f64,
    /// Σ words · reuse time.
    word_time: f64,
    /// Reads the prefetcher does not stream: each one waits if it misses.
    waiting_reads: f64,
    /// Words of the streamed reads.
    streamed_words: f64,
}

/// A run's reads, by reuse time.
#[derive(Clone, Default)]
pub(crate) struct ReuseHistogram {
    bins: Vec<Bin>,
    /// Σ words · reuse time of the reads too recent to miss (kept only for the footprint).
    near_word_time: f64,
    /// Words allocated: new blocks, inserted into the cache whatever their reuse.
    allocated_words: u64,
}

/// The caches a run's reads are taken against, in words.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Capacities {
    pub level2: u64,
    /// The run's share of the last level, for scattered reads.
    pub shared: u64,
    /// The whole last level, for streams.
    pub last_level: u64,
}

/// What a run's reads cost beyond the caches, in expectation.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Expected {
    /// Reads not streamed that miss the level 2.
    pub far_reads: f64,
    /// Reads not streamed that miss the run's share of the last level too.
    pub shared_far_reads: f64,
    /// Words of streamed reads the last level no longer holds.
    pub streamed_gone_words: f64,
    /// Distinct words the run touches in a cycle (fp(N)): its working set.
    pub footprint_words: f64,
}

fn bin_of(time: u64) -> usize {
    let octave = 63 - time.max(1).leading_zeros();
    if octave < SUB_BINS_LOG2 {
        return time as usize;
    }
    let fraction = (time >> (octave - SUB_BINS_LOG2)) as usize & ((1 << SUB_BINS_LOG2) - 1);
    (((octave - SUB_BINS_LOG2 + 1) as usize) << SUB_BINS_LOG2) + fraction
}

impl ReuseHistogram {
    /// Empty, for a run starting.
    pub(crate) fn reset(&mut self) {
        self.bins.clear();
        self.bins.resize(BINS, Bin::default());
        self.near_word_time = 0.0;
        self.allocated_words = 0;
    }

    /// What the run did besides the reads in bins, summed by the clock: Σ words · reuse time of
    /// the reads too recent to miss, and the words allocated.
    pub(crate) fn add_outside_bins(&mut self, near_word_time: f64, allocated_words: u64) {
        self.near_word_time += near_word_time;
        self.allocated_words += allocated_words;
    }

    /// A read that may miss; `streamed` if the prefetcher brings it in.
    #[inline]
    pub(crate) fn far(&mut self, words: u32, time: u64, streamed: bool) {
        if let Some(bin) = self.bins.get_mut(bin_of(time)) {
            let words = f64::from(words);
            bin.words += words;
            bin.word_time += words * time as f64;
            if streamed {
                bin.streamed_words += words;
            } else {
                bin.waiting_reads += 1.0;
            }
        }
    }

    /// The input's first reads, all at reuse time `time` (known when the run ends): `words`
    /// words in all, `waiting` reads not streamed, `streamed` words streamed.
    pub(crate) fn add_at(&mut self, time: u64, words: u64, waiting: u64, streamed: u64) {
        let bin = &mut self.bins[bin_of(time)];
        bin.words += words as f64;
        bin.word_time += words as f64 * time as f64;
        bin.waiting_reads += waiting as f64;
        bin.streamed_words += streamed as f64;
    }

    /// The expected misses of a run that touched `total_words`, against each of the caches
    /// (random replacement, the fixed point above) and, for streams, the share of the last
    /// level that `gone` says is lost at a footprint.
    pub(crate) fn expected(
        &self,
        total_words: u64,
        caches: Capacities,
        gone: impl Fn(f64, u64) -> f64,
    ) -> Expected {
        if total_words == 0 || self.bins.is_empty() {
            return Expected::default();
        }
        let n = total_words as f64;
        let used: Vec<(Bin, f64)> = self
            .bins
            .iter()
            .filter(|b| b.words > 0.0)
            .map(|b| (*b, b.word_time / b.words))
            .collect();
        // The footprint at each bin's mean reuse time: every access weighs 1.
        let footprint = windows_weighed(&used, &vec![1.0; used.len()], self.allocated_words, n)
            .into_iter()
            .map(|f| f + self.near_word_time / n)
            .collect::<Vec<_>>();
        let shares = |capacity| miss_shares(&used, self.allocated_words, n, capacity);
        let waiting = |shares: Vec<f64>| -> f64 {
            used.iter()
                .zip(shares)
                .map(|((bin, _), p)| bin.waiting_reads * p)
                .sum()
        };
        let streamed_gone_words = used
            .iter()
            .zip(&footprint)
            .map(|((bin, _), &f)| bin.streamed_words * gone(f, caches.last_level))
            .sum();
        Expected {
            far_reads: waiting(shares(caches.level2)),
            shared_far_reads: waiting(shares(caches.shared)),
            streamed_gone_words,
            footprint_words: footprint.last().copied().unwrap_or(0.0),
        }
    }
}

/// The share of each bin's reads that a cache of `capacity` words misses: the fixed point of
/// random replacement, from everything missing downward.
fn miss_shares(used: &[(Bin, f64)], allocated: u64, n: f64, capacity: u64) -> Vec<f64> {
    let capacity = capacity.max(1) as f64;
    let mut miss = vec![1.0; used.len()];
    for _ in 0..ITERATIONS {
        let inserted = windows_weighed(used, &miss, allocated, n);
        let next: Vec<f64> = inserted
            .iter()
            .map(|&i| 1.0 - (-i / capacity).exp())
            .collect();
        let moved = next
            .iter()
            .zip(&miss)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        miss = next;
        if moved < 1e-9 {
            break;
        }
    }
    miss
}

/// For each bin (in order of reuse time, with its mean time w), the words of a window of w
/// that are first touches of their blocks, each access weighed by `weight` of its bin
/// (allocations by 1): (1/N) Σ_a weight_a · s_a · min(d_a, w).
fn windows_weighed(bins: &[(Bin, f64)], weight: &[f64], allocated: u64, n: f64) -> Vec<f64> {
    let mut above: f64 = bins.iter().zip(weight).map(|((b, _), w)| b.words * w).sum();
    let mut below = 0.0;
    let mut out = Vec::with_capacity(bins.len());
    for ((bin, time), w) in bins.iter().zip(weight) {
        above -= bin.words * w;
        // The bin's own reads at about the window: min(d, w) ≈ d.
        let own = bin.word_time * w;
        out.push((below + own + time * (above + allocated as f64)) / n);
        below += own;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: f64, _: u64) -> f64 {
        0.0
    }

    #[test]
    fn bins_are_ordered_and_fine() {
        let mut last = 0;
        for t in 1..5000u64 {
            let b = bin_of(t);
            assert!(b >= last, "{t}");
            last = b;
        }
        assert_eq!(bin_of(15), 15);
        assert_eq!(bin_of(16), 16);
        assert_eq!(bin_of(31), 31);
        assert!(bin_of(u64::MAX) < BINS);
        // A sixteenth of an octave: 1000 and 1070 fall in different bins.
        assert_ne!(bin_of(1000), bin_of(1070));
    }

    /// A set of `set` words read in a cycle, one word a read, every read at reuse time `set`.
    fn cycle(set: u64) -> ReuseHistogram {
        let mut h = ReuseHistogram::default();
        h.reset();
        h.add_at(set, set, set, 0);
        h
    }

    /// A level 2 of `level2`, the share of the last level `shared`.
    fn caches(level2: u64, shared: u64) -> Capacities {
        Capacities {
            level2,
            shared,
            last_level: 1 << 20,
        }
    }

    #[test]
    fn a_cycle_within_the_cache_settles_to_no_misses() {
        let e = cycle(900).expected(900, caches(1000, 1 << 20), none);
        assert!(e.far_reads < 1.0, "{e:?}");
        assert!((e.footprint_words - 900.0).abs() < 1e-6, "{e:?}");
    }

    #[test]
    fn a_cycle_beyond_the_cache_misses_at_the_fixed_point() {
        // m = 1 − e^(−1.6 m): m ≈ 0.6408.
        let e = cycle(1600).expected(1600, caches(1000, 1 << 20), none);
        let m = e.far_reads / 1600.0;
        assert!((m - 0.6408).abs() < 0.002, "{m}");
        assert!(e.shared_far_reads < 1.0, "{e:?}");
        // Against a next level of 1200 words too: m = 1 − e^(−4m/3), m ≈ 0.4544.
        let e = cycle(1600).expected(1600, caches(1000, 1200), none);
        let shared = e.shared_far_reads / 1600.0;
        assert!((shared - 0.4544).abs() < 0.002, "{shared}");
        // Far beyond it, nearly every read.
        let e = cycle(20_000).expected(20_000, caches(1000, 1 << 20), none);
        assert!(e.far_reads > 19_999.0, "{e:?}");
    }

    #[test]
    fn a_hot_block_read_between_cold_ones_adds_no_distinct_words() {
        // 1000 cold words read once a cycle, between each two a hot word read 99 times at
        // reuse time 1: the cold reads' reuse time is the whole cycle (100 000 words), their
        // footprint the cold set and the hot word.
        let mut h = ReuseHistogram::default();
        h.reset();
        h.add_at(100_000, 1000, 1000, 0);
        h.add_outside_bins(99_000.0, 0);
        let e = h.expected(100_000, caches(2000, 1 << 20), none);
        assert!((e.footprint_words - 1000.99).abs() < 0.01, "{e:?}");
        assert!(e.far_reads < 1.0, "{e:?}");
    }

    #[test]
    fn allocation_between_reuses_evicts() {
        // 100 words reused every cycle, 10 000 words allocated meanwhile (each cycle): all
        // 100 reads miss against a cache of 1000.
        let mut h = ReuseHistogram::default();
        h.reset();
        h.add_at(10_100, 100, 100, 0);
        h.add_outside_bins(0.0, 10_000);
        let e = h.expected(10_100, caches(1000, 1 << 20), none);
        assert!(e.far_reads > 99.9, "{e:?}");
    }
}
