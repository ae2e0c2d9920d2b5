//! The dependence chain a loop carries (`ChainCycle`), counted where it binds: per iteration,
//! the chain's cycles beyond the iteration's instructions at 4 a cycle. Hand-computed from the
//! latency table of the catalogue's rule (add, and 1; sub 2; mul 4, one more through its right
//! operand, 3 by a constant; float add and mul 3; a load 5; a float boxed for the next
//! iteration 2 more) and the instruction table
//! of `semantics/src/issue.rs` (IntAdd, IntSub, SelfTailApp, FloatAdd 1; IntCondEq, IntCondLT,
//! IntLand, IntMultConst, FunApp, Frame, Spill, FloatMult 2; IntMult, LoopPoll 3; PatternMatch
//! 4; ForIter 5; FloatBox 7).
//!
//! An iteration ends where the loop's self call enters the function again, its arguments
//! evaluated; the first begins at the function's entry. A linear recursion's way back is
//! weighed level by level too: a level ends where the self call it made returns. Fractions of a cycle carry from one
//! iteration to the next, so the tests read the difference between sizes 4 iterations apart:
//! exactly 4 × the excess of one iteration in quarter-cycles, that is the excess in quarters,
//! whatever the rounding did.

mod common;

fn chain_cycles(source: &str, size: i64) -> u64 {
    common::count_of(source, size, "ChainCycle")
}

/// The chain one iteration carries beyond its issue, in quarters of a cycle.
fn beyond_issue_quarters(source: &str) -> u64 {
    chain_cycles(source, 14) - chain_cycles(source, 10)
}

#[test]
fn a_tail_recursive_loop_carries_its_longest_parameter_chain() {
    // `n - 1` carries 2 cycles, `acc * n` 4: 16 quarters. The iteration issues IntCondEq 2,
    // IntSub 1, IntMult 3, SelfTailApp 1, LoopPoll 3: 10.
    let source = "
let rec f n acc = if n = 0 then acc else f (n - 1) (acc * n)
let input n = n
let run n = f n 1";
    assert_eq!(beyond_issue_quarters(source), 16 - 10);
    // Over 1000 iterations the chain dominates the count, as it dominates the time.
    let total = chain_cycles(source, 1000);
    assert!((1497..=1500).contains(&total), "{total}");
    // `n * acc`: the accumulator is the right operand, untagged by a shift on its chain
    // (`(n - 1) * (acc asr 1) + 1`): 5 cycles, 20 quarters, against the same 10.
    let right = "
let rec f n acc = if n = 0 then acc else f (n - 1) (n * acc)
let input n = n
let run n = f n 1";
    assert_eq!(beyond_issue_quarters(right), 20 - 10);
}

#[test]
fn operations_that_do_not_depend_on_the_previous_iteration_carry_nothing() {
    // The same instructions, but `n * n` does not read `acc`: only `n - 1` (2 cycles, 8
    // quarters) is carried, less than the 10 instructions take to issue.
    let source = "
let rec f n acc = if n = 0 then acc else f (n - 1) (n * n)
let input n = n
let run n = f n 0";
    assert_eq!(chain_cycles(source, 1000), 0);
}

#[test]
fn a_non_tail_recursion_carries_what_it_does_with_its_result() {
    // `n * fact (n - 1)`: on the way back the multiply waits for the inner call's result, the
    // right operand, which is untagged on the chain: 4 + 1 cycles; a level of the way back
    // issues only the multiply, IntMult 3. (The way down
    // carries `n - 1`, 2 cycles, less than its IntSub 1, FunApp 2, Spill 2, Frame 2,
    // IntCondEq 2 take to issue.)
    let source = "
let rec fact n = if n = 0 then 1 else n * fact (n - 1)
let input n = n
let run n = fact n";
    assert_eq!(beyond_issue_quarters(source), 20 - 3);
    // A list built on the way back stores the result: nothing waits on it. (`map t` runs
    // before `inc x`, right to left, so the way down is the load of the next cell, 20
    // quarters, against PatternMatch 4, FunApp 2, Frame 2, Spill 2 — one value kept across
    // `map t`: `x` is read once, as a field of `l` where `inc x` runs, so `l` is kept and
    // not `x` too —: 10 beyond, on the 68 levels below the window of 32.)
    let map = "
let[@inline never] inc x = x + 1
let rec map l = match l with [] -> [] | x :: t -> inc x :: map t
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let input n = range n []
let run l = map l";
    assert_eq!(chain_cycles(map, 100), 68 * 10 / 4);
}

#[test]
fn a_deep_linear_recursion_waits_on_its_way_down_too() {
    // One self call site: all the levels run down, then all back. Down, `t` is a field of
    // `l`: a load, 5 cycles (20 quarters), against PatternMatch 4, FunApp 2, Frame 2: 12
    // quarters beyond. Back, `1 + …` waits on the result, 1 cycle, against IntAdd 1: 3.
    let source = "
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let rec len l = match l with [] -> 0 | _ :: t -> 1 + len t
let input n = range n []
let run l = len l";
    let four_levels = |size| chain_cycles(source, size + 4) - chain_cycles(source, size);
    // Below the window of 32 levels, the way down overlaps the code around it.
    assert_eq!(four_levels(10), 3);
    assert_eq!(four_levels(100), 12 + 3);
    // A tree recursion (two self call sites) overlaps one subtree's way down with the
    // other's: its way down carries nothing, however deep.
    let tree = "
type t = Leaf | Node of t * int * t
let rec spine n = if n = 0 then Leaf else Node (spine (n - 1), n, Leaf)
let rec sum t = match t with Leaf -> 0 | Node (l, x, r) -> sum l + x + sum r
let input n = spine n
let run t = sum t";
    assert_eq!(chain_cycles(tree, 104) - chain_cycles(tree, 100), 0);
}

#[test]
fn a_list_walk_carries_the_load_of_the_next_cell() {
    // `t` is a field of the cell `l`: a load, 5 cycles; `acc + 1` only 1. The iteration
    // issues PatternMatch 4, LoopPoll 3, IntAdd 1, SelfTailApp 1: 9.
    let source = "
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let rec len l acc = match l with [] -> acc | _ :: t -> len t (acc + 1)
let input n = range n []
let run l = len l 0";
    assert_eq!(beyond_issue_quarters(source), 20 - 9);
}

#[test]
fn a_horner_step_waits_on_the_boxed_accumulator() {
    // acc is a boxed float: load 5, `*. x` 3, `+. c` 3, boxed again for the call 2 = 13
    // cycles; the iteration issues FloatMult 2, FloatAdd 1, FloatBox 7, PatternMatch 4,
    // SelfTailApp 1: 15.
    let source = "
let rec coeffs n acc = if n = 0 then acc else coeffs (n - 1) (0.5 :: acc)
let input n = (0.9, coeffs n [])
let rec horner x cs acc = match cs with [] -> acc | c :: r -> horner x r (acc *. x +. c)
let run p = match p with (x, cs) -> horner x cs 0.0";
    assert_eq!(beyond_issue_quarters(source), 52 - 15);
}

#[test]
fn a_loop_carries_the_chain_through_the_variables_it_assigns() {
    // `s` is a reference ocamlopt keeps in a register: `(!s * 3 + i) land 1023` carries
    // mul by a constant 3, add 1, and 1 = 5 cycles; the iteration issues ForIter 5,
    // IntMultConst 2, IntAdd 1, IntLand 2, and the poll at the back edge (BackEdgePoll 2) on
    // every iteration but the last: 12. A `for` loop sees its first iteration too: 10
    // iterations carry 9 × 8 + 10 quarters.
    let source = "
let input n = n
let run n =
  let s = ref 1 in
  for i = 1 to n do s := (!s * 3 + i) land 1023 done;
  !s";
    assert_eq!(beyond_issue_quarters(source), 20 - 12);
    assert_eq!(chain_cycles(source, 10), (9 * 8 + 10) / 4);
    // A call of a known function adds its body's latency: `next` is mul 4, add 1 = 5. The
    // iteration issues WhileIter 1, IntCondLT 2, FunApp 2, Spill 3 × 2 (`n`, `m` and `i`
    // kept across the call: ocamlopt loads both fields of `p` once, before the loop), IntMult
    // 3, IntAdd 2 and the poll at its back edge (BackEdgePoll 2): 18 quarters, 2 short of
    // the chain's own 20.
    let called = "
let[@inline never] next s m = s * m + 1
let input n = (n, 7)
let run p =
  let (n, m) = p in
  let s = ref 1 in
  let i = ref 0 in
  while !i < n do s := next !s m; incr i done;
  !s";
    assert_eq!(beyond_issue_quarters(called), 20 - 18);
}

#[test]
fn a_loop_whose_iteration_is_long_hides_its_chain() {
    // The same list walk as above, but each element also goes through five additions, eight
    // multiplications and three by a constant: 9 + 5 + 8 × 3 + 3 × 2 = 44 instructions, 11
    // cycles to issue, so the 5-cycle load of the next cell waits on nothing.
    let source = "
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let rec len l acc = match l with
  | [] -> acc
  | x :: t -> len t (acc + x * x + x * 3 * x + x * x * 5 + x * 7 * x + x * x * x * x * x)
let input n = range n []
let run l = len l 0";
    assert_eq!(chain_cycles(source, 1000), 0);
}
