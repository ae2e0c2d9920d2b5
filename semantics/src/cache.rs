//! Reads the level-2 cache no longer holds (`FarLoad`; `MemoryLoad` when the level 3 does not
//! either; `FarStreamWord` where the prefetcher streams them), from the blocks' addresses and
//! last touches.
//!
//! **The clock.** Every word a run allocates or reads advances a clock; each block keeps the
//! clock at the end of its last touch. A read's *reuse time* is the number of words touched
//! since. What decides whether the cache still holds the block is how many distinct words
//! were inserted into it meanwhile, which [`crate::reuse`] derives from the run's reuse times
//! once the run ends (the footprint, and random replacement's fixed point): a set of blocks
//! reused within the cache misses nothing however many reads come between, a walk over far
//! more misses on nearly every read. A block built before the run (the input) is first read a
//! whole run after the last run read it — `run` is measured again and again on the same
//! input — which is known when the run ends.
//!
//! **The prefetcher.** A walk over blocks that lie one after the other in memory does not
//! wait: the hardware prefetcher streams them in. Measured here, summing a list of 120 000
//! ints (2.9 MB, allocated in order) costs 1.39 ns per element, exactly as at 2000; walking
//! a search tree of 120 000 nodes in key order, whose nodes lie in insertion order, costs
//! 12.8 ns per node against 3.2 at 2000. So a read counts as a `FarLoad` only when its block
//! lies more than [`STREAM_WORDS`] away from the last far read of each of the [`STREAMS`]
//! streams the prefetcher follows. Addresses follow the order of allocation (the minor heap is
//! a bump allocator; a minor collection copies live data in about the order it finds it).
//!
//! **What streaming costs.** On the AMD host (Zen 3, 512 KiB of level 2, 32 MiB of level 3
//! shared with other tenants) a stream is free only within the level 3. Summing an int list
//! built in order (one program timing itself, best of 7 rounds, 1 run) costs 1.37–1.43 ns an
//! element from 1000 elements to 200 000 (4.8 MB), then 1.64 at 9.6 MB, 2.85 at 19 MB, 3.31 at
//! 38 MB and 3.52 at 77 MB: the memory's bandwidth, about 0.7 ns a word once nothing is left in
//! the level 3. A level 3 shared with its neighbours holds a stream that returns every run up to
//! about a quarter of its size and none of it beyond three quarters; between, the share missed
//! grows in proportion ([`stream_gone`]: 0.1 at 9.6 MB, 0.7 at 19 MB, against 0.12 and 0.7
//! measured). So a streamed read counts its words as `FarStreamWord` with that probability, and
//! the fit prices a word (nothing where streams are free: the Intel host streamed 2.9 MB at the
//! in-cache rate, and a level 3 of any size holds that).
//!
//! **The next level.** A read the level 2 misses waits on the level 3 when the run's share of
//! it still holds the block (about 18 ns a node for a search tree of 0.8 MB on the AMD host)
//! and on the memory otherwise (about 72 ns at 3.8 MB): the same rule against the share
//! ([`shared_level_words`]) counts the reads that miss it too, as `MemoryLoad`.
//!
//! The cache is the machine's level-2 data cache, read once from sysfs
//! (`MLCOST_CACHE_BYTES` overrides it, for counting for another machine and for tests that
//! must not depend on this one); the last-level cache, for streams, its level 3
//! (`MLCOST_LAST_LEVEL_CACHE_BYTES`), and the share of it for scattered reads one hardware
//! thread's part, by the threads the processor says share it ([`last_level_sharers`];
//! `MLCOST_LAST_LEVEL_SHARE_BYTES`).

use crate::reuse::{Capacities, ReuseHistogram};
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::sync::OnceLock;

/// Blocks within this many words (a 4 KiB page) of a stream's last far read are streamed by
/// the prefetcher. The prefetchers follow patterns within a page, not only next lines: a
/// balanced tree walked in allocation order jumps back 2 to 64 lines at a time and costs the
/// same 3.7–3.9 ns per node from 1000 nodes (in the cache) to 200 000 (6.4 MB), measured; a
/// window of 16 words counted 18% of its reads as misses, a page 0.6%. A search tree built by
/// random insertion keeps its misses at any window up to a page (41 882 → 41 820 at 120 000
/// nodes), so the window tells the two apart.
pub const STREAM_WORDS: u64 = 512;

/// Words of a cache line (64 bytes).
pub(crate) const LINE_WORDS: u64 = 8;

/// Streams the prefetcher follows at once: a walk over two lists side by side (a dot
/// product, `combine`) alternates between two streams, each of them sequential.
pub const STREAMS: usize = 8;

/// Reads at a distance below C / this have a miss probability under 0.4%: not worth an `exp`.
const NEAR_FRACTION: u64 = 256;

#[derive(Default)]
struct TouchClock {
    tracking: Cell<bool>,
    /// The cache, in words, read once per run rather than on every read.
    cache_words: Cell<u64>,
    /// The last-level cache, in words, likewise.
    last_level_words: Cell<u64>,
    /// Words touched so far in the run.
    words: Cell<u64>,
    /// Next free address, in words (never reset: addresses only matter relative to each
    /// other).
    next_address: Cell<u64>,
    /// Address of the last read that could miss, per stream, the most recent first.
    streams: Cell<[u64; STREAMS]>,
    /// The run's reads of blocks it touched before that may miss, by reuse time.
    reuse: RefCell<ReuseHistogram>,
    /// Σ words · reuse time of the reads too recent to miss: kept apart from `reuse`, as the
    /// commonest read should cost one addition.
    near_word_time: Cell<f64>,
    /// Words allocated in the run.
    allocated_words: Cell<u64>,
    /// First reads in the run of blocks built before it, not streamed.
    before_run: Cell<u64>,
    /// Words read by the run's first reads of blocks built before it, streamed or not: the
    /// part of the input the run walks.
    first_read_words: Cell<u64>,
    /// Words of the streamed first reads of blocks built before the run.
    streamed_before_run: Cell<u64>,
}

thread_local! {
    static TOUCH: TouchClock = TouchClock::default();
}

/// Last touch of a block that the run has not touched yet.
const BEFORE_RUN: u64 = u64::MAX;

/// A block's cache stamp: its address, and the clock at the end of its last touch.
#[derive(Debug)]
pub(crate) struct Touched {
    address: u64,
    last: Cell<u64>,
}

impl Touched {
    /// Static data: never far, never streamed with anything.
    pub(crate) const fn for_static_data() -> Touched {
        Touched {
            address: 0,
            last: Cell::new(BEFORE_RUN),
        }
    }

    /// A block of `words` words allocated now: written whole (header and fields).
    #[inline]
    pub(crate) fn allocated(words: u32) -> Touched {
        TOUCH.with(|clock| {
            let address = clock.next_address.get();
            clock.next_address.set(address + u64::from(words));
            let last = if clock.tracking.get() {
                let end = clock.words.get() + u64::from(words);
                clock.words.set(end);
                clock
                    .allocated_words
                    .set(clock.allocated_words.get() + u64::from(words));
                end
            } else {
                BEFORE_RUN
            };
            Touched {
                address,
                last: Cell::new(last),
            }
        })
    }

    /// A read of `words` words of the block.
    #[inline]
    pub(crate) fn read(&self, words: u32) {
        TOUCH.with(|clock| {
            if !clock.tracking.get() {
                return;
            }
            let now = clock.words.get();
            let last = self.last.get();
            if last == now {
                // Nothing touched since this block: the same access (another arm's test).
                return;
            }
            let distance = if last == BEFORE_RUN {
                clock
                    .first_read_words
                    .set(clock.first_read_words.get() + u64::from(words));
                u64::MAX
            } else {
                now - last
            };
            if distance < clock.cache_words.get() / NEAR_FRACTION {
                clock
                    .near_word_time
                    .set(clock.near_word_time.get() + f64::from(words) * distance as f64);
            } else {
                let streamed = follow(&clock.streams, self.address, STREAM_WORDS);
                if last == BEFORE_RUN {
                    let add = |cell: &Cell<u64>, n: u64| cell.set(cell.get() + n);
                    if streamed {
                        add(&clock.streamed_before_run, u64::from(words));
                    } else {
                        add(&clock.before_run, 1);
                    }
                } else {
                    clock.reuse.borrow_mut().far(words, distance, streamed);
                }
            }
            self.last.set(now + u64::from(words));
            clock.words.set(now + u64::from(words));
        })
    }
}

/// Whether a read at `address` continues one of `streams` (within `window` words of its last
/// far read); the stream read moves to the front, a new one replaces the least recent.
#[inline]
fn follow(streams: &Cell<[u64; STREAMS]>, address: u64, window: u64) -> bool {
    let mut all = streams.get();
    let found = all.iter().position(|&a| address.abs_diff(a) <= window);
    let slot = found.unwrap_or(STREAMS - 1);
    all.copy_within(0..slot, 1);
    all[0] = address;
    streams.set(all);
    found.is_some()
}

/// The probability that a stream whose blocks were last touched `footprint` distinct words
/// ago is no longer in a shared last-level cache of `last_level` words: none up to a quarter
/// of it, all from three quarters, in proportion between (measured: see the module's
/// documentation).
fn stream_gone(footprint: f64, last_level: u64) -> f64 {
    let quarter = last_level.max(1) as f64 / 4.0;
    ((footprint - quarter) / (2.0 * quarter)).clamp(0.0, 1.0)
}

/// Starts counting a run.
pub(crate) fn start() {
    TOUCH.with(|clock| {
        clock.tracking.set(true);
        clock.cache_words.set(cache_words());
        clock.last_level_words.set(last_level_words());
        clock.words.set(0);
        clock.streams.set([u64::MAX; STREAMS]);
        clock.reuse.borrow_mut().reset();
        clock.near_word_time.set(0.0);
        clock.allocated_words.set(0);
        clock.before_run.set(0);
        clock.first_read_words.set(0);
        clock.streamed_before_run.set(0);
    });
}

/// Ends a run.
pub(crate) fn finish() -> Touches {
    TOUCH.with(|clock| {
        clock.tracking.set(false);
        let words = clock.words.get();
        let mut reuse = clock.reuse.borrow_mut();
        reuse.add_outside_bins(clock.near_word_time.get(), clock.allocated_words.get());
        // The next run reads its input again a whole run after this one did.
        reuse.add_at(
            words,
            clock.first_read_words.get(),
            clock.before_run.get(),
            clock.streamed_before_run.get(),
        );
        let caches = Capacities {
            level2: clock.cache_words.get(),
            shared: shared_level_words(),
            last_level: clock.last_level_words.get(),
        };
        let expected = reuse.expected(words, caches, stream_gone);
        Touches {
            words,
            first_read_words: clock.first_read_words.get(),
            footprint_words: expected.footprint_words,
            far_reads: expected.far_reads,
            shared_far_reads: expected.shared_far_reads,
            streamed_gone_words: expected.streamed_gone_words,
            cache_words: caches.level2,
            last_level_words: caches.last_level,
        }
    })
}

/// A run's reads of blocks the cache may no longer hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Touches {
    /// Words the run touched (allocated, read, written): the reuse time at which the next run
    /// finds the blocks built before it.
    pub words: u64,
    /// Words read by the first reads of blocks built before the run, streamed or not.
    #[serde(default)]
    pub first_read_words: u64,
    /// Distinct words between two reads of the block reused last (the input, in most runs):
    /// the run's footprint.
    #[serde(default)]
    pub footprint_words: f64,
    /// Expected reads, not streamed, that miss the cache: `FarLoad`.
    #[serde(default)]
    pub far_reads: f64,
    /// Expected reads, not streamed, that miss the run's share of the last level too:
    /// `MemoryLoad`.
    #[serde(default)]
    pub shared_far_reads: f64,
    /// Expected words of streamed reads the last level no longer holds: `FarStreamWord`.
    #[serde(default)]
    pub streamed_gone_words: f64,
    /// The cache the expectation was taken against, in words.
    pub cache_words: u64,
    /// The last-level cache streams were taken against, in words.
    #[serde(default)]
    pub last_level_words: u64,
}

impl Touches {
    /// Expected reads that miss the cache: `FarLoad`.
    pub fn misses(&self) -> f64 {
        self.far_reads
    }

    /// Expected words read from a stream the last-level cache no longer holds:
    /// `FarStreamWord`.
    pub fn streamed_words(&self) -> f64 {
        self.streamed_gone_words
    }
}

/// Used when sysfs says nothing (not Linux, or a container that hides it): a common level-2
/// size of current x86-64 cores.
pub const FALLBACK_CACHE_BYTES: u64 = 512 * 1024;

/// Bytes per word of the targets the interpreter models (x86-64).
const WORD_BYTES: u64 = 8;

/// Used when sysfs says nothing of a level 3: a common share of one on current x86-64 servers.
pub const FALLBACK_LAST_LEVEL_BYTES: u64 = 32 * 1024 * 1024;

/// The data (or unified) cache of CPU 0 at `level`, in bytes.
fn level_bytes(level: &str) -> Option<u64> {
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let read = |name: &str| std::fs::read_to_string(entry.path().join(name)).ok();
        let found = read("level").map(|s| s.trim().to_string());
        let kind = read("type").map(|s| s.trim().to_string());
        if found.as_deref() == Some(level) && kind.as_deref() != Some("Instruction") {
            return parse_size(read("size")?.trim());
        }
    }
    None
}

/// `512K`, `1M`, `32768K` or a plain number of bytes.
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let n: u64 = digits.parse().ok()?;
    let scale = match unit.trim() {
        "" => 1,
        "K" | "KB" | "KiB" | "k" => 1024,
        "M" | "MB" | "MiB" => 1024 * 1024,
        _ => return None,
    };
    Some(n * scale)
}

/// The cache size in words: `MLCOST_CACHE_BYTES`, else the machine's level 2, else
/// [`FALLBACK_CACHE_BYTES`].
pub fn cache_words() -> u64 {
    static WORDS: OnceLock<u64> = OnceLock::new();
    *WORDS.get_or_init(|| words_of("MLCOST_CACHE_BYTES", "2", FALLBACK_CACHE_BYTES))
}

/// The last-level cache in words: `MLCOST_LAST_LEVEL_CACHE_BYTES`, else the machine's level
/// 3, else [`FALLBACK_LAST_LEVEL_BYTES`]. Never less than [`cache_words`].
pub fn last_level_words() -> u64 {
    static WORDS: OnceLock<u64> = OnceLock::new();
    *WORDS.get_or_init(|| {
        words_of(
            "MLCOST_LAST_LEVEL_CACHE_BYTES",
            "3",
            FALLBACK_LAST_LEVEL_BYTES,
        )
        .max(cache_words())
    })
}

/// The share of the last level a run's scattered reads keep, in words:
/// `MLCOST_LAST_LEVEL_SHARE_BYTES`, else one hardware thread's part of [`last_level_words`]
/// ([`last_level_sharers`]). On the AMD host (a level 3 of 32 MiB shared by eight cores of two
/// threads: 2 MiB) a search tree of 0.8 MB missed the level 2 at about 18 ns a node and one of
/// 3.8 MB at about 72 (the level 3's latency, then the memory's). Never less than
/// [`cache_words`].
pub fn shared_level_words() -> u64 {
    static WORDS: OnceLock<u64> = OnceLock::new();
    *WORDS.get_or_init(|| {
        std::env::var("MLCOST_LAST_LEVEL_SHARE_BYTES")
            .ok()
            .and_then(|v| parse_size(&v))
            .map(|bytes| bytes / WORD_BYTES)
            .unwrap_or(last_level_words() / last_level_sharers())
            .max(cache_words())
    })
}

/// Hardware threads that share the last level, as the processor says (CPUID's deterministic
/// cache parameters: leaf 4 on Intel, 0x8000_001D on AMD, the last level's "maximum number of
/// logical processors sharing this cache"), else [`LAST_LEVEL_SHARERS`]. A constant sixteen
/// (the AMD host's eight cores of two threads) gave the Intel host, a virtual machine whose
/// processor reports a level 3 of 260 MiB shared by 2, a share of 16 MiB that its training
/// trees of a few MB reached only in a handful of reads: `MemoryLoad` took an arbitrary price
/// from them (9.4 µs, interval [0, 1.3 ms], run D1) that the controls' trees then paid 2–3
/// times over. By the processor's count the share is 130 MiB, which nothing here reaches.
pub fn last_level_sharers() -> u64 {
    static SHARERS: OnceLock<u64> = OnceLock::new();
    *SHARERS.get_or_init(|| processor_last_level_sharers().unwrap_or(LAST_LEVEL_SHARERS))
}

/// Hardware threads that share a level 3 when the processor does not say.
const LAST_LEVEL_SHARERS: u64 = 16;

#[cfg(target_arch = "x86_64")]
fn processor_last_level_sharers() -> Option<u64> {
    use std::arch::x86_64::{__cpuid, __cpuid_count, CpuidResult};
    let vendor = __cpuid(0);
    let name: Vec<u8> = [vendor.ebx, vendor.edx, vendor.ecx]
        .iter()
        .flat_map(|r| r.to_le_bytes())
        .collect();
    let leaf = match &name[..] {
        b"GenuineIntel" if vendor.eax >= 4 => 4,
        b"AuthenticAMD" | b"HygonGenuine" if __cpuid(0x8000_0000).eax >= 0x8000_001D => 0x8000_001D,
        _ => return None,
    };
    // Subleaves list the caches until one of type 0; the last level is the highest.
    let last = (0..16)
        .map(|subleaf| __cpuid_count(leaf, subleaf))
        .take_while(|r: &CpuidResult| r.eax & 0x1f != 0)
        .max_by_key(|r| (r.eax >> 5) & 0x7)?;
    Some(u64::from((last.eax >> 14) & 0xfff) + 1)
}

#[cfg(not(target_arch = "x86_64"))]
fn processor_last_level_sharers() -> Option<u64> {
    None
}

/// A cache's size in words: the variable `overriding` if set, else sysfs's `level`, else
/// `fallback` bytes.
fn words_of(overriding: &str, level: &str, fallback: u64) -> u64 {
    let bytes = std::env::var(overriding)
        .ok()
        .and_then(|v| parse_size(&v))
        .or_else(|| level_bytes(level))
        .unwrap_or(fallback);
    (bytes / WORD_BYTES).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_sizes_parse() {
        assert_eq!(parse_size("512K"), Some(512 * 1024));
        assert_eq!(parse_size("32768K"), Some(32 << 20));
        assert_eq!(parse_size("1M"), Some(1 << 20));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("big"), None);
        assert_eq!(parse_size("12Q"), None);
    }
}
