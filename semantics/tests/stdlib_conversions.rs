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
  (digits (n + 1) 0, s, Int.to_string (n - 7) ^ string_of_bool (n mod 2 = 0) ^ string_of_bool (n < 0))
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
fn int_to_string_is_the_same_c_call_and_string_of_bool_a_plain_function() {
    // `Int.to_string` (int.ml: `let to_string x = format_int "%d" x`, its own external of
    // `caml_format_int`): a call of it, one FormatInt, one FormatIntChar per character.
    let counts = count(
        "let input n = n\nlet run n = String.length (Int.to_string n)",
        -420,
    );
    assert_eq!(counts.get("FormatInt"), Some(&1), "{counts:?}");
    assert_eq!(counts.get("FormatIntChar"), Some(&4), "{counts:?}");
    assert_eq!(counts.get("FunApp"), Some(&1), "{counts:?}");
    // `string_of_bool` (stdlib.ml: `if b then "true" else "false"`): small enough that
    // ocamlopt inlines it (`-S`: `cmpq $1` and a load of either literal, no call), so a test
    // of the boolean and no call, no C call, nothing allocated.
    let source = "let input n = n\nlet run n = string_of_bool (n > 3)";
    let counts = count(source, 5);
    assert_eq!(counts.get("FunApp"), None, "{counts:?}");
    assert_eq!(counts.get("BoolTest"), Some(&1), "{counts:?}");
    assert_eq!(counts.get("FormatInt"), None, "{counts:?}");
    let program = Program::from_source("t.ml", source).unwrap();
    assert_eq!(program.count(5).unwrap().allocation.words, 0);
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
