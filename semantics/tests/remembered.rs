//! The remembered set: young blocks stored into an array the run allocated directly in the
//! major heap are promoted by the next minor collection whatever their own life, and those
//! stored into an older young block open their promotion window at that block's birth
//! (hand-computed figures; ocamlopt 4.13 layouts: a cons cell 3 words, an array of n 1 + n).

use semantics::Program;

fn allocation(source: &str, size: i64) -> semantics::Allocation {
    Program::from_source("t.ml", source)
        .unwrap()
        .count(size)
        .unwrap()
        .allocation
}

const H: u64 = 256 * 1024;

#[test]
fn cells_stored_into_a_major_array_are_promoted_whole() {
    // 300 elements > Max_young_wosize: the array (301 words) is allocated major. Each `[i]`
    // (3 words) goes into it and stays until the array dies at the end of the run: all 3n
    // words are in the remembered set at the next collection. Nothing else is allocated.
    let source = "
let input n = n
let run n =
  let a = Array.make 300 [] in
  for i = 0 to n - 1 do a.(i) <- [i] done;
  Array.length a";
    let a = allocation(source, 200);
    assert_eq!(a.direct_major_words, 301);
    assert_eq!(a.words, 301 + 3 * 200);
    assert_eq!(a.remembered_words, 3 * 200);
    assert!(a.lifetimes.is_empty(), "{:?}", a.lifetimes);
    assert_eq!(a.promoted_words(H), 600.0);
}

#[test]
fn what_a_cell_reaches_is_promoted_with_it() {
    // `[[i]]`: the outer cell holds the inner one; both (6 words) are promoted.
    let source = "
let input n = n
let run n =
  let a = Array.make 300 [] in
  for i = 0 to n - 1 do a.(i) <- [[i]] done;
  Array.length a";
    let a = allocation(source, 50);
    assert_eq!(a.remembered_words, 6 * 50);
    assert_eq!(a.promoted_words(H), 300.0);
}

#[test]
fn an_overwritten_value_dies_by_its_own_age() {
    // Slot 0 takes n cells in turn: each but the last is overwritten once the next cell is
    // allocated, so it dies at age 6 (ages run from the clock before the block's own words);
    // the last stays in the field and is promoted whole. Expected: 3 + (n - 1) · 3 · q(6), q(a)
    // the probability that a life of a words holds a collection (see `promoted`).
    let source = "
let input n = n
let run n =
  let a = Array.make 300 [] in
  for i = 0 to n - 1 do a.(0) <- [i] done;
  Array.length a";
    let n = 100;
    let a = allocation(source, n);
    assert_eq!(a.remembered_words, 3);
    let aged: u64 = a.lifetimes.iter().map(|b| b.word_age).sum();
    assert_eq!(aged, (n as u64 - 1) * 3 * 6);
    let squared: f64 = a.lifetimes.iter().map(|b| b.word_age_squared).sum();
    assert_eq!(squared, (n - 1) as f64 * 3.0 * 36.0);
    let expected = 3.0 + (n - 1) as f64 * 3.0 * promoted(&a, 6.0);
    assert!((a.promoted_words(H) - expected).abs() < 1e-9);
}

/// The probability that a life of `age` words holds a minor collection, in a heap of H words a
/// share p of whose fillings a major cycle cuts short: (2x − p x²) / (2 − p), x = age / H.
fn promoted(a: &semantics::Allocation, age: f64) -> f64 {
    let p = a.cut_share(H);
    let x = age / H as f64;
    (2.0 * x - p * x * x) / (2.0 - p)
}

#[test]
fn a_value_stored_twice_in_a_row_stays_remembered() {
    // The same cell written again into its own field: still there at the collection.
    let source = "
let input n = n
let run n =
  let a = Array.make 300 [] in
  let c = [n] in
  a.(1) <- c;
  a.(1) <- c;
  Array.length a";
    assert_eq!(allocation(source, 5).remembered_words, 3);
}

#[test]
fn a_young_array_remembers_nothing_but_anchors_what_it_holds() {
    // 10 elements: the array is young (11 words), no store goes through the remembered set;
    // everything dies at the end of the run, when the clock reads 11 + 3n = 41. A collection
    // anywhere after the array's birth would have left it major and each later store in the
    // remembered set, so every cell's window opens at the array's birth: 41 words each, not
    // its own age (30 - 3i for cell i, born at 11 + 3i).
    let source = "
let input n = n
let run n =
  let a = Array.make 10 [] in
  for i = 0 to n - 1 do a.(i) <- [i] done;
  Array.length a";
    let a = allocation(source, 10);
    assert_eq!(a.remembered_words, 0);
    assert_eq!(a.direct_major_words, 0);
    let aged: u64 = a.lifetimes.iter().map(|b| b.word_age).sum();
    assert_eq!(aged, 11 * 41 + 3 * 41 * 10);
}

#[test]
fn a_queue_anchors_every_cell_at_its_own_birth() {
    // `Queue.create` is a 4-word record, each `push` a 3-word cell hung from `q.last` and from
    // the previous cell: once a collection has found the queue alive, every later cell goes
    // through the remembered set. All die at the end of the run (clock 4 + 3n = 34 for n = 10)
    // with their windows open since the queue's birth: 34 × 34 word-ages. By their own ages
    // the cells would give 3 · (30 + 27 + … + 3) and the total 4 · 34 + 495 = 631.
    let source = "
let input n = n
let run n =
  let q = Queue.create () in
  for i = 1 to n do Queue.push i q done;
  Queue.length q";
    let a = allocation(source, 10);
    assert_eq!(a.words, 34);
    assert_eq!(a.remembered_words, 0);
    let aged: u64 = a.lifetimes.iter().map(|b| b.word_age).sum();
    assert_eq!(aged, 34 * 34);
    assert!((a.promoted_words(H) - 34.0 * promoted(&a, 34.0)).abs() < 1e-9);
}

#[test]
fn a_value_overwritten_in_a_young_field_dies_by_its_own_age() {
    // The record (2 words) holds each `[i]` (3 words) until the next one replaces it: taken out
    // of the field, the cell dies at its own age, 6. The last stays until the end of the run
    // (clock 2 + 3n = 32 for n = 10) and its window opens at the record's birth: 32.
    let source = "
type box = { mutable v : int list }
let input n = n
let run n =
  let b = { v = [] } in
  for i = 1 to n do b.v <- [i] done;
  List.length b.v";
    let a = allocation(source, 10);
    assert_eq!(a.words, 32);
    let aged: u64 = a.lifetimes.iter().map(|b| b.word_age).sum();
    assert_eq!(aged, 9 * 3 * 6 + 3 * 32 + 2 * 32);
}

#[test]
fn what_goes_into_a_remembered_block_later_is_promoted_with_it() {
    // The collection traces each record from the remembered set, so the cell stored into its
    // field after the record went into the major array is promoted too: per element, the
    // record (2 words) and the cell (3 words).
    let source = "
type r = { mutable l : int list }
let filler = { l = [] }
let input n = n
let run n =
  let a = Array.make 300 filler in
  for i = 0 to n - 1 do
    let r = { l = [] } in
    a.(i) <- r;
    r.l <- [i]
  done;
  Array.length a";
    let a = allocation(source, 20);
    assert_eq!(a.remembered_words, 5 * 20);
    assert!(a.lifetimes.is_empty(), "{:?}", a.lifetimes);
}
