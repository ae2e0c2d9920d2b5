//! The remembered set: young blocks stored into an array the run allocated directly in the
//! major heap are promoted by the next minor collection whatever their own life (hand-computed
//! figures; ocamlopt 4.13 layouts: a cons cell 3 words, an array of n 1 + n).

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
    // the last stays in the field and is promoted whole. Expected: 3 + (n - 1) · 3 · 6 / I, I
    // the words between two collections.
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
    let interval = a.collection_interval_words(H);
    let expected = 3.0 + (n - 1) as f64 * 18.0 / interval;
    assert!((a.promoted_words(H) - expected).abs() < 1e-9);
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
fn a_young_array_remembers_nothing() {
    // 10 elements: the array is young (11 words), no store goes through the remembered set;
    // everything dies at the end of the run, when the clock reads 11 + 3n = 41.
    let source = "
let input n = n
let run n =
  let a = Array.make 10 [] in
  for i = 0 to n - 1 do a.(i) <- [i] done;
  Array.length a";
    let a = allocation(source, 10);
    assert_eq!(a.remembered_words, 0);
    assert_eq!(a.direct_major_words, 0);
    // The array: 11 words at age 41. Cell i, born at 11 + 3i: age 30 - 3i, so 30, 27, …, 3.
    let aged: u64 = a.lifetimes.iter().map(|b| b.word_age).sum();
    assert_eq!(aged, 11 * 41 + 3 * 3 * 55);
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
