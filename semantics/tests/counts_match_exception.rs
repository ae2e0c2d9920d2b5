//! `match e with … | exception …`: the scrutinee runs under a trap (one `TryWith`), the
//! value's cases after it is popped — so an exception they raise is not caught by the
//! `exception` cases, and a call in them is a tail call.

mod common;

use common::{assembly, assert_agrees_with_native, count, count_of};

#[test]
fn a_match_with_exception_counts_as_the_try_it_replaces() {
    // The value's case returns the value itself: the two forms run the same code.
    let with_match = "
let f x = if x > 10 then raise Exit else x
let rec loop i acc =
  if i = 0 then acc else loop (i - 1) (acc + (match f i with v -> v | exception Exit -> 1))
let input n = n
let run n = loop n 0";
    let with_try = with_match.replace(
        "match f i with v -> v | exception Exit -> 1",
        "try f i with Exit -> 1",
    );
    let n = 25;
    let counts = count(with_match, n);
    assert_eq!(counts, count(&with_try, n));
    // One trap per iteration, one raise per value above 10.
    assert_eq!(counts.get("TryWith"), Some(&(n as u64)));
    assert_eq!(counts.get("Raise"), Some(&(n as u64 - 10)));
}

const LOOP: &str = "
let[@inline never] next n = if n < 0 then raise Exit else n
let rec loop n = match next n with 0 -> 0 | m -> loop (m - 1) | exception Exit -> -1
let input n = n
let run n = loop n";

#[test]
fn a_call_in_a_value_case_is_a_tail_call() {
    let n = 30;
    // `loop` calls itself n times, each from a value case: jumps, not calls.
    assert_eq!(count_of(LOOP, n, "SelfTailApp"), n as u64);
    assert_eq!(count_of(LOOP, n, "TryWith"), n as u64 + 1);
    // `next` n + 1 times (a call under the trap), `loop` once from `run` (a tail call).
    assert_eq!(count_of(LOOP, n, "FunApp"), n as u64 + 1);
    // Inside a `try`, the same self call is a call.
    let in_try = LOOP.replace(
        "match next n with 0 -> 0 | m -> loop (m - 1) | exception Exit -> -1",
        "try (match next n with 0 -> 0 | m -> loop (m - 1)) with Exit -> -1",
    );
    assert_eq!(count_of(&in_try, n, "SelfTailApp"), 0);
    assert_eq!(count_of(&in_try, n, "FunApp"), 2 * n as u64 + 1);
}

#[test]
fn ocamlopt_jumps_back_from_a_value_case_and_calls_from_a_try() {
    let call_lines = |asm: &str| {
        asm.lines()
            .filter(|l| l.trim_start().starts_with("call") && l.contains("loop"))
            .count()
    };
    assert_eq!(call_lines(&assembly("in_match", LOOP)), 0, "a tail call");
    let in_try = LOOP.replace(
        "match next n with 0 -> 0 | m -> loop (m - 1) | exception Exit -> -1",
        "try (match next n with 0 -> 0 | m -> loop (m - 1)) with Exit -> -1",
    );
    assert_eq!(call_lines(&assembly("in_try", &in_try)), 1, "a call");
}

#[test]
fn what_a_value_case_raises_passes_the_exception_cases_by() {
    let source = "
exception Odd of int
let[@inline never] half n = if n land 1 = 1 then raise (Odd n) else n / 2
let classify n =
  try
    (match half n with
     | 0 -> raise Exit
     | h when h > 100 -> h
     | h -> -h
     | exception Odd k when k > 50 -> k * 10
     | exception Odd k -> k)
  with Exit -> 7
let rec nested n =
  match (match half n with h -> h | exception Odd _ -> raise Not_found) with
  | h -> h + 1
  | exception Not_found -> 0
let rec sum i acc = if i < 0 then acc else sum (i - 1) (acc + classify i + nested i)
let input n = n
let run n = (sum n 0, classify 0, classify 1, classify 101, classify 400)";
    assert_agrees_with_native("match_exception.ml", source, &[0, 1, 7, 100, 1000]);
    // At 0 the value's case raises `Exit`, which the outer `try` catches: two traps.
    let at_zero = "
let[@inline never] half n = if n land 1 = 1 then raise Not_found else n / 2
let input n = n
let run n = try (match half n with 0 -> raise Exit | h -> h | exception Exit -> -1) with Exit -> 7";
    assert_eq!(count_of(at_zero, 0, "TryWith"), 2);
    assert_eq!(count_of(at_zero, 0, "Raise"), 1);
    assert_agrees_with_native("at_zero.ml", at_zero, &[0, 2, 4]);
}
