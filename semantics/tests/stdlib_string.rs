//! `String.…`, `Bytes.…`, `Char.…`, `Int.…` and `Float.…` functions counted through the
//! installed compiler's own `string.ml`, `bytes.ml`, `char.ml`, `int.ml` and `float.ml`
//! (`module B = Bytes`, aliases and externals followed as Closure does; see
//! `semantics/src/stdlib_link.rs`), with hand-computed counts and the native digests.

mod common;

use semantics::Program;
use std::collections::BTreeMap;

fn result(source: &str, size: i64) -> semantics::CountResult {
    Program::from_source("t.ml", source)
        .unwrap_or_else(|e| panic!("{e}"))
        .count(size)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn counts(r: &semantics::CountResult) -> BTreeMap<String, u64> {
    r.counts.clone().into_iter().collect()
}

/// A string of `n` bytes: a header and `(n + 8) / 8` words (the padding byte included).
fn string_words(n: u64) -> u64 {
    1 + (n + 8) / 8
}

#[test]
fn string_init_is_bytes_init_called_never_jumped_to() {
    // string.ml: `let init n f = B.init n f |> bts`, inlined into `run`; bytes.ml's `init`:
    // `let s = create n in for i = 0 to n - 1 do unsafe_set s i (f i) done; s`. So one
    // `caml_create_bytes`, n iterations each calling the closure (unknown: `IndirectCall`)
    // and storing a byte (`BytesUnsafeSet`), the loop's entry test and `n - 1`; the call of
    // `Bytes.init` is a call, not a jump (native: `call camlStdlib__Bytes__init; ret`), so
    // `run` has a frame as `Bytes.init` does: 2 frames, n + 1 calls. One string of n bytes.
    let n = 10;
    let r = result(
        "let input n = n\nlet run n = String.init n (fun i -> 'a')",
        n as i64,
    );
    let c = counts(&r);
    assert_eq!(c["BytesCreate"], 1, "{c:?}");
    assert_eq!(c["ForIter"], n, "{c:?}");
    assert_eq!(c["IndirectCall"], n, "{c:?}");
    assert_eq!(c["BytesUnsafeSet"], n, "{c:?}");
    assert_eq!(c.get("FieldSet"), None, "{c:?}");
    assert_eq!(c["IntCondGT"], 1, "{c:?}");
    assert_eq!(c["IntSub"], 1, "{c:?}");
    assert_eq!(c["FunApp"], n + 1, "{c:?}");
    assert_eq!(c["Frame"], 2, "{c:?}");
    assert_eq!(c.get("TailApp"), None, "{c:?}");
    assert_eq!(r.allocation.words, string_words(n));
    // `Bytes.init` itself in tail position is a jump (`jmp camlStdlib__Bytes__init`): one
    // frame fewer, the same loop.
    let r = result(
        "let input n = n\nlet run n = Bytes.init n (fun i -> 'a')",
        n as i64,
    );
    let direct = counts(&r);
    assert_eq!(direct["TailApp"], 1, "{direct:?}");
    assert_eq!(direct["FunApp"], n, "{direct:?}");
    assert_eq!(direct["Frame"], 1, "{direct:?}");
    assert_eq!(direct["BytesUnsafeSet"], n, "{direct:?}");
    assert_eq!(r.allocation.words, string_words(n));
}

#[test]
fn string_concat_blits_each_piece_and_separator_once_into_one_string() {
    // k pieces of 2 bytes joined by ",": `sum_lengths`, one `B.create` of 3k − 1 bytes, then
    // `unsafe_blits`: a `caml_blit_string` per piece and one per separator, 2k − 1 C copies
    // (`BytesCopy`), each of at most 8 bytes here, one word each (`BytesCopyWord`).
    let k: u64 = 12;
    let source = "
let input n = let rec pieces i = if i = n then [] else \"ab\" :: pieces (i + 1) in pieces 0
let run l = String.concat \",\" l";
    let r = result(source, k as i64);
    let c = counts(&r);
    assert_eq!(c["BytesCreate"], 1, "{c:?}");
    assert_eq!(c["BytesCopy"], 2 * k - 1, "{c:?}");
    assert_eq!(c["BytesCopyWord"], 2 * k - 1, "{c:?}");
    assert_eq!(r.allocation.words, string_words(3 * k - 1));
    // No pieces: `concat sep [] = ""`, a constant: nothing is created.
    let r = result(source, 0);
    assert_eq!(counts(&r).get("BytesCreate"), None);
    assert_eq!(r.allocation.words, 0);
}

#[test]
fn string_iter_calls_the_closure_per_byte_and_allocates_nothing() {
    // `for i = 0 to length s - 1 do f (unsafe_get s i) done`: a length, n closure calls.
    let n = 25;
    let r = result(
        "let input n = String.make n 'x'\nlet run s = let k = ref 0 in String.iter (fun c -> if c = 'x' then incr k) s; !k",
        n as i64,
    );
    let c = counts(&r);
    assert_eq!(c["ForIter"], n, "{c:?}");
    assert_eq!(c["IndirectCall"], n, "{c:?}");
    assert_eq!(c["StringLength"], 1, "{c:?}");
    assert_eq!(c.get("BytesCreate"), None, "{c:?}");
}

#[test]
fn char_lowercase_ascii_tests_its_range_once() {
    // `String.map Char.lowercase_ascii s` is `Bytes.map` (called: its result goes through
    // `bts`) calling char.ml's `function 'A' .. 'Z' as c -> unsafe_chr (code c + 32) | c -> c`
    // through a closure per byte: one test of the range a byte, one add for the n/2 capitals.
    let n: u64 = 10;
    let source = "
let input n = String.init n (fun i -> if i mod 2 = 0 then 'A' else 'b')
let run s = String.map Char.lowercase_ascii s";
    let r = result(source, n as i64);
    let c = counts(&r);
    assert_eq!(c["PatternMatch"], n, "{c:?}");
    assert_eq!(c["IntAdd"], n / 2, "{c:?}");
    assert_eq!(c["IndirectCall"], n, "{c:?}");
    assert_eq!(c["BytesCreate"], 1, "{c:?}");
    assert_eq!(r.allocation.words, string_words(n));
}

#[test]
fn string_bytes_char_int_float_functions_agree_with_native_code() {
    let source = "
let input n = String.init n (fun i -> if i mod 5 = 4 then ' ' else Char.chr (97 + i mod 26))

let run s =
  let words = String.split_on_char ' ' s in
  let total = ref 0 in
  String.iter (fun c -> if c = 'a' then incr total) s;
  String.iteri (fun i c -> if c = 'e' then total := !total + i) s;
  let b = Bytes.of_string s in
  Bytes.blit_string \"XY\" 0 b 0 (Int.min 2 (Bytes.length b));
  ( List.length words,
    !total,
    String.concat \",\" words,
    String.map Char.uppercase_ascii s,
    String.mapi (fun i c -> if i mod 3 = 0 then Char.uppercase_ascii c else c) s,
    (String.contains s 'z', String.index_opt s 'q', String.rindex_opt s 'a'),
    (String.equal s (String.lowercase_ascii s), String.equal s \"\", Bytes.equal (Bytes.of_string s) (Bytes.make 2 'a')),
    (try String.index s 'e' with Not_found -> -1),
    String.trim (\"  \" ^ s ^ \" \"),
    String.fold_left (fun acc c -> acc + Char.code c) 0 s,
    (String.exists (fun c -> c = 'k') s, String.for_all (fun c -> c <> '!') s),
    Bytes.to_string b,
    Bytes.to_string (Bytes.init 4 (fun i -> Char.lowercase_ascii (Char.chr (65 + i)))),
    (Int.max 3 (String.length s), Int.abs (-(String.length s)), Int.to_float 7),
    (Float.sqrt (Float.of_int (String.length s)), Float.of_int (String.length s) +. 0.5),
    String.escaped (String.sub s 0 (Int.min 4 (String.length s)) ^ \"\\n\") )";
    common::assert_agrees_with_native("calls_string.ml", source, &[0, 1, 7, 100, 3000]);
}

#[test]
fn string_equal_is_equality_at_type_string() {
    // string.ml's `external equal … = "caml_string_equal"` is the C call ocamlopt makes for
    // `=` on two strings: the same counts as `s = t` (one PolyCompare, a walk of one pair of
    // blocks), whatever the length; bytes likewise.
    let input = "let input n = (String.make n 'a', String.make n 'a' ^ \"\")\n";
    let with_equal = result(&format!("{input}let run (s, t) = String.equal s t"), 1000);
    let with_op = result(&format!("{input}let run (s, t) = s = t"), 1000);
    assert_eq!(counts(&with_equal), counts(&with_op));
    assert_eq!(counts(&with_equal)["PolyCompare"], 1);
    assert_eq!(counts(&with_equal)["PolyCompareStep"], 1);
    let bytes = result(
        &format!("{input}let run (s, t) = Bytes.equal (Bytes.unsafe_of_string s) (Bytes.unsafe_of_string t)"),
        1000,
    );
    assert_eq!(counts(&bytes)["PolyCompare"], 1);
}

#[test]
fn a_function_without_a_primitive_fails_only_the_program_that_calls_it() {
    // `Float.hash` needs float.ml's `seeded_hash_param` (`caml_hash`, no primitive here).
    let Err(e) = Program::from_source("t.ml", "let input n = n\nlet run n = Float.hash 1.5") else {
        panic!("Float.hash is refused");
    };
    assert!(e.to_string().contains("Float.seeded_hash_param"), "{e}");
    assert!(e.to_string().contains("float.ml:"), "{e}");
    // The same module's other functions still count.
    let r = result(
        "let input n = n\nlet run n = Float.sqrt (Float.of_int n)",
        16,
    );
    assert_eq!(counts(&r)["FloatSqrt"], 1);
}
