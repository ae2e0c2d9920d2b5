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
