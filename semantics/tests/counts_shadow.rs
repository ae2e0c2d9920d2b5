//! Instructions a loop's calls shadow (`CallShadow`): per iteration, the iteration's
//! instructions other than control transfers (FunApp, TailApp, SelfTailApp, PatternMatch), up
//! to 18 per call. Hand-computed from the instruction table of `semantics/src/issue.rs`
//! (IntAdd, SelfTailApp, Spill 1; IntCondGT, IntLand, IntMultConst, FunApp, BoolTest 2;
//! IntMult, IntLxor, LoopPoll, CondValue 3; PatternMatch 4; ForIter 5).

mod common;

fn shadowed(source: &str, size: i64) -> u64 {
    common::count_of(source, size, "CallShadow")
}

#[test]
fn a_walk_that_calls_its_predicate_hides_its_other_instructions_behind_the_call() {
    // Per element, beside the call, the match and the jump back: LoopPoll 3, the test of the
    // predicate's answer (BoolTest 2; the `&&` is returned, so it builds no flag), the
    // predicate's IntCondGT 2 and the flag it returns (CondValue 3), Spill 1 × 4 (`l` and
    // `p`, each stored and loaded back: `t` is a field of `l` read after the call, as `ocamlopt -S` shows) = 14, all of
    // which the call hides. Every element ends an iteration with the self call, the first one
    // measured from the walk's entry.
    let source = "
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let rec all p l = match l with [] -> true | x :: t -> p x && all p t
let input n = range n []
let run l = all (fun x -> x > 0) l";
    assert_eq!(shadowed(source, 10), 10 * 14);
    assert_eq!(shadowed(source, 1000), 1000 * 14);
}

#[test]
fn a_call_hides_at_most_eighteen_instructions() {
    // LoopPoll 3, IntAdd 3, IntLxor 3, IntMult 3 × 3, IntMultConst 2 × 2, Spill 1 × 10 = 32
    // beside one call: 18 of them hide.
    let source = "
let[@inline never] sq x = x * x
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let rec sum l acc =
  match l with [] -> acc | x :: t -> sum t (acc + sq x * 3 + x * x * 5 + (x lxor 7) * x)
let input n = range n []
let run l = sum l 0";
    assert_eq!(shadowed(source, 10), 10 * 18);
}

#[test]
fn a_for_loop_that_calls_hides_its_body() {
    // ForIter 5, and `next`'s IntMultConst 2, IntAdd 1, IntLand 2 = 10 per iteration, and the
    // poll at the back edge (BackEdgePoll 2) on every iteration but the last.
    let source = "
let[@inline never] next s = (s * 1103515245 + 12345) land 1073741823
let input n = n
let run n =
  let s = ref 1 in
  for _ = 1 to n do s := next !s done;
  !s";
    assert_eq!(shadowed(source, 10), 10 * 10 + 9 * 2);
}

#[test]
fn a_loop_without_calls_hides_nothing() {
    let source = "
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let rec len l acc = match l with [] -> acc | _ :: t -> len t (acc + 1)
let input n = range n []
let run l = len l 0";
    assert_eq!(shadowed(source, 1000), 0);
}

#[test]
fn an_outer_loop_does_not_count_again_what_its_inner_loop_hid() {
    // The walk above, four times from a `for` loop. Each element's iteration hides its 14;
    // each `for` iteration weighs only what the walk's iterations left: its own ForIter 5,
    // `incr` 1, the two values spilled around its call (Spill 1 × 4), the walk's Frame 2, the poll
    // of the walk's last, unfinished, iteration 3 and the `if`'s test of the walk's answer
    // (BoolTest) 2 = 17, under its one call's 18; with the `for`'s own poll (BackEdgePoll 2,
    // on three of the four iterations) 19, capped at 18. More elements add nothing to the outer
    // iterations.
    let source = "
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let rec all p l = match l with [] -> true | x :: t -> p x && all p t
let input n = range n []
let run l =
  let r = ref 0 in
  for _ = 1 to 4 do if all (fun x -> x > 0) l then incr r done;
  !r";
    assert_eq!(shadowed(source, 10), 4 * 10 * 14 + 3 * 18 + 17);
    assert_eq!(shadowed(source, 20) - shadowed(source, 10), 4 * 10 * 14);
}

#[test]
fn a_call_through_caml_apply_hides_no_more_than_a_direct_one() {
    // `f` is a parameter: each element calls `caml_apply2`, which jumps to the closure's code
    // (one call, one return). Beside it, far more than 36 instructions of arithmetic: 18 hide,
    // not twice that.
    let source = "
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let rec fold f acc l = match l with [] -> acc | x :: t -> fold f (f acc x) t
let input n = range n []
let run l = fold (fun acc x -> acc + x * x * 5 + (x lxor 7) * x + (x lxor 3) * acc + (acc lxor x) * x) 0 l";
    assert_eq!(common::count_of(source, 100, "ApplyN"), 100);
    assert_eq!(shadowed(source, 100), 100 * 18);
}
