//! A local function named once, in a full application, is its body at the call (ocamlopt's
//! Simplif turns it into a static handler): no closure, no call, and what it captured stays a
//! variable; used twice, it is a closure and calls, as before.

mod common;

use common::{count, count_of};
use semantics::Program;

fn words(source: &str, size: i64) -> u64 {
    Program::from_source("t.ml", source)
        .unwrap()
        .count(size)
        .unwrap()
        .allocation
        .words
}

const ONCE_IN_A_LOOP: &str = "
let input n = n
let run n =
  let t = ref 0.0 in
  let add i = t := !t +. float_of_int i in
  for i = 1 to n do add i done;
  !t";

const TWICE: &str = "
let input n = n
let run n =
  let t = ref 0.0 in
  let add i = t := !t +. float_of_int i in
  for i = 1 to n do add i; add (i + 1) done;
  !t";

#[test]
fn a_function_called_once_is_no_closure_no_call_and_its_reference_a_variable() {
    // By hand, per iteration: the call's argument bound (LetData), the float added (FloatOfInt,
    // FloatAdd) into `t`, now a mutable variable; nothing allocated but the result's box.
    let counts = count(ONCE_IN_A_LOOP, 30);
    assert_eq!(counts.get("FunApp"), None, "{counts:?}");
    assert_eq!(counts.get("FunDef"), None, "{counts:?}");
    assert_eq!(counts.get("CamlModify"), None, "{counts:?}");
    assert_eq!(counts.get("FloatAdd"), Some(&30), "{counts:?}");
    assert_eq!(counts.get("LetData"), Some(&(30 + 1)), "{counts:?}");
    assert_eq!(words(ONCE_IN_A_LOOP, 30), 2);
    assert_eq!(
        words(ONCE_IN_A_LOOP, 30),
        common::native_words(ONCE_IN_A_LOOP, 30).0
    );
    // The native code has no call but the collector's.
    let assembly = common::assembly("once", ONCE_IN_A_LOOP);
    let calls: Vec<&str> = assembly
        .lines()
        .filter(|l| l.trim_start().starts_with("call"))
        .collect();
    assert!(
        calls.iter().all(|c| c.contains("caml_call_gc")),
        "{calls:?}"
    );
}

#[test]
fn a_function_called_twice_stays_a_closure_that_captures_the_reference() {
    // Two calls an iteration; the reference stays a block, so each store boxes its float and
    // goes through the barrier: into a block `run` built 120 words of boxes before at most,
    // young but for 60 × 120 / 2 / H of a call.
    assert_eq!(count_of(TWICE, 30, "FunApp"), 60);
    assert_eq!(count_of(TWICE, 30, "CamlModifyYoung"), 60);
    assert_eq!(count_of(TWICE, 30, "CamlModify"), 0);
    assert_eq!(words(TWICE, 30), common::native_words(TWICE, 30).0);
}

#[test]
fn the_body_moved_to_the_call_takes_the_calls_tail_position() {
    // In tail position, `step`'s call of `loop` becomes `loop`'s own tail call: a jump back.
    let tail = "
let rec loop i acc = if i = 0 then acc else let step x = loop (i - 1) (acc + x) in step i
let input n = n
let run n = loop n 0";
    assert_eq!(count_of(tail, 50, "SelfTailApp"), 50);
    assert_eq!(count_of(tail, 50, "FunApp"), 0);
    // Not in tail position, the body's tail call of `h` is a call.
    let non_tail = "
let[@inline never] h x = x * 3
let input n = n
let run n = let g x = h (x + 1) in 1 + g n";
    assert_eq!(count_of(non_tail, 5, "FunApp"), 1);
    assert_eq!(count_of(non_tail, 5, "TailApp"), 0);
    common::assert_agrees_with_native("tail.ml", tail, &[0, 7, 50]);
    common::assert_agrees_with_native("non_tail.ml", non_tail, &[0, 5]);
}

#[test]
fn a_rebound_name_keeps_the_call_and_a_tupled_function_called_once_is_its_body() {
    // `x` in `f`'s body is the outer one: moved under the inner `x`, it would read 2.
    let shadowed = "
let input n = n
let run n = let x = n in let f y = x + y in let x = 2 in f x";
    // The call stays (in tail position: a jump), and the closure with it.
    assert_eq!(count_of(shadowed, 10, "TailApp"), 1);
    assert_eq!(count_of(shadowed, 10, "FunDef"), 1);
    common::assert_agrees_with_native("shadowed.ml", shadowed, &[1, 10]);
    // A function of one tuple called once with the tuple written out is its body too: no
    // closure, no tuple, nothing allocated natively.
    let tupled = "
let input n = n
let run n = let f (a, b) = a * b + n in f (n, n + 1)";
    assert_eq!(count_of(tupled, 10, "FunDef"), 0);
    assert_eq!(words(tupled, 10), 0);
    assert_eq!(common::native_words(tupled, 10).0, 0);
    common::assert_agrees_with_native("tupled.ml", tupled, &[3]);
}

#[test]
fn a_call_under_a_closure_moves_the_body_into_it() {
    // The one call is inside the closure given to `List.map`: the body moves there, and the
    // closure captures what the body uses (`k`) instead of `scale`.
    let source = "
let input n = List.init n (fun i -> i)
let run l = let k = List.length l in let scale x = x * k + 1 in List.map (fun x -> scale x) l";
    common::assert_agrees_with_native("under_closure.ml", source, &[0, 5, 200]);
    assert_eq!(words(source, 200), common::native_words(source, 200).0);
}
