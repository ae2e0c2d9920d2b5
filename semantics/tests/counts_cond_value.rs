//! `CondValue`: a comparison whose boolean is a value is materialised by ocamlopt; in a
//! condition it is a compare and a jump. Counts computed by hand.

mod common;

use common::count_of;

#[test]
fn a_predicate_returns_its_comparison_as_a_value() {
    // `List.filter`'s predicate returns `x mod 3 = 0`: one flag per element.
    let source = "
let input n = List.init n (fun i -> i)
let run l = List.filter (fun x -> x mod 3 = 0) l
";
    assert_eq!(count_of(source, 30, "CondValue"), 30);
    assert_eq!(count_of(source, 30, "IntCondEq"), 30);
}

#[test]
fn conditions_branch_on_the_comparison_without_a_flag() {
    // `if`, `&&` and `||` in a condition, `not`, a guard, a `while` test: 0 flags.
    let source = "
let rec below k l = match l with
  | [] -> 0
  | x :: t when x > 1000 -> below k t
  | x :: t -> (if x < k && not (x = 3) || x == 7 then 1 else 0) + below k t
let input n = List.init n (fun i -> i)
let run l =
  let i = ref 0 in
  while !i < 10 do incr i done;
  below 5 l + !i
";
    assert_eq!(count_of(source, 20, "CondValue"), 0);
    assert!(count_of(source, 20, "IntCondLT") >= 20);
}

#[test]
fn a_flag_stored_bound_or_passed_is_materialised_once_per_evaluation() {
    // Each element: `x < k` consed (1); `b` bound and then tested (1, and its test is no
    // comparison); `y > 0.5` passed to `keep` (1); `x = k` as the last value of a
    // sequence... which is the list's head, not compared: 3 a element.
    let source = "
let[@inline never] keep (b : bool) = b
let rec flags k l = match l with
  | [] -> []
  | x :: t ->
    let b = x = k in
    let y = float_of_int x in
    if b then flags k t else (x < k) :: keep (y > 0.5) :: flags k t
let input n = List.init n (fun i -> i)
let run l = flags 4 l
";
    // 10 elements; `b` is true once (x = 4), and the other 9 build two flags each.
    assert_eq!(count_of(source, 10, "CondValue"), 10 + 9 * 2);
    assert_eq!(count_of(source, 10, "FloatCondGT"), 9);
}
