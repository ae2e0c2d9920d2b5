//! Frames deeper than the cache (`FarStackWord`), with hand-computed counts. The cache is set
//! to 8 KiB (1024 words) through `MLCOST_CACHE_BYTES`, so the counts do not depend on the
//! machine the tests run on. Lines are 8 words; a frame that keeps one value is 2 words (the
//! slot and the return address), one that keeps two is 4.

mod common;

use std::sync::Once;

fn stack_words(source: &str, size: i64) -> u64 {
    static CACHE: Once = Once::new();
    // Before the first count, which reads it once for the whole process.
    CACHE.call_once(|| std::env::set_var("MLCOST_CACHE_BYTES", "8K"));
    common::count_of(source, size, "FarStackWord")
}

/// Keeps `n` across the call: frames of 2 words, nothing allocated.
const XOR: &str = "let rec down n = if n = 0 then 0 else n lxor down (n - 1)
let input n = n
let run n = down n";

#[test]
fn a_recursion_within_the_cache_misses_nothing() {
    // 401 frames of 2 words: 802 words, under 1024.
    assert_eq!(stack_words(XOR, 400), 0);
}

#[test]
fn a_recursion_deeper_than_the_cache_misses_twice_beyond_it() {
    // 1001 frames of 2 words (n = 1000 down to 0): words 0..2002, lines 0..=250. On the way
    // down a line's first touch comes after the 8ℓ words above it, touched since the
    // previous run left it: lines 128..=250 miss, 123 lines. On the way up the first pop in
    // line ℓ is of its deepest frame, which starts at 8ℓ + 6, after the stack swept down to
    // 2002 and back: it misses when 2002 − (8ℓ + 6) ≥ 1024, lines 0..=121, 122 lines. The
    // other pops in a line follow a touch of it one move before.
    // In words about 2 (D − C) for D words of frames: 2 (2002 − 1024) = 1956.
    assert_eq!(stack_words(XOR, 1000), (123 + 122) * 8);
}

#[test]
fn wider_frames_reach_beyond_the_cache_sooner() {
    // `n` and `a` kept: frames of 4 words. 301 frames: 1204 words, lines 0..=150. Down: lines
    // 128..=150 miss, 23. Up: line ℓ's deepest frame starts at 8ℓ + 4 and misses when
    // 1204 − (8ℓ + 4) ≥ 1024, lines 0..=22, 23.
    let pair = "let rec down n a = if n = 0 then a else a lxor n + down (n - 1) (a + 3) + a
let input n = n
let run n = down n 1";
    assert_eq!(stack_words(pair, 300), (23 + 23) * 8);
    // With 2-word frames the same depth is 602 words, within the cache.
    assert_eq!(stack_words(XOR, 300), 0);
}

#[test]
fn what_the_run_allocates_evicts_the_frames_too() {
    // `n` kept, frames of 2 words; each level but the last allocates a cell of 3 words after
    // its call returns. 401 frames (k = 0 at the top to 400): words 0..802, lines 0..=100.
    // Down: line ℓ's last touch in a run is the pop of its top frame, 4ℓ, after which levels
    // 4ℓ − 1 to 0 allocate 12ℓ words; with the 8ℓ words of stack above it, it misses when
    // 20ℓ ≥ 1024: lines 52..=100, 49. Up: line ℓ's deepest frame, 4ℓ + 3, pops after the
    // stack swept from its push down to 802 and back to 8ℓ + 6 and levels 4ℓ + 3 to 399
    // allocated 3 (397 − 4ℓ) words: it misses when 796 − 8ℓ + 1191 − 12ℓ ≥ 1024, lines
    // 0..=48, 49.
    let build = "let rec build n = if n = 0 then [] else n :: build (n - 1)
let input n = n
let run n = build n";
    assert_eq!(stack_words(build, 400), (49 + 49) * 8);
    // The same depth without the cells stays within the cache.
    assert_eq!(stack_words(XOR, 400), 0);
}

#[test]
fn a_second_recursion_in_the_run_misses_as_the_next_run_does() {
    // `run` keeps the first result across the second call: its frame (2 words) is above
    // both recursions, which sweep the same lines one after the other. Each misses what one
    // recursion misses alone, shifted by run's frame.
    let twice = "let rec down n = if n = 0 then 0 else n lxor down (n - 1)
let input n = n
let run n = down n + down (n - 1)";
    let once = "let rec down n = if n = 0 then 0 else n lxor down (n - 1)
let input n = n
let run n = 0 + down n";
    let alone = stack_words(once, 1000);
    let both = stack_words(twice, 1000);
    assert!(alone > 0);
    assert!(
        both >= 2 * alone - 32 && both <= 2 * alone + 32,
        "twice {both}, once {alone}"
    );
}

#[test]
fn a_raise_unwinds_the_frames_without_reading_them() {
    // The recursion raises at the bottom and `run` catches it: the way up reads no frame,
    // so only the way down misses (lines 128..=250 as in the recursion that returns).
    let raising = "exception Bottom
let rec down n = if n = 0 then raise Bottom else n lxor down (n - 1)
let input n = n
let run n = try down n with Bottom -> 0";
    let words = stack_words(raising, 1000);
    // `run`'s handler and frame sit above the recursion and shift it by up to a line.
    assert!((123 * 8 - 16..=123 * 8 + 16).contains(&words), "{words}");
}

#[test]
fn a_frame_in_use_all_along_stays_in_the_cache_whatever_the_run_allocates() {
    // `build` keeps `n` across its call to `cell` in every iteration of its loop: its frame
    // is written and read each time, however many cells (6 words each) pass through the
    // cache between the run's start and its end.
    let loop_ = "let[@inline never] cell n = [n; n]
let rec build n acc = if n = 0 then acc else build (n - 1) (List.hd (cell n) :: acc)
let input n = n
let run n = build n []";
    assert_eq!(stack_words(loop_, 5000), 0);
}
