//! The dependence chain a loop carries (`ChainCycle` and the kinds split off it), counted where it binds: per iteration,
//! the chain's cycles beyond the iteration's instructions at 6 a cycle. Hand-computed from the
//! latency table of the catalogue's rule (add, sub, and 1; mul 4, one more through its right
//! operand, 3 by a constant; float add 2, mul 4; a load 5; a float boxed for the next
//! iteration 2 more) and the instruction table
//! of `semantics/src/issue.rs` (IntAdd, IntSub, SelfTailApp, FloatAdd, Spill 1; IntCondEq,
//! IntCondLT, IntLand, IntMultConst, FunApp, Frame, FloatMult 2; IntMult, LoopPoll 3; PatternMatch
//! 4; ForIter 5; FloatBox 7).
//!
//! An iteration ends where the loop's self call enters the function again, its arguments
//! evaluated; the first begins at the function's entry. A linear recursion's way back is
//! weighed level by level too: a level ends where the self call it made returns. Fractions of a cycle carry from one
//! iteration to the next, so the tests read the difference between sizes 6 iterations apart:
//! exactly 6 × the excess of one iteration in sixths of a cycle, that is the excess in sixths,
//! whatever the rounding did. They read it past the first 512 instructions of the loop, where
//! the chain ramps in (the reorder window the loop overlaps with; see `counts_chain_ramp.rs`).

mod common;

fn chain_cycles(source: &str, size: i64) -> u64 {
    common::chain_of(source, size)
}

/// The chain one iteration carries beyond its issue, in sixths of a cycle.
fn beyond_issue_sixths(source: &str) -> u64 {
    chain_cycles(source, 206) - chain_cycles(source, 200)
}

#[test]
fn a_tail_recursive_loop_carries_its_longest_parameter_chain() {
    // `n - 1` carries 1 cycle, `acc * n` 3 (its decrement and retagging folded by this core's
    // renamer, `imul` 3): 18 sixths. The iteration issues IntCondEq 2, IntSub 1, IntMult 3,
    // SelfTailApp 1, LoopPoll 3: 10.
    let source = common::chains::PRODUCT;
    assert_eq!(beyond_issue_sixths(source), 18 - 10);
    // Over 1000 iterations the chain dominates the count, as it dominates the time: 8 sixths
    // an iteration, less what the first 512 instructions (51 iterations) overlap with the code
    // after the loop. Over those the chain ramps in from nothing (18 × 10k / 512 sixths at the
    // k-th, rounded down), and beats the iteration's issue only from the 32nd: 20 iterations
    // carry 82 sixths, and the 949 from the 52nd on 8 each: 7674 sixths, 1279 cycles.
    let total = chain_cycles(source, 1000);
    assert_eq!(total, 1279);
    // `n * acc`: the accumulator is the right operand, untagged by a shift on its chain
    // (`(n - 1) * (acc asr 1) + 1`), which costs 3 cycles more here (measured: 6 cycles an
    // iteration, against 3 for `acc * n`): 36 sixths, against the same 10.
    let right = "
let rec f n acc = if n = 0 then acc else f (n - 1) (n * acc)
let input n = n
let run n = f n 1";
    assert_eq!(beyond_issue_sixths(right), 36 - 10);
}

#[test]
fn operations_that_do_not_depend_on_the_previous_iteration_carry_nothing() {
    // The same instructions, but `n * n` does not read `acc`: only `n - 1` (1 cycle, 6
    // sixths) is carried, less than the 10 instructions take to issue.
    let source = "
let rec f n acc = if n = 0 then acc else f (n - 1) (n * n)
let input n = n
let run n = f n 0";
    assert_eq!(chain_cycles(source, 1000), 0);
}

#[test]
fn a_non_tail_recursion_carries_what_it_does_with_its_result() {
    // `n * fact (n - 1)`: on the way back the multiply waits for the inner call's result, the
    // right operand, which is untagged on the chain: 3 + 3 cycles; a level of the way back
    // issues only the multiply, IntMult 3. (The way down
    // carries `n - 1`, 1 cycle, less than its IntSub 1, FunApp 2, Spill 1 × 2, Frame 2,
    // IntCondEq 2 take to issue.)
    let source = "
let rec fact n = if n = 0 then 1 else n * fact (n - 1)
let input n = n
let run n = fact n";
    assert_eq!(beyond_issue_sixths(source), 36 - 3);
    // A list built on the way back stores the result: nothing waits on it. (`map t` runs
    // before `inc x`, right to left, so the way down is the load of the next cell, 30
    // sixths, against PatternMatch 4, FunApp 2, Frame 2, Spill 1 × 2 — one value kept across
    // `map t`: `x` is read once, as a field of `l` where `inc x` runs, so `l` is kept and
    // not `x` too —: 20 beyond, on the 68 levels below the window of 32.)
    let map = "
let[@inline never] inc x = x + 1
let rec map l = match l with [] -> [] | x :: t -> inc x :: map t
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let input n = range n []
let run l = map l";
    assert_eq!(chain_cycles(map, 100), 68 * 20 / 6);
}

#[test]
fn each_level_of_a_way_back_carries_the_arm_it_ran() {
    // `h / m + 1000` waits on the inner call's result: the division 22 cycles and the add 1,
    // against the 18 instructions a level issues on its way back (IntDiv 11, IntAdd 1,
    // LetData 2, and the arm's test: IntLand 2, IntCondEq or IntCondGE 2), 3 cycles: 20 beyond. A level that returns `h` waits on
    // nothing. Of the 400 levels, 399 return into one above (the top one returns into
    // `run`); the arm decides per level what it carries, not the mean of the two.
    let source = common::chains::way_back_division;
    // Every level divides (the same tests, so that every level issues the same instructions).
    assert_eq!(chain_cycles(&source("n land 3 >= 0"), 400), 399 * 20);
    // One level in four (n = 4, 8, …, 396 below the top): 99 levels.
    assert_eq!(chain_cycles(&source("n land 3 = 0"), 400), 99 * 20);
    // None: the way back carries nothing.
    assert_eq!(chain_cycles(&source("n land 3 = 5"), 400), 0);
}

#[test]
fn a_deep_linear_recursion_waits_on_its_way_down_too() {
    // One self call site: all the levels run down, then all back. Down, `t` is a field of
    // `l`: a load, 5 cycles (30 sixths), against PatternMatch 4, FunApp 2, Frame 2: 22
    // sixths beyond. Back, `1 + …` waits on the result, 1 cycle, against IntAdd 1: 5.
    let source = "
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let rec len l = match l with [] -> 0 | _ :: t -> 1 + len t
let input n = range n []
let run l = len l";
    let six_levels = |size| chain_cycles(source, size + 6) - chain_cycles(source, size);
    // Below the window of 32 levels, the way down overlaps the code around it.
    assert_eq!(six_levels(10), 5);
    assert_eq!(six_levels(100), 22 + 5);
    // A tree recursion (two self call sites) overlaps one subtree's way down with the
    // other's: its way down carries nothing, however deep.
    let tree = "
type t = Leaf | Node of t * int * t
let rec spine n = if n = 0 then Leaf else Node (spine (n - 1), n, Leaf)
let rec sum t = match t with Leaf -> 0 | Node (l, x, r) -> sum l + x + sum r
let input n = spine n
let run t = sum t";
    // Past the window, six levels count only what its way back's two adds leave beyond each
    // level's issue (2 cycles here), where a way down like `len`'s would add 22.
    let tree_six_levels = chain_cycles(tree, 106) - chain_cycles(tree, 100);
    assert!(tree_six_levels <= 5, "{tree_six_levels}");
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
    assert_eq!(beyond_issue_sixths(source), 30 - 9);
}

#[test]
fn a_horner_step_waits_on_the_boxed_accumulator() {
    // acc is a boxed float: load 5, `*. x` 4, `+. c` 2, boxed again for the call 2 = 13
    // cycles; the iteration issues FloatMult 2, FloatAdd 1, FloatBox 7, PatternMatch 4,
    // SelfTailApp 1: 15.
    assert_eq!(beyond_issue_sixths(common::chains::HORNER), 78 - 15);
}

#[test]
fn a_loop_carries_the_chain_through_the_variables_it_assigns() {
    // `s` is a reference ocamlopt keeps in a register: `(!s * 3 + i) land 1023` carries
    // mul by a constant 3, add 1, and 1 = 5 cycles; the iteration issues ForIter 5,
    // IntMultConst 2, IntAdd 1, IntLand 2, and the poll at the back edge (BackEdgePoll 2) on
    // every iteration but the last: 12, against 30 sixths. Ten iterations issue 120
    // instructions, well inside
    // the window: their chain overlaps the code after the loop and binds nowhere.
    let source = "
let input n = n
let run n =
  let s = ref 1 in
  for i = 1 to n do s := (!s * 3 + i) land 1023 done;
  !s";
    assert_eq!(beyond_issue_sixths(source), 30 - 12);
    assert_eq!(chain_cycles(source, 10), 0);
    // A call of a known function adds its body's latency: `next` is mul 3, add 1 = 4, which
    // `s` carries from one call's result to the next call's argument, in a register. `i` is
    // kept across the call in the loop's frame: loaded back after it (5), incremented (1) and
    // stored again for the next iteration's load, 6 cycles. The iteration issues WhileIter 1,
    // IntCondLT 2, FunApp 2, Spill 1 × 4 (`n`, `m` and `i` kept across the call, each loaded
    // back once, and `i` stored again after `incr`: ocamlopt loads both fields of `p` once,
    // before the loop, and stores them there), IntMult 3, IntAdd 2 and the poll at its back
    // edge (BackEdgePoll 2): 16. The call holds the front end 5 cycles (30 sixths), longer:
    // `i`'s 36 sixths bind by 6.
    let called = "
let[@inline never] next s m = s * m + 1
let input n = (n, 7)
let run p =
  let (n, m) = p in
  let s = ref 1 in
  let i = ref 0 in
  while !i < n do s := next !s m; incr i done;
  !s";
    assert_eq!(beyond_issue_sixths(called), 36 - 30);
    // Multiplied twice, `slower`'s body carries mul 3, mul 3, add 1 = 7 cycles, 42 sixths: 12
    // beyond the call's hold (its 19 instructions, one IntMult more, stay under it).
    let slower = called.replace("s * m + 1", "s * m * m + 1");
    assert_eq!(beyond_issue_sixths(&slower), 42 - 30);
}

#[test]
fn a_loop_whose_iteration_is_long_hides_its_chain() {
    // The same list walk as above, but each element also goes through five additions, eight
    // multiplications and three by a constant: 9 + 5 + 8 × 3 + 3 × 2 = 44 instructions, 7⅓
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
fn float_of_int_waits_for_the_last_float_result() {
    // `cvtsi2sd` keeps its register's high half, so it waits for the register's last writer,
    // here `s`'s sum of the iteration before: cvt 4, the argument boxed for `f` 2, `f`'s load
    // 5 and multiply 4, its result boxed 2 and loaded 5, the add 2 = 24 cycles, 144 sixths.
    // The iteration issues ForIter 5, FloatOfInt 4, FloatBox 2 × 7, FunApp 2, Frame 2, Spill
    // 1 × 4, FloatMult 2, FloatAdd 1: 34.
    assert_eq!(
        beyond_issue_sixths(common::chains::FLOAT_OF_INT_SUM),
        144 - 34
    );
    // The same loop on floats read from an array carries `s` alone: kept across `f`'s call
    // in the loop's frame (`movsd 24(%rsp)` loaded after the call, added to, stored back),
    // its load 5 and the add 2, 7 cycles, 42 sixths. The iteration issues ForIter 5,
    // ArrayGet 5, FloatBox 2 × 7 (the element passed to `f`, its result), FunApp 2, Frame 2,
    // FloatMult 2, Spill 1 × 5, FloatAdd 1: 36.
    let read = "
let[@inline never] f x = x *. 0.5
let input n = Array.make (n + 1) 1.5
let run xs = let s = ref 0.0 in for i = 1 to Array.length xs - 1 do s := !s +. f xs.(i) done; !s";
    assert_eq!(beyond_issue_sixths(read), 42 - 36);
}

#[test]
fn a_tuple_passed_to_the_next_iteration_carries_its_fields_chains() {
    // `(b, (a + b) mod p)` matched as `(a, b)` by the next iteration: the add 1 and the
    // remainder by a constant 14 (the field's store and load cost nothing more here: the
    // `tuple` templates rotate fields at the speed of the add), 15 cycles, 90 sixths,
    // against IntCondEq 2, IntSub 1, TupleMatch 2, TupleElem 2, TupleHead 5, IntAdd 1,
    // IntModConst 10, SelfTailApp 1: 24.
    let source = "
let rec fib k (a, b) = if k = 0 then a else fib (k - 1) (b, (a + b) mod 1000000007)
let input n = n
let run n = fib n (0, 1)";
    assert_eq!(beyond_issue_sixths(source), 90 - 24);
}

fn divider_cycles(source: &str, size: i64) -> u64 {
    common::count_of(source, size, "DividerCycle")
}

#[test]
fn the_divider_binds_where_an_iteration_is_little_else() {
    // Two `divsd` an iteration keep the divider busy 8 cycles; the iteration issues ForIter 5,
    // ArrayGet 5, LetData 2, FloatDiv 2 × 2, FloatAdd 2 × 1, BackEdgePoll 2: 20 instructions,
    // 3⅓ cycles, and the chain of `s`'s two adds (2 cycles each: 24 sixths) runs 4 sixths
    // beyond that, beside the divider. 48 − 20 − 4 = 24 sixths beyond, per iteration.
    let divides = "
let input n = Array.make (n + 1) 3.0
let run a =
  let s = ref 0.0 in
  for i = 1 to Array.length a - 1 do let x = a.(i) in s := !s +. 1.0 /. x +. 2.0 /. x done;
  !s";
    assert_eq!(
        divider_cycles(divides, 206) - divider_cycles(divides, 200),
        48 - 20 - 4
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
fn a_way_back_that_multiplies_on_some_levels_carries_it_on_those_only() {
    // `h * h mod p`: the multiply through its right operand 6 and the remainder by a constant
    // 14, 20 cycles (120 sixths), against the level's LetData 2, IntLand 2, IntCondEq 2,
    // IntMult 3 and IntModConst 10: 101 sixths beyond, per level.
    let every_level = "
let rec f n = if n = 0 then 1 else let h = f (n - 1) in if n land 1 = 0 then h * h mod 1000003 else h * h mod 1000003
let input n = n
let run n = f n";
    let six_levels = |source| chain_cycles(source, 206) - chain_cycles(source, 200);
    assert_eq!(six_levels(every_level), 120 - 19);
    // On odd levels only: an even level returns `h` and carries nothing, an odd one 101
    // sixths, three of each in six levels: 303 sixths, 50.5 cycles. (The mean of the two
    // arms on every level, as counted before, gave 47.5.)
    let odd_levels = "
let rec f n = if n = 0 then 1 else let h = f (n - 1) in if n land 1 = 0 then h else h * h mod 1000003
let input n = n
let run n = f n";
    assert!(
        (50..=51).contains(&six_levels(odd_levels)),
        "{}",
        six_levels(odd_levels)
    );
}

#[test]
fn a_float_reference_kept_in_a_register_is_read_without_a_load() {
    // ocamlopt keeps `s` unboxed in a register (a float ref turned into a variable): the
    // chain is the multiply 4 and the add 2, 36 sixths, against ForIter 5, ArrayGet 5,
    // FloatMult 2, FloatAdd 1 and BackEdgePoll 2: 15. (Read as a boxed float, a load 5 more.)
    let source = "
let input n = Array.make (n + 1) 0.5
let run a =
  let s = ref 0.0 in
  for i = 1 to Array.length a - 1 do s := !s *. 1.0001 +. a.(i) done;
  !s";
    assert_eq!(beyond_issue_sixths(source), 36 - 15);
}

#[test]
fn values_that_feed_each_other_carry_their_round_trip() {
    // `a` feeds `b` through two multiplies by a constant, an add and an and (3 + 1 + 3 + 1 = 8
    // cycles), `b` feeds `a` as it is: neither feeds itself, but the round trip takes 8 cycles
    // every two iterations, 4 an iteration, 24 sixths, against ForIter 5, IntMultConst 2 × 2,
    // IntAdd 1, IntLand 2, LetData 2 and BackEdgePoll 2: 16.
    let source = "
let input n = n
let run n =
  let a = ref 1 in
  let b = ref 2 in
  for _ = 1 to n do
    let t = ((!a * 5 + 1) * 3) land 1023 in
    a := !b;
    b := t
  done;
  !a + !b";
    assert_eq!(beyond_issue_sixths(source), 24 - 16);
}

#[test]
fn a_call_through_a_closure_adds_the_body_of_what_it_can_reach() {
    // `f x` names no function, but the only one of arity 1 the program lets escape is `step`:
    // its body carries a multiply by a constant 3, an add 1 and an and 1, 5 cycles (30
    // sixths), against the iteration's IntCondEq 2, IntSub 1, FunApp 2, IndirectCall 1 (the
    // code pointer's load), Spill 1 × 4 (`f` and `n` kept across the call, each stored and
    // loaded back), IntMultConst 2, IntAdd 1, IntLand 2, SelfTailApp 1, LoopPoll 3: 19 — and
    // the call's hold, 30 sixths: nothing binds.
    let iterate = "
let rec iterate f n x = if n = 0 then x else iterate f (n - 1) (f x)
let step x = (x * 3 + 1) land 1023";
    let one = format!("{iterate}\nlet input n = n\nlet run n = iterate step n 1");
    assert_eq!(beyond_issue_sixths(&one), 0);
    // With a second function passed, `slow` (3 + 1 + 3 + 1 + 1 = 9 cycles), the call may reach
    // either: it carries their mean, 7 cycles, 42 sixths, in both loops, against the call's
    // hold of 30 sixths (longer than their 19 and 22 instructions).
    let two = format!(
        "{iterate}
let slow x = ((x * 5 + 1) * 3 + 7) land 1023
let input n = n
let run n = iterate step n 1 + iterate slow n 1"
    );
    assert_eq!(beyond_issue_sixths(&two), (42 - 30) * 2);
}

#[test]
fn an_array_element_stored_for_the_next_iteration_is_on_its_chain() {
    // Prefix sums: `p.(i)` is the element the iteration before stored, forwarded from the
    // store to the load (5 + 2 cycles, as a boxed float passed on), and the add 1: 8 cycles,
    // 48 sixths, against ArrayGet 5 × 2, ArraySet 6, ForIter 5, IntAdd 1 × 2 and BackEdgePoll
    // 2: 25.
    let source = "
let input n = Array.make n 3
let run a =
  let n = Array.length a in
  let p = Array.make (n + 1) 0 in
  for i = 0 to n - 1 do p.(i + 1) <- p.(i) + a.(i) done;
  p";
    assert_eq!(beyond_issue_sixths(source), 48 - 25);
    // Counting down, the element stored one step further down is the one loaded. The store
    // reuses the bounds check of the load of `a.(i)` (a FieldSet 1, not an ArraySet 6), and
    // `a.(i + 1)` the header that load read (ArrayGetKnownLength 3, not ArrayGet 5): 18.
    let down = "
let input n = Array.make (n + 1) 3
let run a =
  let n = Array.length a - 1 in
  for i = n - 1 downto 0 do a.(i) <- a.(i + 1) + a.(i) done;
  a";
    assert_eq!(beyond_issue_sixths(down), 48 - 18);
    // Updated in place, each element is loaded and stored by one iteration: no carry.
    let in_place = "
let input n = Array.make n 3
let run a =
  for i = 0 to Array.length a - 1 do a.(i) <- a.(i) + i done;
  a";
    assert_eq!(chain_cycles(in_place, 1000), 0);
}

#[test]
fn a_float_field_a_loop_stores_is_forwarded_to_its_next_read() {
    // `r.x <- r.y +. 1.0; r.y <- r.x +. 0.5` on a float record: `r.y` waits for the double
    // the iteration before stored (a load 5 and the store's 2), the add 2; `r.x` for the one
    // just stored, 7 more and the add 2: 18 cycles, 108 sixths, against ForIter 5, TupleMatch
    // 2 × 1, FloatAdd 2 × 1, FieldSet 2 × 1 and the poll at the back edge (BackEdgePoll 2): 13.
    let source = "type r = { mutable x : float; mutable y : float }
let input n = (n, { x = 0.5; y = 0.25 })
let run (n, r) =
  for _ = 1 to n do
    r.x <- r.y +. 1.0;
    r.y <- r.x +. 0.5
  done;
  r.x";
    assert_eq!(beyond_issue_sixths(source), 108 - 13);
    // Integer fields carry nothing: their stores and loads are renamed away.
    let ints = "type r = { mutable a : int; mutable b : int }
let input n = (n, { a = 0; b = 1 })
let run (n, r) =
  for _ = 1 to n do
    r.a <- r.b + 1;
    r.b <- r.a + 3
  done;
  r.a";
    assert_eq!(chain_cycles(ints, 1000), 0);
    // A record bound in the body is another block each iteration: nothing carried.
    let fresh = "type r = { mutable x : float; mutable y : float }
let input n = n
let run n =
  let s = ref 0.0 in
  for i = 1 to n do
    let r = { x = float_of_int i; y = 0.5 } in
    r.x <- r.y +. 1.0;
    s := r.x
  done;
  !s";
    assert_eq!(chain_cycles(fresh, 1000), 0);
}

#[test]
fn remainders_by_a_variable_keep_the_divider_busy_once() {
    // `n mod d` keeps the divider busy 10 cycles (60 sixths); the iteration issues IntCondEq 2,
    // IntSub 1, IntMod 11, IntLxor 3, IntAdd 2 × 1, SelfTailApp 1, LoopPoll 3: 23. Its chain is
    // `acc`'s two adds and `n - 1`, under the issue. 37 sixths beyond, per iteration.
    let one = "
let input n = (n, 7, 13)
let rec loop n d e acc = if n = 0 then acc else loop (n - 1) d e (acc + n mod d + (n lxor e))
let run (n, d, e) = loop n d e 0";
    assert_eq!(divider_cycles(one, 206) - divider_cycles(one, 200), 60 - 23);
    // The same loop called once per element of an outer `for` loop: the remainders are the
    // inner loop's, weighed there; the outer iteration, which ran them, does not weigh them
    // again (it would: its 3 × 60 sixths of the divider's against about 80 of issue). Three
    // iterations of 37 sixths, and the outer loop's own nothing: 111 sixths per outer
    // iteration, 1332 over twelve, 222 cycles.
    let nested = "
let rec loop n d e acc = if n = 0 then acc else loop (n - 1) d e (acc + n mod d + (n lxor e))
let input n = n
let run n = let s = ref 0 in for i = 1 to n do s := !s + loop 3 7 i 0 done; !s";
    assert_eq!(
        divider_cycles(nested, 212) - divider_cycles(nested, 200),
        12 * 111 / 6
    );
}

#[test]
fn a_loop_that_calls_waits_on_the_variables_it_keeps_in_its_frame() {
    // ocamlopt keeps no register across a call: `acc` and `i` live in the loop's frame, each
    // iteration loading them after `f`'s call, adding (1) and storing them back, and the next
    // iteration's load waits on that store (5): 6 cycles each, 36 sixths. The iteration
    // issues WhileIter 1, BackEdgePoll 2, IntCondLT 2, FunApp 2, IntLxor 3 (in `f`), IntAdd
    // 1 × 2, Spill 1 × 5: 17, under the call's hold of 30 sixths. Measured with `mlcost
    // bench`, this loop runs 7.9 cycles an iteration (1 run, 10 000 iterations).
    let held = "
let[@inline never] f x = x lxor 5
let input n = n
let run n =
  let i = ref 0 and acc = ref 0 in
  while !i < n do acc := !acc + f !i; incr i done;
  !acc";
    assert_eq!(beyond_issue_sixths(held), 36 - 30);
    // Of those 6 sixths, the part that the loads from the frame make is ForwardChainCycle's:
    // without them the chain is the adds' 1 cycle, under the hold.
    let forwarded = common::count_of(held, 1000, "ForwardChainCycle");
    assert!(forwarded > common::count_of(held, 1000, "ChainCycle"));
    // The same accumulation as a tail recursion passes `acc` and `i` as arguments: this core
    // renames a parameter's store before a call and its load after away (`callshadow_0`, a
    // parameter kept across a call, runs 2.1 cycles an iteration), and the walk counts no
    // load: `acc + f i` carries the add alone, 1 cycle, well under the iteration's issue.
    let recursive = "
let[@inline never] f x = x lxor 5
let rec loop i n acc = if i = n then acc else loop (i + 1) n (acc + f i)
let input n = n
let run n = loop 0 n 0";
    assert_eq!(chain_cycles(recursive, 1000), 0);
}
