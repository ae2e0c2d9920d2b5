//! `caml_modify` split by the age of the block stored into: `CamlModifyYoung` with the
//! probability that the block is still in the minor heap (1 − min(A, H)/H, A the words
//! allocated since the block, H the minor heap's words), `CamlModify` with the rest. The two
//! always sum to the calls made; the young share is summed over the run and rounded.

use semantics::Program;
use std::collections::BTreeMap;

fn counts(source: &str, size: i64) -> BTreeMap<String, u64> {
    let program = Program::from_source("t.ml", source).unwrap_or_else(|e| panic!("{e}"));
    program.count(size).unwrap_or_else(|e| panic!("{e}")).counts
}

fn modifies(source: &str, size: i64) -> (u64, u64) {
    let c = counts(source, size);
    (
        c.get("CamlModify").copied().unwrap_or(0),
        c.get("CamlModifyYoung").copied().unwrap_or(0),
    )
}

#[test]
fn stores_into_a_block_the_run_built_with_nothing_allocated_since_are_young() {
    // One record, one reference (kept a block by a call that is not inlined), one array of
    // 8: each built by `run`, then n stores of a list from `input` and no allocation, so no
    // collection can have moved the block.
    let record = "
type r = { mutable l : int list; mutable m : int list }
let input n = (n, [1; 2], [3])
let run (n, p, q) =
  let r = { l = []; m = [] } in
  for _ = 1 to n do
    r.l <- p;
    r.m <- q
  done;
  r.l";
    assert_eq!(modifies(record, 500), (0, 1000));
    let reference = "
let[@inline never] read (r : int list ref) = !r
let input n = (n, [1; 2])
let run (n, p) =
  let r = ref [] in
  for _ = 1 to n do r := p done;
  read r";
    assert_eq!(modifies(reference, 300), (0, 300));
    let array = "
let input n = (n, [1; 2])
let run (n, p) =
  let a = Array.make 8 [] in
  for i = 1 to n do a.(i land 7) <- p done;
  a.(0)";
    assert_eq!(modifies(array, 200), (0, 200));
}

#[test]
fn stores_into_old_blocks_are_caml_modify_whole() {
    // `input`'s record is in the major heap when runs are timed.
    let input_record = "
type r = { mutable l : int list }
let input n = (n, { l = [] }, [1; 2])
let run (n, r, p) =
  for _ = 1 to n do r.l <- p done;
  r.l";
    assert_eq!(modifies(input_record, 400), (400, 0));
    // An array of more than 256 elements is allocated directly in the major heap.
    let major_array = "
let input n = (n, [1; 2])
let run (n, p) =
  let a = Array.make 300 [] in
  for i = 1 to n do a.(i land 255) <- p done;
  a.(0)";
    assert_eq!(modifies(major_array, 100), (100, 0));
    // So is a top-level value.
    let top_level = "
type r = { mutable l : int list }
let cell = { l = [] }
let input n = (n, [1; 2])
let run (n, p) =
  for _ = 1 to n do cell.l <- p done;
  cell.l";
    assert_eq!(modifies(top_level, 50), (50, 0));
}

/// Σ over the stores i = 1 … n, each made 3i words after the record, of 1 − min(3i, H)/H.
fn expected_young(n: u64, heap: u64) -> f64 {
    (1..=n)
        .map(|i| 1.0 - (3 * i).min(heap) as f64 / heap as f64)
        .sum()
}

#[test]
fn allocation_since_the_block_was_built_makes_it_old_in_proportion() {
    // The record (2 words) comes first; then each iteration conses 3 words before it stores
    // the new list: the i-th store comes 3i words after the record.
    let growing = "
type r = { mutable l : int list }
let input n = n
let run n =
  let r = { l = [] } in
  for i = 1 to n do r.l <- i :: r.l done;
  List.length r.l";
    let heap = semantics::minor_heap_words();
    for n in [1000u64, 100_000] {
        let (old, young) = modifies(growing, n as i64);
        assert_eq!(old + young, n);
        let expected = expected_young(n, heap);
        assert_eq!(young, expected.round() as u64, "n = {n}: {expected}");
        if heap == 256 * 1024 {
            // By hand, H = 262 144: at n = 1000, 1000 − 3·1000·1001/(2H) = 994.27; at 100 000
            // the record is old for certain from the 87 382nd store (3i ≥ H) on, and the
            // 87 381 before it sum to 87 381 − 3·87 381·87 382/(2H) = 43 690.17.
            let by_hand = if n == 1000 { 994 } else { 43_690 };
            assert_eq!(young, by_hand, "n = {n}");
        }
    }
}

#[test]
fn the_split_of_a_queue_adds_up_to_its_calls_of_caml_modify() {
    // queue.ml: a push stores the cell twice (`last.next`, or `q.first` for the first, and
    // `q.last`), a take once (`q.first`), the last take clears (`q.first`, `q.last`):
    // 2n + (n − 1) + 2 calls, as counted before the split.
    let queue = "
let input n = n
let run n =
  let q = Queue.create () in
  for i = 1 to n do Queue.push i q done;
  let s = ref 0 in
  while not (Queue.is_empty q) do s := !s + Queue.pop q done;
  !s";
    for n in [100u64, 100_000] {
        let (old, young) = modifies(queue, n as i64);
        assert_eq!(old + young, 3 * n + 1, "n = {n}");
        if n == 100 {
            // 300 words of cells: the queue's record stays young with probability 1 − 3i/H
            // at the i-th push, rounded up to young throughout.
            assert_eq!((old, young), (0, 301));
        } else {
            // Beyond the heap the record is old by the takes, while `last.next` stores into
            // a cell built one push before: young, one a push.
            assert!(young > n && old > n, "{old} {young}");
        }
    }
}
