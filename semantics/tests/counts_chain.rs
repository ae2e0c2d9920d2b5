//! The dependence chain a loop carries (`ChainCycle`), with hand-computed counts from the
//! latency table of the catalogue's rule: add 1, sub 2, mul 5 (2 by a constant), float add and
//! mul 3, a load 4, a float boxed for the next iteration 2.

mod common;

fn chain_cycles(source: &str, size: i64) -> u64 {
    common::count_of(source, size, "ChainCycle")
}

#[test]
fn a_tail_recursive_loop_carries_its_longest_parameter_chain() {
    // `n - 1` carries 2 cycles, `acc * n` 5: each of the 10 self calls carries 5.
    let source = "
let rec f n acc = if n = 0 then acc else f (n - 1) (acc * n)
let input n = n
let run n = f n 1";
    assert_eq!(chain_cycles(source, 10), 10 * 5);
}

#[test]
fn operations_that_do_not_depend_on_the_previous_iteration_carry_nothing() {
    // `n * n + 1` does not read `acc`: only `n - 1` (2 cycles) is carried.
    let source = "
let rec f n acc = if n = 0 then acc else f (n - 1) (n * n + 1)
let input n = n
let run n = f n 0";
    assert_eq!(chain_cycles(source, 10), 10 * 2);
}

#[test]
fn a_non_tail_recursion_carries_what_it_does_with_its_result() {
    // `n * fact (n - 1)`: the multiply waits for the inner call's result, 5 cycles per call.
    let source = "
let rec fact n = if n = 0 then 1 else n * fact (n - 1)
let input n = n
let run n = fact n";
    assert_eq!(chain_cycles(source, 10), 10 * 5);
    // A list built on the way back stores the result: nothing waits on it.
    let map = "
let[@inline never] inc x = x + 1
let rec map l = match l with [] -> [] | x :: t -> inc x :: map t
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let input n = range n []
let run l = map l";
    assert_eq!(chain_cycles(map, 10), 0);
}

#[test]
fn a_list_walk_carries_the_load_of_the_next_cell() {
    // `t` is a field of the cell `l`: a load, 4 cycles; `acc + 1` only 1.
    let source = "
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let rec len l acc = match l with [] -> acc | _ :: t -> len t (acc + 1)
let input n = range n []
let run l = len l 0";
    assert_eq!(chain_cycles(source, 10), 10 * 4);
}

#[test]
fn a_horner_step_waits_on_the_boxed_accumulator() {
    // acc is a boxed float: load 4, `*. x` 3, `+. c` 3, boxed again for the call 2 = 12.
    let source = "
let rec coeffs n acc = if n = 0 then acc else coeffs (n - 1) (0.5 :: acc)
let input n = (0.9, coeffs n [])
let rec horner x cs acc = match cs with [] -> acc | c :: r -> horner x r (acc *. x +. c)
let run p = match p with (x, cs) -> horner x cs 0.0";
    assert_eq!(chain_cycles(source, 10), 10 * 12);
}

#[test]
fn a_loop_carries_the_chain_through_the_variables_it_assigns() {
    // `s` is a reference ocamlopt keeps in a register: `(!s * 3 + i) land 1023` carries
    // mul by a constant 2, add 1, and 1 = 4 cycles per iteration.
    let source = "
let input n = n
let run n =
  let s = ref 1 in
  for i = 1 to n do s := (!s * 3 + i) land 1023 done;
  !s";
    assert_eq!(chain_cycles(source, 10), 10 * 4);
    // A call of a known function adds its body's latency: `next` is mul 5, add 1 = 6.
    let called = "
let[@inline never] next s m = s * m + 1
let input n = (n, 7)
let run p =
  let (n, m) = p in
  let s = ref 1 in
  let i = ref 0 in
  while !i < n do s := next !s m; incr i done;
  !s";
    assert_eq!(chain_cycles(called, 10), 10 * 6);
}
