//! `string_of_int`, read from stdlib.ml: a call of `string_of_int` (not inlined at `-inline 0`:
//! its `format_int "%d"` is a C call, beyond the Stdlib's inlining threshold), the runtime's
//! `caml_format_int` (`FormatInt`), one `FormatIntChar` a character printed, and the string
//! allocated as the runtime allocates it.

mod common;

use common::count;
use semantics::Program;

#[test]
fn string_of_int_counts_the_call_the_c_call_and_its_characters() {
    let input = "let input n = n\n";
    // By hand: `run` calls `string_of_int` (FunApp, with a frame to keep `run`'s return), which
    // calls `caml_format_int` once; 12345 is five characters, -12345 six.
    for (n, chars) in [(12345, 5), (-12345, 6), (0, 1)] {
        let source = format!("{input}let run n = String.length (string_of_int n)");
        let counts = count(&source, n);
        assert_eq!(counts.get("FormatInt"), Some(&1), "{n}: {counts:?}");
        assert_eq!(counts.get("FormatIntChar"), Some(&chars), "{n}: {counts:?}");
        assert_eq!(counts.get("FunApp"), Some(&1), "{n}: {counts:?}");
        assert_eq!(counts.get("StringLength"), Some(&1), "{n}: {counts:?}");
    }
    // The string: 1 + (len + 8) / 8 words — 2 up to 7 characters, 3 from 8 to 15, 4 beyond.
    let words = |n: i64| {
        Program::from_source("t.ml", &format!("{input}let run n = string_of_int n"))
            .unwrap()
            .count(n)
            .unwrap()
            .allocation
            .words
    };
    assert_eq!(words(1_234_567), 2);
    assert_eq!(words(12_345_678), 3);
    assert_eq!(words(-123_456_789_012_345), 4);
}

const CONVERSIONS: &str = "
let rec digits n acc = if n = 0 then acc else digits (n / 7) (acc + String.length (string_of_int (n * 1000003 - 99)))
let input n = n
let run n =
  let s = string_of_int n ^ \",\" ^ string_of_int (-n) ^ \",\" ^ string_of_int max_int ^ string_of_int min_int in
  (digits (n + 1) 0, s)
";

#[test]
fn string_of_int_agrees_with_native_code_on_results_and_words() {
    common::assert_agrees_with_native("conversions.ml", CONVERSIONS, &[0, 1, 9, 1000, 123_456]);
    for size in [0, 9, 5000] {
        assert_eq!(
            Program::from_source("t.ml", CONVERSIONS)
                .unwrap()
                .count(size as i64)
                .unwrap()
                .allocation
                .words,
            common::native_words(CONVERSIONS, size).0,
            "words at size {size}"
        );
    }
}

#[test]
fn the_other_conversions_are_refused_by_name() {
    for (call, name) in [
        ("int_of_string \"12\"", "int_of_string"),
        ("string_of_float 1.5", "string_of_float"),
    ] {
        let source = format!("let input n = n\nlet run n = ignore ({call}); n");
        let error = common::refusal(&source);
        assert!(
            error.contains("bad.ml:2:") && error.contains(name),
            "{call}: {error}"
        );
    }
}
