//! `PatternMatch` counts the tests native code makes: each arm tried, except the last arm of an
//! exhaustive match without a guard, which is where the other arms' failed tests fall through
//! (`ocamlopt -S -inline 0`: `match l with [] -> a | x :: _ -> x` is one `cmp $1` and one `je`,
//! whichever arm runs). Each test below calls the function under test once per arm it checks,
//! so the hand count is a sum of arms tried.

mod common;

fn tests(source: &str) -> u64 {
    common::count_of(source, 5, "PatternMatch")
}

#[test]
fn the_last_arm_of_an_exhaustive_match_is_reached_without_a_test() {
    // A list, an option, a bool, a two-constructor variant: one test whichever arm runs.
    let list = "let f l = match l with [] -> 0 | x :: _ -> x
let input n = n
let run n = f [] + f [ n ]";
    assert_eq!(tests(list), 1 + 1);
    let option = "let f o = match o with None -> 0 | Some x -> x
let input n = n
let run n = f None + f (Some n)";
    assert_eq!(tests(option), 1 + 1);
    let bool = "let f b = match b with true -> 1 | false -> 2
let input n = n
let run n = f (n = 5) + f (n = 6)";
    assert_eq!(tests(bool), 1 + 1);
    let tree = "type t = L | N of t * int * t
let f t = match t with L -> 0 | N (_, v, _) -> v
let input n = n
let run n = f L + f (N (L, n, L))";
    assert_eq!(tests(tree), 1 + 1);
}

#[test]
fn a_catch_all_last_arm_costs_nothing_more_than_the_tests_before_it() {
    // `0 -> | 1 -> | _ ->` on 0, 1 and 5: one test, two tests, two tests.
    let source = "let f n = match n with 0 -> 10 | 1 -> 20 | _ -> 30
let input n = n
let run n = f 0 + f 1 + f n";
    assert_eq!(tests(source), 1 + 2 + 2);
}

#[test]
fn exhaustiveness_sees_nested_patterns_or_patterns_and_tuples() {
    // `[] | [x] | x :: y :: _` is exhaustive: the third arm comes after two tests.
    let nested = "let f l = match l with [] -> 0 | [ x ] -> x | x :: y :: _ -> x + y
let input n = n
let run n = f [] + f [ n ] + f [ n; n ]";
    assert_eq!(tests(nested), 1 + 2 + 2);
    // Three constructors, the last covered by an or-pattern with the second.
    let or_pattern = "type c = R | G | B
let f c = match c with R -> 1 | G | B -> 2
let input n = n
let run n = f R + f (if n = 5 then B else G)";
    assert_eq!(tests(or_pattern), 1 + 1);
    // A match on a pair built in place, exhaustive over both components.
    let pair = "let f a b = match (a, b) with [], _ -> 0 | _, [] -> 1 | x :: _, y :: _ -> x + y
let input n = n
let run n = f [] [] + f [ n ] [] + f [ n ] [ n ]";
    assert_eq!(tests(pair), 1 + 2 + 2);
}

#[test]
fn a_last_arm_that_can_fail_is_tested() {
    // Not exhaustive (`1 :: _` misses other heads, and the warning is the program's): every
    // arm tried counts, the last included.
    let partial = "let f l = match l with [] -> 0 | 1 :: _ -> 1
let input n = n
let run n = f [] + f [ n - 4 ]";
    assert_eq!(tests(partial), 1 + 2);
    // A guard on the last arm is a test of its own.
    let guarded = "let f n = match n with 0 -> 0 | m when m > 0 -> 1
let input n = n
let run n = f 0 + f n";
    assert_eq!(tests(guarded), 1 + 2);
    // A guarded arm does not cover what it matches: `x :: _` is still needed after it.
    let after_guard = "let f l = match l with [] -> 0 | x :: _ when x > 9 -> 1 | _ :: _ -> 2
let input n = n
let run n = f [ n ] + f [ 10 ]";
    assert_eq!(tests(after_guard), 2 + 2);
}

#[test]
fn exception_handlers_test_every_arm_they_try() {
    // A handler is never exhaustive (what it does not catch goes on): Failure is its second
    // arm, two tests.
    let source = "exception E
let f n = try if n > 0 then failwith \"x\" else n with E -> 0 | Failure _ -> 1
let input n = n
let run n = f n";
    assert_eq!(tests(source), 2);
}

#[test]
fn arms_below_a_failed_guard_share_its_constructor_test() {
    // ocamlopt tests `N` once: after `N (l, k, r) when x < k` fails its guard, the next `N`
    // arm is its guard alone, and `N _` (the exhaustive match's last) is reached for free.
    // `f 1 t`: the `L` arm, the first `N` arm (guard true): 2 tests. `f 9 t`: `L`, `N`
    // (guard false), then the second `N` arm without a test (guard true): 2. `f 5 t`: the
    // same, both guards false, then `N _`: 2.
    let guarded = "type t = L | N of t * int * t
let f x t = match t with
  | L -> 0
  | N (l, k, r) when x < k -> 1
  | N (l, k, r) when x > k -> 2
  | N _ -> 3
let input n = N (L, n, L)
let run t = f 1 t + f 9 t + f 5 t";
    assert_eq!(tests(guarded), 2 + 2 + 2);
    // An arm whose fields test more is tested again; one of another constructor is skipped.
    let nested = "type t = L | N of t * int * t
let f x t = match t with
  | N (l, k, r) when x < k -> 1
  | L -> 0
  | N (L, _, _) -> 2
  | N _ -> 3
let input n = N (L, n, L)
let run t = f 9 t";
    // `N` (guard false), `L` skipped, `N (L, _, _)` tested (its field): 2.
    assert_eq!(tests(nested), 2);
}

#[test]
fn a_match_of_many_constructors_is_one_table_jump() {
    // Five constructors at the top: ocamlopt loads the tag and jumps through a table, once per
    // `eval` whichever arm runs (9 nodes). Only an arm whose fields test more costs a test
    // after the jump: `Add (Num 0, b)`, tried on the two `Add` nodes; `Add (a, b)` below it is
    // reached without one, and the arms of other constructors are never tried.
    let source = "
type e = Num of int | Neg of e | Add of e * e | Sub of e * e | Mul of e * e
let rec eval e = match e with
  | Num n -> n
  | Neg a -> - (eval a)
  | Add (Num 0, b) -> eval b
  | Add (a, b) -> eval a + eval b
  | Sub (a, b) -> eval a - eval b
  | Mul (a, b) -> eval a * eval b
let input n = Add (Num 0, Sub (Mul (Num n, Num 2), Neg (Add (Num 1, Num n))))
let run e = eval e";
    assert_eq!(common::count_of(source, 5, "TableJump"), 9);
    assert_eq!(tests(source), 2);
    // Three constructors in two places is one comparison, not a table.
    let two_places = "type c = R | G | B
let f c = match c with R -> 1 | G | B -> 2
let input n = n
let run n = f R + f G";
    assert_eq!(common::count_of(two_places, 5, "TableJump"), 0);
    assert_eq!(tests(two_places), 1 + 1);
}

#[test]
fn a_table_needs_four_places_and_sends_an_or_pattern_to_its_arm_untested() {
    // `simplify`-style: four places (`Const _ | Var _`, `Neg`, `Add`, `Mul`) over five
    // constructors are one table jump per call; the or-pattern arm is where the table sends
    // tags 0 and 1, no test (read off `ocamlopt -S`: both tags share one entry). Of the five
    // calls (1 + 1 + 1 + 2 leaves), none tests anything after the jump.
    let four_places = "
type e = Const of int | Var of int | Neg of e | Add of e * e | Mul of e * e
let rec size e = match e with
  | Const _ | Var _ -> 1
  | Neg a -> 1 + size a
  | Add (a, b) -> 1 + size a + size b
  | Mul (a, b) -> size a * size b
let input n = Neg (Add (Const n, Var 2))
let run e = size e";
    assert_eq!(common::count_of(four_places, 5, "TableJump"), 4);
    assert_eq!(tests(four_places), 0);
    // Three places over the same five constructors (`Add _ | Mul _` share an arm) are a tree
    // of two comparisons (`cmpq $2; jl; cmpq $4; jl`), not a table: tried arm by arm, the
    // or-patterns tested where tried (`Const _ | Var _` on each of the 4 nodes, `Neg` on the
    // 3 not caught by it, the last arm reached untested).
    let three_places = "
type e = Const of int | Var of int | Neg of e | Add of e * e | Mul of e * e
let rec size e = match e with
  | Const _ | Var _ -> 1
  | Neg a -> 1 + size a
  | Add (a, b) | Mul (a, b) -> 1 + size a + size b
let input n = Neg (Add (Const n, Var 2))
let run e = size e";
    assert_eq!(common::count_of(three_places, 5, "TableJump"), 0);
    assert_eq!(tests(three_places), 4 + 2);
}
