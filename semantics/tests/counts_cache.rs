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

/// The share of a stream read `distance` words ago that a shared last level no longer holds:
/// none up to a quarter of it, all from three quarters, in proportion between.
fn stream_gone(distance: f64) -> f64 {
    let quarter = LAST_LEVEL_WORDS / 4.0;
    ((distance - quarter) / (2.0 * quarter)).clamp(0.0, 1.0)
}

fn far_loads(source: &str, size: i64) -> u64 {
    count_of(source, size, "FarLoad")
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

    // The same 100 elements walked 50 times in one run: the first walk meets the input at the
    // distance of a whole run (30 000 words, beyond the last level), the 49 after it at 597
    // (the walk's 600 but the block's own 3), where the last level holds all of it. A walk's
    // first cell is a new stream each time (the walk ends 600 words from where it starts).
    let reused = format!(
        "{}\nlet rec times k l acc = if k = 0 then acc else times (k - 1) l (acc + walk l 0)
let run l = times 50 l 0",
        pairs_walk(0).replace("let run l = walk l 0", "")
    );
    assert_eq!(streamed_words(&reused, 100), 597);
}

#[test]
fn scattered_input_misses_once_per_element_when_a_run_outgrows_the_cache() {
    // 600 words of array between elements: each cell is 606 words from the next one walked,
    // beyond the prefetcher's 4 KiB page, so it is not streamed; its pair (3 words before it) is. A run reads 6 words per element
    // (cell and pair), which is the distance at which the next run meets the input again:
    // the cell misses with probability 1 − e^(−6n/8192).
    let source = pairs_walk(600);
    for n in [100i64, 1_000, 10_000] {
        let expected = (n as f64 * (1.0 - (-(6.0 * n as f64) / CACHE_WORDS).exp())).round();
        let far = far_loads(&source, n) as f64;
        assert!(
            (far - expected).abs() <= 1.0,
            "n = {n}: {far} far loads, expected {expected}"
        );
    }
    // Far beyond the cache, nearly every element's cell (e^(−60000/8192) < 0.1%).
    assert!(far_loads(&source, 10_000) >= 9_990);
}

#[test]
fn data_reused_within_the_cache_does_not_miss() {
    // The same 100-element scattered list walked 50 times in one run: 597 words touched
    // between two reads of a cell (a walk's 600 but the cell's own 3), far below the cache.
    let source = format!(
        "{}\nlet rec times k l acc = if k = 0 then acc else times (k - 1) l (acc + walk l 0)
let run l = times 50 l 0",
        pairs_walk(600).replace("let run l = walk l 0", "")
    );
    let once = far_loads(&pairs_walk(600), 100);
    let fifty = far_loads(&source, 100);
    // The first walk meets the input at the distance of a whole run (50 walks, 30 000
    // words): nearly all 100 cells miss then; the 49 walks after it reuse them from the cache
    // (1 − e^(−597/8192) ≈ 7% miss each).
    let first = 100.0 * (1.0 - (-(30_000.0) / CACHE_WORDS).exp());
    let later = 49.0 * 100.0 * (1.0 - (-597.0 / CACHE_WORDS).exp());
    assert!(
        (fifty as f64 - (first + later)).abs() <= 2.0,
        "{fifty} far loads, expected {:.1}",
        first + later
    );
    assert!(once < 10, "{once}");
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
