//! Reads the cache no longer holds (`FarLoad`, and `FarStreamWord` where the prefetcher streams
//! them), with hand-computed counts. The cache is set to
//! 64 KiB (8192 words) through `MLCOST_CACHE_BYTES`, and the last-level cache streams are
//! taken against to 256 KiB through `MLCOST_LAST_LEVEL_CACHE_BYTES`, so the counts do not
//! depend on the machine the tests run on.

mod common;

use semantics::Program;
use std::sync::Once;

const CACHE_WORDS: f64 = 8192.0;
const LAST_LEVEL_WORDS: f64 = 32768.0;
const SHARED_LEVEL_WORDS: f64 = 16384.0;

/// The share of a stream read `distance` words ago that a shared last level no longer holds:
/// none up to a quarter of it, all from three quarters, in proportion between.
fn stream_gone(distance: f64) -> f64 {
    let quarter = LAST_LEVEL_WORDS / 4.0;
    ((distance - quarter) / (2.0 * quarter)).clamp(0.0, 1.0)
}

fn far_loads(source: &str, size: i64) -> u64 {
    count_of(source, size, "FarLoad")
}

fn memory_loads(source: &str, size: i64) -> u64 {
    count_of(source, size, "MemoryLoad")
}

fn streamed_words(source: &str, size: i64) -> u64 {
    count_of(source, size, "FarStreamWord")
}

fn count_of(source: &str, size: i64, construct: &str) -> u64 {
    static CACHE: Once = Once::new();
    // Before the first count, which reads it once for the whole process.
    CACHE.call_once(|| {
        std::env::set_var("MLCOST_CACHE_BYTES", "64K");
        std::env::set_var("MLCOST_LAST_LEVEL_CACHE_BYTES", "256K");
        std::env::set_var("MLCOST_LAST_LEVEL_SHARE_BYTES", "128K");
    });
    common::count_of(source, size, construct)
}

/// A list of pairs built by `input`; `junk` words allocated between elements (0: none).
fn pairs_walk(junk: u32) -> String {
    let spacer = if junk == 0 {
        String::new()
    } else {
        format!("let _spacer = Array.make {} 0 in ", junk - 1)
    };
    format!(
        "let rec build n acc = if n = 0 then acc else {spacer}build (n - 1) ((n, n) :: acc)
let input n = build n []
let rec walk l acc = match l with [] -> acc | (x, _) :: t -> walk t (acc + x)
let run l = walk l 0"
    )
}

#[test]
fn a_walk_over_data_allocated_in_order_is_streamed_at_any_size() {
    // Cell and pair of each element lie next to each other and next to the following
    // element's: the prefetcher streams the walk, at most the first read waits.
    for n in [100, 10_000, 50_000] {
        let far = far_loads(&pairs_walk(0), n);
        assert!(far <= 1, "{far} far loads at n = {n}");
    }
}

#[test]
fn a_streamed_walk_counts_its_words_with_the_share_the_last_level_lost() {
    // The walk reads 6 words per element (cell and pair) and touches nothing else: the next
    // run meets the input at a distance of 6n words. All reads but the first (a new stream,
    // counted as a FarLoad) are streamed. 600 words stay in the last level, 12 000 are
    // 23% gone, 300 000 all.
    let source = pairs_walk(0);
    assert_eq!(streamed_words(&source, 100), 0);
    for n in [2_000i64, 50_000] {
        let words = 6.0 * n as f64;
        let expected = ((words - 3.0) * stream_gone(words)).round();
        let streamed = streamed_words(&source, n) as f64;
        assert!(
            (streamed - expected).abs() <= 1.0,
            "n = {n}: {streamed} streamed words, expected {expected}"
        );
    }
    // Scattered, the cells are not streamed: only the pairs next to them are, 3 words each.
    assert_eq!(streamed_words(&pairs_walk(600), 10_000), 30_000);

    // The same 100 elements walked 50 times in one run, with 2000 words allocated after each
    // walk (an array, in the major heap): the first walk meets the input a whole run after the
    // last run's (130 000 words touched, 101 187 of them distinct: the 100 000 allocated, the
    // 600 of the input, and the 587 a later walk's reads add), beyond the last level; the 49
    // after it at 2597 (the walk's 600 but the block's own 3, and the array), where the last
    // level holds all of it. A walk's first cell is a new stream each time (the walk ends 600
    // words from where it starts).
    let reused = |allocating: bool| {
        let array = if allocating {
            "let _ = Array.make 1999 0 in "
        } else {
            ""
        };
        format!(
            "{}\nlet rec times k l acc = if k = 0 then acc else times (k - 1) l ({array}acc + walk l 0)
let run l = times 50 l 0",
            pairs_walk(0).replace("let run l = walk l 0", "")
        )
    };
    assert_eq!(streamed_words(&reused(true), 100), 597);
    // Without the arrays, the run's footprint is its 600 words of input, which the last level
    // holds from one run to the next, however many times the run reads them.
    assert_eq!(streamed_words(&reused(false), 100), 0);
}

/// The fixed point of random replacement for a set of `set` words reused in a cycle through a
/// cache of [`CACHE_WORDS`]: the share m of reads that miss, m = 1 − e^(−m·set/C), taken from
/// m = 1 down.
fn cyclic_miss_share(set: f64) -> f64 {
    miss_share_against(set, CACHE_WORDS)
}

fn miss_share_against(set: f64, cache: f64) -> f64 {
    let mut m = 1.0f64;
    for _ in 0..10_000 {
        m = 1.0 - (-m * set / cache).exp();
    }
    m
}

#[test]
fn scattered_input_misses_once_per_element_when_a_run_outgrows_the_cache() {
    // 600 words of array between elements: each cell is 606 words from the next one walked,
    // beyond the prefetcher's 4 KiB page, so it is not streamed; its pair (3 words before it)
    // is. A run reads 6 words per element (cell and pair), all of them distinct, and the next
    // run reads them again: a cycle of 6n words through the cache, every read of which is
    // inserted if it missed. Within the cache (n = 100, 1000: 600 and 6000 words) nothing
    // misses; beyond, the cells miss in the share m of the cycle's fixed point.
    let source = pairs_walk(600);
    for n in [100i64, 1_000, 2_000, 10_000] {
        let expected = (n as f64 * cyclic_miss_share(6.0 * n as f64)).round();
        let far = far_loads(&source, n) as f64;
        assert!(
            (far - expected).abs() <= 1.0 + 0.002 * n as f64,
            "n = {n}: {far} far loads, expected {expected}"
        );
    }
    assert_eq!(far_loads(&source, 1_000), 0);
    // Far beyond the cache, nearly every element's cell.
    assert!(far_loads(&source, 10_000) >= 9_990);
}

#[test]
fn reads_beyond_the_share_of_the_last_level_wait_on_the_memory() {
    // The scattered walk again, against a share of the last level of 16 384 words: at
    // n = 2000 the cycle (12 000 words) misses the level 2 but not the share; at 10 000
    // (60 000 words) the cells miss both, each in its fixed point's share.
    let source = pairs_walk(600);
    assert!(far_loads(&source, 2000) > 1000);
    assert_eq!(memory_loads(&source, 2000), 0);
    let expected = 10_000.0 * miss_share_against(60_000.0, SHARED_LEVEL_WORDS);
    let memory = memory_loads(&source, 10_000) as f64;
    assert!(
        (memory - expected).abs() <= 1.0 + 0.002 * 10_000.0,
        "{memory} memory loads, expected {expected:.0}"
    );
    // Every read that waits on the memory missed the level 2 first.
    assert!(memory <= far_loads(&source, 10_000) as f64);
}

#[test]
fn hot_data_read_between_cold_reads_adds_reads_but_no_distinct_words() {
    // A scattered list of n elements (6 words each) walked once a run; between two of its
    // elements, a hot list of 10 elements (60 words) walked 20 times. The cold cells come
    // back a whole run later, after some 1200 n words read, far more than the cache; but what
    // passed through the cache meanwhile is the cold list, the hot one and the input's pair:
    // 6n + 63 distinct words. At n = 1000 that is within the cache (8192): nothing misses,
    // where counting the words read would have missed every cold cell. At n = 2000 the cold
    // cells miss in the share of a cycle of 12 063 words.
    let source = "
let rec build n acc =
  if n = 0 then acc else let _spacer = Array.make 599 0 in build (n - 1) ((n, n) :: acc)
let input n = (build n [], build 10 [])
let rec walk l acc = match l with [] -> acc | (x, _) :: t -> walk t (acc + x)
let rec times k l acc = if k = 0 then acc else times (k - 1) l (acc + walk l 0)
let rec visit l hot acc =
  match l with [] -> acc | (x, _) :: t -> visit t hot (acc + x + times 20 hot 0)
let run (cold, hot) = visit cold hot 0";
    assert!(far_loads(source, 1000) <= 1, "{}", far_loads(source, 1000));
    let expected = 2000.0 * cyclic_miss_share(12_063.0);
    let far = far_loads(source, 2000) as f64;
    assert!(
        (far - expected).abs() <= 0.02 * expected,
        "{far} far loads, expected {expected:.0}"
    );
}

#[test]
fn data_reused_within_the_cache_does_not_miss() {
    // The same 100-element scattered list walked 50 times in one run: the run's reads pass
    // 600 distinct words through the cache, whether a read comes back after one walk or
    // (the input's first reads) after a whole run: nothing misses.
    let source = format!(
        "{}\nlet rec times k l acc = if k = 0 then acc else times (k - 1) l (acc + walk l 0)
let run l = times 50 l 0",
        pairs_walk(600).replace("let run l = walk l 0", "")
    );
    assert_eq!(far_loads(&source, 100), 0);
    assert_eq!(far_loads(&pairs_walk(600), 100), 0);
}

/// The working set `validation` compares with the cache, for the default minor heap.
fn working_set(source: &str, size: i64) -> f64 {
    let result = Program::from_source("t.ml", source)
        .unwrap()
        .count(size)
        .unwrap();
    result.allocation.working_set_words(256 * 1024)
}

#[test]
fn a_walk_works_in_the_input_it_reads_and_an_allocating_loop_in_the_minor_heap() {
    // `length` reads each cons cell of the input once (its tail; the head is not loaded):
    // the working set grows with the list and nothing else.
    let walk = "
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let rec len l acc = match l with [] -> acc | _ :: t -> len t (acc + 1)
let input n = range n []
let run l = len l 0";
    let small = working_set(walk, 1000);
    let large = working_set(walk, 100_000);
    assert!((1000.0..=3000.0).contains(&small), "{small}");
    assert!((large / small - 100.0).abs() < 1.0, "{small} {large}");
    // A loop that allocates 3 words an iteration, none of it kept: whatever it allocates,
    // it cycles through the minor heap (256 Ki words) and works in no more.
    let churn = "
let rec loop n acc = if n = 0 then acc else loop (n - 1) (match [n] with [x] -> acc + x | _ -> acc)
let input n = n
let run n = loop n 0";
    let cycled = working_set(churn, 1_000_000);
    assert!(
        (256.0 * 1024.0..=256.0 * 1024.0 + 100.0).contains(&cycled),
        "{cycled}"
    );
}
