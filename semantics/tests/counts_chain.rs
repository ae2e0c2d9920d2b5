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
//! whatever the rounding did. They read it past the first 512 instructions of the loop, where
//! the chain ramps in (the reorder window the loop overlaps with; see the last tests).

mod common;

fn chain_cycles(source: &str, size: i64) -> u64 {
    common::count_of(source, size, "ChainCycle")
}

/// The chain one iteration carries beyond its issue, in quarters of a cycle.
fn beyond_issue_quarters(source: &str) -> u64 {
    chain_cycles(source, 204) - chain_cycles(source, 200)
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
    // Over 1000 iterations the chain dominates the count, as it dominates the time: 1.5
    // cycles an iteration, less what the first 512 instructions (51 iterations) overlap with
    // the code after the loop. Over those the chain ramps in from nothing, and beats the
    // iteration's issue only from the 33rd: 19 iterations carry 59 quarters where 306 bind in
    // full, 62 cycles fewer.
    let total = chain_cycles(source, 1000);
    assert!((1436..=1440).contains(&total), "{total}");
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
    // every iteration but the last: 12. Ten iterations issue 120 instructions, well inside
    // the window: their chain overlaps the code after the loop and binds nowhere.
    let source = "
let input n = n
let run n =
  let s = ref 1 in
  for i = 1 to n do s := (!s * 3 + i) land 1023 done;
  !s";
    assert_eq!(beyond_issue_quarters(source), 20 - 12);
    assert_eq!(chain_cycles(source, 10), 0);
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

#[test]
fn short_loops_called_one_after_another_overlap_their_chains() {
    // Horner's rule over 13 coefficients for each of n points: the accumulator's chain (a
    // boxed float: load 5, `*.` 3, `+.` 3, box 2 = 13 cycles, against some 20 instructions
    // issued in 5) binds in a long loop: 8 cycles an iteration, 104 an instance of 13. But
    // such an instance, some 260 instructions, sits in the reorder window beside the next
    // point's: its chain ramps in to half its length by its last iteration, and only the last
    // few count a cycle or two. The same step over 200 coefficients binds in full once its
    // first 512 instructions are past.
    let horner = |degree: usize| {
        format!(
            "
let horner coeffs x =
  let rec go i acc = if i < 0 then acc else go (i - 1) (acc *. x +. coeffs.(i)) in
  go (Array.length coeffs - 1) 0.0
let input n = (Array.make {degree} 0.5, Array.make n 0.25)
let run (coeffs, xs) = Array.fold_left (fun s x -> s +. horner coeffs x) 0.0 xs"
        )
    };
    assert!(
        chain_cycles(&horner(13), 100) <= 100 * 5,
        "{}",
        chain_cycles(&horner(13), 100)
    );
    assert!(
        chain_cycles(&horner(200), 100) > 100 * 150 * 5,
        "{}",
        chain_cycles(&horner(200), 100)
    );
}

#[test]
fn a_short_loop_that_divides_keeps_its_chain() {
    // Euclid's remainders, a few per pair: overlapping pairs would gain nothing, since they
    // share one divider. `b mod (a mod b)`-style chains (idiv 22 cycles) count in full from
    // the first iteration.
    let source = "
let rec gcd a b = if b = 0 then a else gcd b (a mod b)
let input n = n
let run n = let s = ref 0 in for i = 1 to n do s := !s + gcd (i * 7919) 1000 done; !s";
    assert!(
        chain_cycles(source, 100) > 100 * 2 * 15,
        "{}",
        chain_cycles(source, 100)
    );
}

#[test]
fn float_of_int_waits_for_the_last_float_result() {
    // `cvtsi2sd` keeps its register's high half, so it waits for the register's last writer,
    // here `s`'s sum of the iteration before: cvt 4, the argument boxed for `f` 2, `f`'s load
    // 5 and multiply 3, its result boxed 2 and loaded 5, the add 3 = 24 cycles, 96 quarters.
    // The iteration issues ForIter 5, FloatOfInt 4, FloatBox 2 × 7, FunApp 2, Frame 2, Spill
    // 2 × 2, FloatMult 2, FloatAdd 1: 34.
    let source = "
let[@inline never] f x = x *. 0.5
let input n = n
let run n = let s = ref 0.0 in for i = 1 to n do s := !s +. f (float_of_int i) done; !s";
    assert_eq!(beyond_issue_quarters(source), 96 - 34);
    // The same loop on floats read from an array carries only `s`'s add, 3 cycles.
    let read = "
let[@inline never] f x = x *. 0.5
let input n = Array.make (n + 1) 1.5
let run xs = let s = ref 0.0 in for i = 1 to Array.length xs - 1 do s := !s +. f xs.(i) done; !s";
    assert_eq!(chain_cycles(read, 1000), 0);
}

#[test]
fn a_tuple_passed_to_the_next_iteration_carries_its_fields_chains() {
    // `(b, (a + b) mod p)` matched as `(a, b)` by the next iteration: the add 1 and the
    // remainder by a constant 14 (the field's store and load cost nothing more here: the
    // `tuple` templates rotate fields at the speed of the add), 15 cycles, 60 quarters,
    // against IntCondEq 2, IntSub 1, TupleMatch 2, TupleElem 2, TupleHead 5, IntAdd 1,
    // IntModConst 10, SelfTailApp 1: 24.
    let source = "
let rec fib k (a, b) = if k = 0 then a else fib (k - 1) (b, (a + b) mod 1000000007)
let input n = n
let run n = fib n (0, 1)";
    assert_eq!(beyond_issue_quarters(source), 60 - 24);
}

fn divider_cycles(source: &str, size: i64) -> u64 {
    common::count_of(source, size, "DividerCycle")
}

#[test]
fn the_divider_binds_where_an_iteration_is_little_else() {
    // Two `divsd` an iteration keep the divider busy 8 cycles; the iteration issues ForIter 5,
    // ArrayGet 5, LetData 2, FloatDiv 2 × 2, FloatAdd 2 × 1, BackEdgePoll 2: 20 instructions,
    // 5 cycles. 3 cycles beyond, per iteration.
    let divides = "
let input n = Array.make (n + 1) 3.0
let run a =
  let s = ref 0.0 in
  for i = 1 to Array.length a - 1 do let x = a.(i) in s := !s +. 1.0 /. x +. 2.0 /. x done;
  !s";
    assert_eq!(
        divider_cycles(divides, 204) - divider_cycles(divides, 200),
        4 * 3
    );
    // The same divisions among twenty more multiplications and additions: the iteration takes
    // longer to issue than the divider is busy, and the divisions cost their instructions.
    let among_others = "
let input n = Array.make (n + 1) 3.0
let run a =
  let s = ref 0.0 in
  for i = 1 to Array.length a - 1 do
    let x = a.(i) in
    let y = x *. x +. x *. 2.0 +. x *. 3.0 +. x *. 4.0 +. x *. 5.0 in
    let z = y *. y +. y *. 2.0 +. y *. 3.0 +. y *. 4.0 +. y *. 5.0 in
    s := !s +. 1.0 /. x +. 2.0 /. z
  done;
  !s";
    assert_eq!(divider_cycles(among_others, 1000), 0);
}

#[test]
fn a_way_back_that_multiplies_on_some_levels_carries_the_mean_of_its_branches() {
    // `h * h mod p`: the multiply through its right operand 5 and the remainder by a constant
    // 14, 19 cycles (76 quarters), against the level's LetData 2, IntLand 2, IntCondEq 2,
    // IntMult 3 and IntModConst 10: 57 quarters beyond, per level.
    let every_level = "
let rec f n = if n = 0 then 1 else let h = f (n - 1) in if n land 1 = 0 then h * h mod 1000003 else h * h mod 1000003
let input n = n
let run n = f n";
    let four_levels = |source| chain_cycles(source, 204) - chain_cycles(source, 200);
    assert_eq!(four_levels(every_level), 57);
    // On odd levels only, the branch taken level after level is one or the other: the way
    // back carries their mean, 9 cycles (36 quarters), against 6 quarters of issue on an even
    // level and 19 on an odd one: 30 + 17 quarters per two levels, 23.5 cycles per four.
    let odd_levels = "
let rec f n = if n = 0 then 1 else let h = f (n - 1) in if n land 1 = 0 then h else h * h mod 1000003
let input n = n
let run n = f n";
    assert!(
        (23..=24).contains(&four_levels(odd_levels)),
        "{}",
        four_levels(odd_levels)
    );
}
