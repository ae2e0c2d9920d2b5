//! `Array.copy`, `append`, `sub`, `concat`, `blit` and `fill`: array.ml's code around the
//! runtime's `caml_array_sub` / `append` / `concat` (ArrayCopy, then a `memcpy` per element or
//! `caml_initialize` into a major result: ArrayInitWord), `caml_array_blit` and `caml_array_fill` (BytesCopy,
//! then per element a `memmove`, a plain store, `caml_modify` or the inline barrier), with
//! hand-computed counts, the native digest, and the words the native program allocates.

mod common;

use common::{count, expect, native_words};
use semantics::Program;

/// `sub`'s and `fill`'s check `ofs < 0 || len < 0 || ofs > length a - len`, all false: two
/// `<`, one `>`, the length and the subtraction; the `||`s of a condition are its tests' jumps.
const CHECK3: [(&str, u64); 4] = [
    ("IntCondLT", 2),
    ("IntCondGT", 1),
    ("ArrayLength", 1),
    ("IntSub", 1),
];

/// `blit`'s check of five tests, all false: three `<`, two `>`, two lengths and two
/// subtractions (and four `||`, which a condition compiles to its tests' jumps).
const CHECK5: [(&str, u64); 4] = [
    ("IntCondLT", 3),
    ("IntCondGT", 2),
    ("ArrayLength", 2),
    ("IntSub", 2),
];

fn with(base: &[(&str, u64)], more: &[(&str, u64)]) -> std::collections::BTreeMap<String, u64> {
    let mut all = expect(base);
    for (k, n) in more {
        *all.entry(k.to_string()).or_default() += n;
    }
    all
}

fn result(source: &str, size: i64) -> semantics::CountResult {
    Program::from_source("t.ml", source)
        .unwrap_or_else(|e| panic!("{e}"))
        .count(size)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn sub_checks_its_arguments_then_copies_the_words() {
    let source = "let input n = Array.make n 7\nlet run a = Array.sub a 2 5";
    // `Array.sub` is run's tail call; `unsafe_sub` one caml_array_sub of 5 words (memcpy).
    assert_eq!(
        count(source, 10),
        with(
            &CHECK3,
            &[
                ("TailApp", 1),
                ("ArrayCopy", 1),
                ("BytesCopyWord", 5),
                ("Base", 1)
            ]
        )
    );
    let r = result(source, 10);
    assert_eq!(r.allocation.words, 6);
    assert_eq!(r.allocation.direct_major_words, 0);
    // An empty sub is the atom: the call, nothing allocated.
    let empty = result(
        "let input n = Array.make n 7\nlet run a = Array.sub a 2 0",
        10,
    );
    assert_eq!(empty.counts["ArrayCopy"], 1);
    assert_eq!(empty.counts.get("BytesCopyWord"), None);
    assert_eq!(empty.allocation.words, 0);
}

#[test]
fn copy_beyond_256_words_is_allocated_major_and_initialized_per_element() {
    let source = "let input n = Array.make n 7\nlet run a = Array.copy a";
    // copy: `let l = length a`, `l = 0`, then caml_array_sub a 0 l.
    let small = expect(&[
        ("TailApp", 1),
        ("LetData", 1),
        ("ArrayLength", 1),
        ("IntCondEq", 1),
        ("ArrayCopy", 1),
        ("BytesCopyWord", 256),
        ("Base", 1),
    ]);
    assert_eq!(count(source, 256), small);
    let r = result(source, 256);
    assert_eq!(
        (r.allocation.words, r.allocation.direct_major_words),
        (257, 0)
    );
    // 257 elements: caml_alloc_shr and caml_initialize per element instead of memcpy.
    let r = result(source, 257);
    assert_eq!(r.counts["ArrayInitWord"], 257);
    assert_eq!(r.counts.get("BytesCopyWord"), None);
    assert_eq!(r.counts["MajorWord"], 258);
    assert_eq!(
        (r.allocation.words, r.allocation.direct_major_words),
        (258, 258)
    );
    // A float array is memcpy'd whatever its size.
    let floats = result(
        "let input n = Array.make n 1.5\nlet run a = Array.copy a",
        300,
    );
    assert_eq!(floats.counts["BytesCopyWord"], 300);
    assert_eq!(floats.counts.get("ArrayInitWord"), None);
    assert_eq!(floats.allocation.direct_major_words, 301);
    // The empty array is returned as it is: no call.
    let empty = count(source, 0);
    assert_eq!(empty.get("ArrayCopy"), None);
}

#[test]
fn append_and_concat_gather_their_sources() {
    let source =
        "let input n = (Array.make n 7, Array.make 2 1)\nlet run (a, b) = Array.append a b";
    // append: two lengths and two `= 0` tests, then caml_array_append of 5 + 2 words.
    assert_eq!(
        count(source, 5),
        expect(&[
            ("TupleMatch", 2),
            ("TailApp", 1),
            ("LetData", 1),
            ("ArrayLength", 2),
            ("IntCondEq", 2),
            ("ArrayCopy", 1),
            ("BytesCopyWord", 7),
            ("Base", 1),
        ])
    );
    // `Array.concat` is the external itself: no OCaml code around it.
    let concat = "let input n = [Array.make n 7; Array.make 2 1; [||]]\nlet run l = Array.concat l";
    assert_eq!(
        count(concat, 5),
        expect(&[("ArrayCopy", 1), ("BytesCopyWord", 7), ("Base", 1)])
    );
    let r = result(concat, 300);
    assert_eq!(r.counts["ArrayInitWord"], 302);
    assert_eq!(r.allocation.direct_major_words, 303);
}

#[test]
fn blit_moves_into_a_young_array_and_calls_caml_modify_into_an_old_one() {
    // b is the run's own, in the minor heap: memmove.
    let young = "let input n = Array.make n 7\nlet run a = let b = Array.make 4 0 in Array.blit a 0 b 1 3; b";
    let around = [
        ("LetData", 1),
        ("ArrayMake", 1),
        ("ArrayMakeWord", 4),
        ("FunApp", 1),
        ("BytesCopy", 1),
        ("Base", 1),
    ];
    let mut expected = with(&CHECK5, &around);
    expected.insert("BytesCopyWord".into(), 3);
    assert_eq!(count(young, 10), expected);
    // a is `input`'s, in the major heap: caml_modify per element, whatever it holds.
    let old = "let input n = Array.make n 7\nlet run a = let b = Array.make 4 0 in Array.blit b 0 a 1 3; a";
    let mut expected = with(&CHECK5, &around);
    expected.insert("CamlModify".into(), 3);
    assert_eq!(count(old, 10), expected);
    // Into a float array: memmove even when it is old.
    let floats = "let input n = Array.make n 1.5\nlet run a = let b = Array.make 4 0.5 in Array.blit b 0 a 1 3; a";
    assert_eq!(common::count_of(floats, 10, "BytesCopyWord"), 3);
    assert_eq!(common::count_of(floats, 10, "CamlModify"), 0);
}

#[test]
fn fill_stores_into_a_young_array_and_runs_the_barrier_into_an_old_one() {
    let old = "let input n = Array.make n 7\nlet run a = Array.fill a 1 3 5; a";
    let around = [("FunApp", 1), ("BytesCopy", 1), ("Base", 1)];
    let mut expected = with(&CHECK3, &around);
    expected.insert("ArrayBarrierWord".into(), 3);
    assert_eq!(count(old, 10), expected);
    let young = "let input n = n\nlet run n = let a = Array.make n 0 in Array.fill a 1 3 5; a";
    let mut expected = with(&CHECK3, &around);
    expected.extend([
        ("LetData".to_string(), 1),
        ("ArrayMake".to_string(), 1),
        ("ArrayMakeWord".to_string(), 10 + 3),
    ]);
    assert_eq!(count(young, 10), expected);
    // A float array: the double stored in a plain loop.
    let floats = "let input n = Array.make n 1.5\nlet run a = Array.fill a 1 3 2.5; a";
    assert_eq!(common::count_of(floats, 10, "ArrayMakeWord"), 3);
    assert_eq!(common::count_of(floats, 10, "ArrayBarrierWord"), 0);
}

#[test]
fn bad_arguments_raise_invalid_argument_as_array_ml_does() {
    let source = "let input n = Array.make n 7\n\
                  let run a = try ignore (Array.sub a 3 (-1)); 0 with Invalid_argument s -> String.length s";
    assert_eq!(common::count_of(source, 5, "ArrayCopy"), 0);
    assert_eq!(common::count_of(source, 5, "Raise"), 1);
}

/// Copies, appends, blits and fills of int, float and boxed arrays, small and beyond 256
/// words, in the run's own arrays (the input's are copied first: every run must leave them as
/// it found them).
const ALL_FIVE: &str = "
let input n = (Array.init n (fun i -> i * 3), Array.init n (fun i -> float_of_int i /. 4.), Array.init n (fun i -> [i]))

let run (ints, floats, lists) =
  let a = Array.copy ints in
  let f = Array.copy floats in
  let l = Array.copy lists in
  let n = Array.length a in
  let s = Array.sub a (n / 3) (n / 2) in
  let fs = Array.sub f (n / 4) (n / 2) in
  let both = Array.append a s in
  let fboth = Array.append fs f in
  let lboth = Array.append l [| [0]; [1] |] in
  let cat = Array.concat [a; s; [||]; a] in
  if n > 2 then begin
    Array.blit a 0 a 1 (n - 1);
    Array.blit a 2 a 0 (n - 2);
    Array.blit f 0 fboth 1 (n - 2);
    Array.blit lboth 0 l 0 n;
    Array.fill a 1 (n - 2) (-5);
    Array.fill f 0 (n / 2) 0.25;
    Array.fill l 1 1 [n]
  end;
  (a, f, l, s, fs, both, fboth, lboth, cat, Array.append [||] s, Array.copy [||])
";

#[test]
fn the_five_functions_agree_with_native_code() {
    common::assert_agrees_with_native("array_copies.ml", ALL_FIVE, &[0, 1, 2, 7, 300, 700]);
}

#[test]
fn predicted_words_are_the_words_the_native_run_allocates() {
    for size in [0, 5, 100, 300] {
        let r = result(ALL_FIVE, size as i64);
        let predicted = (
            r.allocation.words - r.allocation.direct_major_words,
            r.allocation.direct_major_words,
        );
        let native = native_words(ALL_FIVE, size);
        assert_eq!(predicted, native, "size {size}");
    }
}

/// `Array.stable_sort` (its `merge` ends with a `blit`) and `Array.make_matrix` count now that
/// the copies do.
const SORT_AND_MATRIX: &str = "
let input n = Array.init n (fun i -> (i * 7919) land 1023)

let run a =
  let b = Array.copy a in
  Array.stable_sort compare b;
  let m = Array.make_matrix 3 (Array.length a) 0 in
  Array.blit b 0 m.(1) 0 (Array.length b);
  (b, m, Array.concat [b; a])
";

#[test]
fn functions_written_with_the_copies_agree_with_native_code() {
    common::assert_agrees_with_native("sort_matrix.ml", SORT_AND_MATRIX, &[0, 5, 100, 400]);
    for size in [5, 100, 400] {
        let r = result(SORT_AND_MATRIX, size as i64);
        let predicted = (
            r.allocation.words - r.allocation.direct_major_words,
            r.allocation.direct_major_words,
        );
        assert_eq!(
            predicted,
            native_words(SORT_AND_MATRIX, size),
            "size {size}"
        );
    }
}
