//! `BoolTest`: a condition decided by a boolean value is a compare with `true` and a jump in
//! ocamlopt's code; a comparison in the same place is its own compare.

mod common;

use common::count_of;

fn tests(source: &str, size: i64) -> u64 {
    count_of(source, size, "BoolTest")
}

#[test]
fn a_boolean_value_in_a_condition_is_tested() {
    // A predicate's answer (`if p x`), a bool array's element, a bound flag, a polymorphic
    // `=`'s answer: one test each time the condition runs.
    let pred = "
let[@inline never] p x = x land 1 = 0
let rec count l acc = match l with [] -> acc | x :: t -> count t (if p x then acc + 1 else acc)
let input n = List.init n (fun i -> i)
let run l = count l 0";
    assert_eq!(tests(pred, 7), 7);
    let array = "
let input n = Array.init n (fun i -> i mod 3 = 0)
let run (a : bool array) =
  let c = ref 0 in
  for i = 0 to Array.length a - 1 do if a.(i) then incr c done;
  !c";
    assert_eq!(tests(array, 9), 9);
    let flag_and_poly = "
let[@inline never] same a b = if a = b then 1 else 0
let input n = n
let run n = let big = n > 3 in (if big then 1 else 2) + same [n] [n] + same n 4";
    // `big` tested once; `same`'s polymorphic `=` answered twice.
    assert_eq!(tests(flag_and_poly, 5), 1 + 2);
}

#[test]
fn comparisons_and_connectives_are_not_tested_again() {
    // Int and float comparisons, `==`, `not`, `&&` and `||` of comparisons: no BoolTest.
    let source = "
let input n = n
let run n =
  let f = float_of_int n in
  if (n > 2 && not (n = 5)) || f < 1.0 || n == 7 then 1 else 0";
    assert_eq!(tests(source, 4), 0);
    // `&&` of a call's answer and a comparison: the call's answer is tested.
    let mixed = "
let[@inline never] even x = x land 1 = 0
let input n = n
let run n = if even n && n > 2 then 1 else 0";
    assert_eq!(tests(mixed, 4), 1);
    assert_eq!(tests(mixed, 3), 1);
}

#[test]
fn and_or_not_build_a_flag_only_as_values_not_returned() {
    let bool_count = |source: &str, construct: &str| count_of(source, 10, construct);
    // In a condition: the operands' jumps, no BoolAnd, BoolOr or BoolNot (10 iterations).
    let condition = "
let input n = n
let run n =
  let c = ref 0 in
  for i = 1 to n do if (i > 3 && i < 8) || not (i <> 5) then incr c done;
  !c";
    assert_eq!(bool_count(condition, "BoolAnd"), 0);
    assert_eq!(bool_count(condition, "BoolOr"), 0);
    assert_eq!(bool_count(condition, "BoolNot"), 0);
    // Returned, as `exists` writes it: `if p x then true else exists p t` in tail position,
    // no flag built (10 elements, none found).
    let returned = "
let rec exists p l = match l with [] -> false | x :: t -> p x || exists p t
let input n = List.init n (fun i -> i)
let run l = exists (fun x -> x < 0) l";
    assert_eq!(bool_count(returned, "BoolOr"), 0);
    // Stored in a list: a flag per element, each one `&&` and one `not`.
    let stored = "
let rec flags l = match l with [] -> [] | x :: t -> (x > 2 && not (x = 7)) :: flags t
let input n = List.init n (fun i -> i)
let run l = flags l";
    assert_eq!(bool_count(stored, "BoolAnd"), 10);
    // `not (x = 7)` runs where x > 2: x = 3 … 9.
    assert_eq!(bool_count(stored, "BoolNot"), 7);
}
