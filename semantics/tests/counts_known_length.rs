//! Hand-computed counts for reads whose array or string header ocamlopt's CSE keeps: a read
//! of another element after a checked read of the same array or string counts
//! ArrayGetKnownLength or StringGetKnownLength, and what ends CSE's numbering (a call, a
//! store, a join, rebinding the array) makes the next read load the header again. Each case is checked against the header loads (`-8(%reg)`) of `ocamlopt -S`.

mod common;

use common::{count, pairs};

/// The header loads of `function` in the `ocamlopt -inline 0 -S` output for `source`: the
/// loads from `-8(%reg)` (a header written there is a new block's).
fn header_loads_in(source: &str, function: &str) -> usize {
    common::assembly_lines_in("headers", source, function, |l| {
        l.starts_with("movq") && l.contains("\t-8(%r")
    })
}

/// Counts of the element reads alone.
fn reads(source: &str, size: i64) -> Vec<(String, u64)> {
    count(source, size)
        .into_iter()
        .filter(|(k, _)| k.starts_with("ArrayGet") || k.starts_with("StringGet"))
        .collect()
}

#[test]
fn a_second_element_of_an_array_reuses_its_header() {
    let source = "
let[@inline never] f (a : int array) i j = a.(i) + a.(j)
let input n = Array.make 10 n
let run a = f a 2 7";
    assert_eq!(
        reads(source, 3),
        pairs(&[("ArrayGet", 1), ("ArrayGetKnownLength", 1)])
    );
    assert_eq!(header_loads_in(source, "f"), 1);
    // The same element twice is one read (shared_checks' older rule), a float array as an
    // int array.
    let floats = "
let[@inline never] f (a : float array) i j = a.(i) +. a.(j) +. a.(i)
let input n = Array.make 10 (float_of_int n)
let run a = f a 2 7";
    assert_eq!(
        reads(floats, 3),
        pairs(&[("ArrayGet", 1), ("ArrayGetKnownLength", 1)])
    );
    assert_eq!(header_loads_in(floats, "f"), 1);
}

#[test]
fn a_palindrome_test_loads_the_strings_header_once_a_step() {
    // str_palindrome's loop; "abcba": i, j = 0, 4 and 1, 3 compare, then 2, 2 stops the loop
    // before a read.
    let source = "
let[@inline never] is_palindrome (s : string) =
  let i = ref 0 in
  let j = ref (String.length s - 1) in
  while !i < !j && s.[!i] = s.[!j] do
    incr i;
    decr j
  done;
  !i >= !j
let input n = if n > 0 then \"abcba\" else \"\"
let run s = is_palindrome s";
    assert_eq!(
        reads(source, 1),
        pairs(&[("StringGet", 2), ("StringGetKnownLength", 2)])
    );
    assert_eq!(header_loads_in(source, "is_palindrome"), 2);
}

#[test]
fn a_call_a_store_or_a_join_makes_the_next_read_load_the_header() {
    let call = "
let[@inline never] id x = x
let[@inline never] f (a : int array) i j = let x = a.(i) in let y = id x in y + a.(j)
let input n = Array.make 10 n
let run a = f a 2 7";
    assert_eq!(reads(call, 3), pairs(&[("ArrayGet", 2)]));
    assert_eq!(header_loads_in(call, "f"), 2);
    // An allocation between forgets the header too (CSEgen's kill of loads), though when
    // Comballoc merges it with a later one, native code allocates before both reads and
    // shares the header: `let p = (a.(i), i) in (p, a.(j))` loads it once, counted twice.
    let store = "
let[@inline never] f (a : int array) i j = let x = a.(i) in a.(0) <- x; x + a.(j)
let input n = Array.make 10 n
let run a = f a 2 7";
    assert_eq!(reads(store, 3), pairs(&[("ArrayGet", 2)]));
    // The store's check reuses the read's header (not counted: ArraySet is counted in full)
    // and the store makes the read after it load the header again: two loads.
    assert_eq!(header_loads_in(store, "f"), 2);
    let join = "
let[@inline never] f (a : int array) i j = let x = if i > 0 then a.(i) else 0 in x + a.(j)
let input n = Array.make 10 n
let run a = f a 2 7";
    assert_eq!(reads(join, 3), pairs(&[("ArrayGet", 2)]));
    assert_eq!(header_loads_in(join, "f"), 2);
    // Two arrays: each its own header.
    let two = "
let[@inline never] f (a : int array) (b : int array) i = a.(i) + b.(i) + a.(i + 1) + b.(i + 1)
let input n = (Array.make 10 n, Array.make 10 1)
let run (a, b) = f a b 2";
    assert_eq!(
        reads(two, 3),
        pairs(&[("ArrayGet", 2), ("ArrayGetKnownLength", 2)])
    );
    assert_eq!(header_loads_in(two, "f"), 2);
}
