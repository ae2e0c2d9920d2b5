//! What a run allocated, as the interpreter hands it over ([`Allocation`]), and what follows
//! from it for a minor heap of a given size: the interval between collections, the words they
//! promote, the frames they scan, the memory the run works in. The clock and the stamps that
//! fill it are in [`crate::heap`].

use crate::cache::Touches;
use serde::{Deserialize, Serialize};

/// Words of the blocks whose age at death is at most `max_age` (and above the previous
/// bucket's), and the sums of words × age and of words × age² over them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LifetimeBucket {
    pub max_age: u64,
    pub words: u64,
    pub word_age: u64,
    #[serde(default)]
    pub word_age_squared: f64,
}

/// What one run allocates.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Allocation {
    /// Words allocated on the heap per run, headers included: the runtime's minor words plus
    /// the words allocated directly in the major heap (arrays longer than
    /// `Max_young_wosize`), which the runtime counts as major words without promotion.
    pub words: u64,
    /// The part of `words` allocated directly in the major heap.
    #[serde(default)]
    pub direct_major_words: u64,
    /// Σ over the words allocated in the minor heap of the native frames live when each was
    /// allocated: see [`Allocation::scanned_frames`].
    #[serde(default)]
    pub frame_words: u64,
    /// Words of the blocks still in a major block's field when they died (stored there by
    /// `caml_modify`, so in the remembered set): promoted whole by the next minor collection,
    /// whatever their age. They are not in `lifetimes`.
    #[serde(default)]
    pub remembered_words: u64,
    /// How long the other allocated words lived, by age in words allocated (power-of-two
    /// buckets).
    pub lifetimes: Vec<LifetimeBucket>,
    /// The run's reads of blocks the cache may no longer hold.
    #[serde(default)]
    pub touches: Touches,
}

/// The minor heap's size in words as the runtime of a native binary run from this environment
/// sets it: OCAMLRUNPARAM's (or CAMLRUNPARAM's) `s=` (a number of words, with an optional
/// `k`, `M` or `G` multiplier of 1024, 1024², 1024³), else OCaml 4's default of 256 Ki words.
pub fn minor_heap_words() -> u64 {
    ["OCAMLRUNPARAM", "CAMLRUNPARAM"]
        .iter()
        .find_map(|var| std::env::var(var).ok())
        .and_then(|params| {
            params
                .split(',')
                .find_map(|p| p.strip_prefix("s="))
                .and_then(parse_runtime_size)
        })
        .unwrap_or(DEFAULT_MINOR_HEAP_WORDS)
}

/// OCaml 4's `Minor_heap_def`.
const DEFAULT_MINOR_HEAP_WORDS: u64 = 256 * 1024;

/// A size in the runtime parameters' notation: `262144`, `256k`, `1M`, `1G`.
fn parse_runtime_size(text: &str) -> Option<u64> {
    let (digits, multiplier) = match text.chars().last()? {
        'k' => (&text[..text.len() - 1], 1 << 10),
        'M' => (&text[..text.len() - 1], 1 << 20),
        'G' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .map(|n| n * multiplier)
        .filter(|&n| n > 0)
}

impl Allocation {
    /// The memory a run works in, in words: the part of its input it reads, the minor heap
    /// its allocations cycle through (at most the heap), and what it puts in the major heap
    /// (promoted and allocated there directly). Past the cache that [`crate::cache`] models,
    /// only the prefetcher's streaming of sequential blocks is modelled, so a point working in
    /// more is flagged in validation rather than counted as model error silently.
    pub fn working_set_words(&self, minor_heap_words: u64) -> f64 {
        let minor = self.words.saturating_sub(self.direct_major_words);
        self.touches.first_read_words as f64
            + minor.min(minor_heap_words) as f64
            + self.promoted_words(minor_heap_words)
            + self.direct_major_words as f64
    }

    /// Expected words promoted per run by a minor heap of H = `minor_heap_words` words. Most
    /// collections come when the heap is full, H words apart; the one that ends a major cycle
    /// comes wherever the filling stands, so a share p of the intervals
    /// ([`Allocation::cut_share`]) is cut short, its length uniform in [0, H]. A life of a < H
    /// words holds a collection unless it fits in an interval between two: a full interval
    /// leaves room for it over H − a of its start points, a cut one over (H − a)²/(2H) on
    /// average, out of a mean interval of (1 − p/2) H; so a word living a = xH is promoted with
    /// probability (2x − p x²) / (2 − p), and from a = H on always. Taking every interval at
    /// the mean ([`Allocation::promoted_words_at`] at [`Allocation::collection_interval_words`])
    /// promotes the long lives too often: a 100 000-cell list built and dropped by each run,
    /// 300 000 words, was counted 189 417 promoted words where the runtime promoted 162 000 to
    /// 173 000 (runs R2, R3; docs/counting.md).
    pub fn promoted_words(&self, minor_heap_words: u64) -> f64 {
        let heap = minor_heap_words.max(1) as f64;
        self.promoted_words_cut(heap, self.cut_share(minor_heap_words))
    }

    /// [`Allocation::promoted_words`] for a heap of `heap` words of which a share `cut` of
    /// the fillings is cut short.
    fn promoted_words_cut(&self, heap: f64, cut: f64) -> f64 {
        self.remembered_words as f64
            + self
                .lifetimes
                .iter()
                .map(|b| {
                    let mean_age = b.word_age as f64 / b.words.max(1) as f64;
                    if (b.max_age as f64) < heap || mean_age < heap {
                        let x = b.word_age as f64 / heap;
                        let x_squared = b.word_age_squared / (heap * heap);
                        ((2.0 * x - cut * x_squared) / (2.0 - cut)).min(b.words as f64)
                    } else {
                        b.words as f64
                    }
                })
                .sum::<f64>()
    }

    /// The share of the intervals between minor collections that a major cycle's end cuts
    /// short: its cycles per run over its collections per run (see
    /// [`Allocation::collection_interval_words`]); 0 for a run that allocates nothing in the
    /// minor heap.
    pub fn cut_share(&self, minor_heap_words: u64) -> f64 {
        let heap = minor_heap_words.max(1) as f64;
        self.minor_words_and_cycles(heap)
            .map_or(0.0, |(minor, cycles)| {
                (cycles / (minor / heap + cycles / 2.0)).min(1.0)
            })
    }

    /// Expected words promoted per run by minor collections every `interval` words allocated
    /// in the minor heap: `Σ w · min(a, I) / I`, plus the remembered words. Exact when I is a
    /// power of two (bucket bounds fall on it); otherwise the bucket that straddles I counts on
    /// the side of its mean age.
    pub fn promoted_words_at(&self, interval: f64) -> f64 {
        // With no filling cut short, (2x − p x²) / (2 − p) is x = a / I.
        self.promoted_words_cut(interval.max(1.0), 0.0)
    }

    /// Words allocated in the minor heap between two minor collections, on average, for a
    /// minor heap of H words: fewer than H, because a major cycle starts only on an empty
    /// minor heap. When the major collector finishes a cycle it requests a minor collection
    /// wherever the minor heap stands (OCaml 4.13, `caml_request_minor_gc` at the end of the
    /// sweep), which cuts one filling short by half a heap on average; so collections per run
    /// are `W/H + cycles/2`, W the words the run allocates in the minor heap. A major slice runs
    /// at each minor collection and after every H words allocated in the major heap, and a
    /// cycle takes [`SLICES_PER_MAJOR_CYCLE`] of them, so cycles per run are
    /// `(W + major words) / (5 H)` (major words: allocated directly, and promoted at H).
    pub fn collection_interval_words(&self, minor_heap_words: u64) -> f64 {
        let heap = minor_heap_words.max(1) as f64;
        self.minor_words_and_cycles(heap)
            .map_or(heap, |(minor, cycles)| {
                minor / (minor / heap + cycles / 2.0)
            })
    }

    /// The words the run allocates in the minor heap and its major cycles, for a heap of
    /// `heap` words; `None` for a run that allocates nothing there. A slice per `heap` words
    /// allocated (minor, direct major, and promoted, taken at collections a heap apart),
    /// [`SLICES_PER_MAJOR_CYCLE`] a cycle.
    fn minor_words_and_cycles(&self, heap: f64) -> Option<(f64, f64)> {
        let minor = self.words.saturating_sub(self.direct_major_words) as f64;
        if minor == 0.0 {
            return None;
        }
        let major = self.direct_major_words as f64 + self.promoted_words_at(heap);
        Some((minor, (minor + major) / (SLICES_PER_MAJOR_CYCLE * heap)))
    }

    /// Expected stack frames the minor collections of one run walk, for a minor heap of
    /// `minor_heap_words`: a collection falls on each allocated word with probability 1/I (I
    /// the interval between collections, [`Allocation::collection_interval_words`]) and scans
    /// every frame live then (OCaml 4 walks the whole stack at each minor collection, looking
    /// each return address up in the frame table), so the expectation is `frame_words / I`.
    /// Deep non-tail recursion that allocates (`List.map`, `append`) pays it once per frame per
    /// collection.
    pub fn scanned_frames(&self, minor_heap_words: u64) -> f64 {
        self.frame_words as f64 / self.collection_interval_words(minor_heap_words)
    }
}

/// Major slices per major cycle in the measured runs, from the training programs that promote
/// (at least 5% of what they allocate, which is at least 0.3 H a run; run R1 on the Intel host,
/// 6 programs, major cycles counted by the runtime): `(W + D + P) / H` over cycles per run is
/// 4.05–5.46, median 5.04; the controls that promote give 3.5–7.6. (Run A33, on the AMD host,
/// had given 2.93 by a regression of words per cycle on the controls; at 3, every promoting
/// control of run R1 had its collections, and so its promotion, overpredicted.) Every visit
/// starts from a compacted heap, so its cycles stay short.
const SLICES_PER_MAJOR_CYCLE: f64 = 5.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_sizes_parse_as_the_runtime_reads_them() {
        assert_eq!(parse_runtime_size("262144"), Some(262_144));
        assert_eq!(parse_runtime_size("256k"), Some(262_144));
        assert_eq!(parse_runtime_size("2M"), Some(2 << 20));
        assert_eq!(parse_runtime_size("1G"), Some(1 << 30));
        assert_eq!(parse_runtime_size("big"), None);
        assert_eq!(parse_runtime_size("0"), None);
    }

    #[test]
    fn major_cycles_shorten_the_interval_between_collections() {
        // 3 H words of garbage in the minor heap, nothing promoted, 3 H words allocated
        // directly: 6 H words over 5 slices a cycle is 1.2 cycles a run, each cutting a filling
        // short by half a heap, so 3 + 0.6 collections for 3 H words: one every 5/6 H.
        let h: u64 = 1 << 10;
        let allocation = Allocation {
            words: 6 * h,
            direct_major_words: 3 * h,
            lifetimes: vec![LifetimeBucket {
                max_age: 0,
                words: 3 * h,
                word_age: 0,
                word_age_squared: 0.0,
            }],
            ..Allocation::default()
        };
        let interval = allocation.collection_interval_words(h);
        assert!((interval - 5.0 / 6.0 * h as f64).abs() < 1e-9, "{interval}");
        // Frames are walked at that interval too.
        let frames = Allocation {
            frame_words: 3 * h,
            ..allocation.clone()
        };
        assert!((frames.scanned_frames(h) - 3.6).abs() < 1e-9);
        // A run that allocates nothing in the minor heap never collects it early.
        let only_major = Allocation {
            words: 5,
            direct_major_words: 5,
            ..Allocation::default()
        };
        assert_eq!(only_major.collection_interval_words(h), h as f64);
        // A third of the fillings cut short: 1.2 cycles over 3.6 collections.
        assert!((allocation.cut_share(h) - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn survivors_are_promoted_as_a_heap_with_cut_fillings_promotes_them() {
        // H = 1000: 2900 words of garbage and 100 words living 500 words in the minor heap,
        // 3000 allocated directly. Promoted at H: 50; slices (3000 + 3000 + 50) / 1000 over 5
        // a cycle: 1.21 cycles; collections 3 + 0.605; cut share p = 1.21 / 3.605. The
        // survivors, x = 1/2: 100 (2x − p x²) / (2 − p) = 100 (1 − p/4) / (2 − p) = 55.04,
        // where the mean interval, 3000 / 3.605 = 832 words, gave 60.08.
        let h: u64 = 1000;
        let allocation = Allocation {
            words: 6000,
            direct_major_words: 3000,
            lifetimes: vec![
                LifetimeBucket {
                    max_age: 0,
                    words: 2900,
                    word_age: 0,
                    word_age_squared: 0.0,
                },
                LifetimeBucket {
                    max_age: 511,
                    words: 100,
                    word_age: 100 * 500,
                    word_age_squared: 100.0 * 500.0 * 500.0,
                },
            ],
            ..Allocation::default()
        };
        let cut = allocation.cut_share(h);
        assert!((cut - 1.21 / 3.605).abs() < 1e-12, "{cut}");
        let promoted = allocation.promoted_words(h);
        assert!((promoted - 55.0418).abs() < 1e-3, "{promoted}");
        let at_mean = allocation.promoted_words_at(allocation.collection_interval_words(h));
        assert!((at_mean - 60.0832).abs() < 1e-3, "{at_mean}");
        // A life longer than the heap is promoted whole, whatever the cut.
        let long = Allocation {
            lifetimes: vec![LifetimeBucket {
                max_age: 4095,
                words: 7,
                word_age: 7 * 3000,
                word_age_squared: 7.0 * 3000.0 * 3000.0,
            }],
            ..allocation
        };
        assert_eq!(long.promoted_words_cut(1000.0, 0.4), 7.0);
    }

    #[test]
    fn the_promotion_probability_is_a_renewal_process_with_cut_intervals() {
        // Collections at the ends of intervals of H, a share p of them cut to U·H (U uniform):
        // the share of lives of xH words that hold one, counted over a long simulated
        // sequence, against (2x − p x²) / (2 − p) for a single word of that age.
        let heap = 1000.0;
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut uniform = move || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for cut in [0.0, 0.3, 1.0] {
            let mut ends = vec![0.0];
            while *ends.last().unwrap() < 4.0e6 {
                let length = if uniform() < cut {
                    uniform() * heap
                } else {
                    heap
                };
                ends.push(ends.last().unwrap() + length);
            }
            for x in [0.1, 0.5, 0.9, 1.5] {
                let life = x * heap;
                let trials = 40_000;
                let held = (0..trials)
                    .filter(|_| {
                        let birth = uniform() * 3.0e6;
                        let next = ends.partition_point(|&end| end <= birth);
                        ends[next] <= birth + life
                    })
                    .count();
                let simulated = held as f64 / trials as f64;
                let one_word = Allocation {
                    lifetimes: vec![LifetimeBucket {
                        max_age: 2047,
                        words: 1,
                        word_age: life as u64,
                        word_age_squared: life * life,
                    }],
                    ..Allocation::default()
                };
                let counted = one_word.promoted_words_cut(heap, cut);
                assert!(
                    (simulated - counted).abs() < 0.01,
                    "p {cut}, x {x}: simulated {simulated}, counted {counted}"
                );
            }
        }
    }
}
