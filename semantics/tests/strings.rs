//! Strings, bytes and chars: the inline primitives (`s.[i]`, `String.length`, `Bytes.set`),
//! the C calls behind the Stdlib's string functions (`caml_create_bytes`, `caml_blit_*`,
//! `caml_fill_bytes`) and their per-word part, the exact words a string allocates, and the
//! digest of strings against native binaries.

mod common;

use common::{count, count_of, expect};

#[test]
fn reading_bytes_counts_the_checked_load_and_the_length() {
    // A loop over the 5 bytes of the input: 5 s.[i], 1 String.length (the bound), the for
    // loop's entry test and 5 iterations, 5 char compares, and 3 `incr` of a local counter.
    let source = "
let input n = \"a1b22\"
let run s =
  let n = ref 0 in
  for i = 0 to String.length s - 1 do
    if s.[i] <= '9' then incr n
  done;
  !n";
    assert_eq!(
        count(source, 0),
        expect(&[
            ("Base", 1),
            ("LetData", 1),
            ("StringLength", 1),
            ("IntSub", 1),
            ("IntCondGT", 1),
            ("ForIter", 5),
            ("BackEdgePoll", 4), // the back edge's poll, after every iteration but the last
            ("StringGet", 5),
            ("IntCondLE", 5),
            ("IntAdd", 3),
        ])
    );
}

#[test]
fn unsafe_accesses_are_their_own_constructs_and_char_code_is_free() {
    let source = "
let input n = Bytes.of_string \"xyz\"
let run b =
  Bytes.unsafe_set b 0 (Bytes.unsafe_get b 2);
  Bytes.set b 1 'q';
  Char.code (Bytes.get b 0) + Char.code (String.unsafe_get \"k\" 0)";
    assert_eq!(
        count(source, 0),
        expect(&[
            ("Base", 1),
            ("StringUnsafeGet", 2),
            ("BytesUnsafeSet", 1),
            ("StringSet", 1),
            ("StringGet", 1),
            ("IntAdd", 1),
        ])
    );
}

#[test]
fn a_string_reversed_with_unsafe_accesses_counts_one_of_each_per_byte() {
    // `str_reverse`'s loop over 6 bytes: per byte one StringUnsafeGet, one BytesUnsafeSet and
    // two IntSub (`n - 1 - i`), the `for` loop's iteration and, but after the last, its poll;
    // outside it the length, the bound `n - 1` (IntSub), the entry test, the `let n` and the
    // `let b`, the buffer's creation, and `Bytes.unsafe_to_string`, which is no code.
    let source = "
let input n = \"abcdef\"
let run s =
  let n = String.length s in
  let b = Bytes.create n in
  for i = 0 to n - 1 do
    Bytes.unsafe_set b (n - 1 - i) (String.unsafe_get s i)
  done;
  Bytes.unsafe_to_string b";
    assert_eq!(
        count(source, 0),
        expect(&[
            ("Base", 1),
            ("LetData", 2),
            ("StringLength", 1),
            ("BytesCreate", 1),
            ("IntSub", 1 + 2 * 6),
            ("IntCondGT", 1),
            ("ForIter", 6),
            ("BackEdgePoll", 5),
            ("StringUnsafeGet", 6),
            ("BytesUnsafeSet", 6),
        ])
    );
}

#[test]
fn concatenation_is_the_stdlib_function_with_two_blits() {
    // stdlib.ml's `^`: two String.length, one create, two blits of 3 and 9 bytes (1 and 2
    // words), the bindings l1, l2 (`let … and …`) and s; a call from `run`'s tail: a jump.
    let source = "
let input n = \"abc\"
let run s = s ^ \"defghijkl\"";
    assert_eq!(
        count(source, 0),
        expect(&[
            ("Base", 1),
            ("TailApp", 1),
            ("StringLength", 2),
            ("LetData", 3),
            ("IntAdd", 1),
            ("BytesCreate", 1),
            ("BytesCopy", 2),
            ("BytesCopyWord", 3),
        ])
    );
}

#[test]
fn string_make_is_a_call_of_bytes_make_even_in_tail_position() {
    // ocamlopt inlines String.make (`B.make n c |> bts`) and *calls* Bytes.make: a FunApp,
    // never a jump. Bytes.make: create, then one fill of n bytes: ⌈17/8⌉ = 3 words.
    let source = "
let input n = n
let run n = String.make n 'c'";
    assert_eq!(
        count(source, 17),
        expect(&[
            ("Base", 1),
            ("FunApp", 1),
            ("LetData", 1),
            ("BytesCreate", 1),
            ("BytesCopy", 1),
            ("BytesCopyWord", 3),
        ])
    );
    assert_eq!(count_of(source, 0, "BytesCopyWord"), 0);
}

#[test]
fn char_chr_checks_its_range_and_raises() {
    let source = "
let input n = n
let run n = try Char.code (Char.chr n) with Invalid_argument _ -> -1";
    // n < 0 || n > 255 (both tested for 65; the `||` of a condition is their jumps), then
    // unsafe_chr: no code.
    let ok = count(source, 65);
    assert_eq!(ok["FunApp"], 1);
    assert!(!ok.contains_key("BoolOr"));
    assert_eq!(ok["IntCondLT"], 1);
    assert_eq!(ok["IntCondGT"], 1);
    assert_eq!(ok.get("Raise"), None);
    let raised = count(source, 300);
    assert_eq!(raised["Raise"], 1);
}

#[test]
fn an_index_out_of_bounds_raises_invalid_argument() {
    let source = "
let input n = n
let run n = try Char.code \"abc\".[n] with Invalid_argument m -> String.length m";
    assert_eq!(count_of(source, 3, "StringLength"), 1);
    assert_eq!(count_of(source, 3, "StringGet"), 1);
    assert_eq!(count_of(source, -1, "StringLength"), 1);
    assert_eq!(count_of(source, 2, "StringLength"), 0);
}

#[test]
fn a_string_of_n_bytes_is_one_plus_n_plus_8_over_8_words_and_major_beyond_256() {
    let program = |n: i64| {
        semantics::Program::from_source("t.ml", "let input n = n\nlet run n = Bytes.create n")
            .unwrap()
            .count(n)
            .unwrap()
    };
    // 0 bytes: a header and one word (the padding byte); 7 bytes: still 2; 8 bytes: 3.
    for (n, words) in [(0, 2), (7, 2), (8, 3), (2039, 256)] {
        let r = program(n);
        assert_eq!(r.allocation.words, words, "{n} bytes");
        assert_eq!(r.allocation.direct_major_words, 0, "{n} bytes");
    }
    // 2040 bytes: 256 words of body, Max_young_wosize, still minor; 2048: 257, major.
    assert_eq!(program(2040).allocation.words, 257);
    let big = program(2048);
    assert_eq!(big.allocation.direct_major_words, 258);
    assert_eq!(big.counts["MajorWord"], 258);
}

#[test]
fn string_values_digest_as_the_native_binary_does() {
    let source = "
let input n = n
let run n =
  let b = Bytes.make n 'a' in
  for i = 0 to n - 1 do Bytes.set b i (Char.chr (i * 37 mod 256)) done;
  let s = Bytes.to_string b in
  (s, String.sub s 0 (n / 2) ^ \"|\", String.length s, Bytes.create 0, [ 'a'; s.[n / 3] ])";
    common::assert_agrees_with_native("strings_digest.ml", source, &[1, 7, 8, 9, 100, 3000]);
}

#[test]
fn other_string_functions_are_refused_by_name() {
    // `Float.frexp` is `external frexp : float -> float * int = "caml_frexp_float"`, a C call
    // the interpreter has no primitive for.
    let source = "let input n = n\nlet run n = Float.frexp 2.5";
    let e = semantics::Program::from_source("t.ml", source).unwrap_err();
    assert!(
        e.to_string().contains("unbound value Float.frexp (String, Bytes, Char, Int and Float functions are read from the installed compiler's sources"),
        "{e}"
    );
    // `to_seq` builds a `Seq.t`: the error is at its use of `Seq` in bytes.ml, where it is.
    let source = "let input n = n\nlet run n = String.to_seq \"abc\"";
    let e = semantics::Program::from_source("t.ml", source).unwrap_err();
    assert!(
        e.to_string().contains("bytes.ml") && e.to_string().contains("Seq"),
        "{e}"
    );
    let source = "let input n = n\nlet run n = Hashtbl.create n";
    let e = semantics::Program::from_source("t.ml", source).unwrap_err();
    assert!(e.to_string().contains("Hashtbl"), "{e}");
}
