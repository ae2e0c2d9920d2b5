//! `JumpMiss` and `BranchMiss`: the interpreter replays a run's table jumps and `if`s through
//! model predictors, after a first pass that stands for the previous, identical run of the
//! benchmark. These tests pin what they must get right: a `match` of many arms whose arm
//! changes at random misses most jumps of a long run and few of a short one (memorised), one
//! whose arm is constant or cycles with a short period almost never; a coin-toss `if` misses
//! half the time in a long run and almost never in a short one, a biased `if` never.

mod common;

fn misses(source: &str, size: i64) -> u64 {
    common::count_of(source, size, "JumpMiss")
}

fn branch_misses(source: &str, size: i64) -> u64 {
    common::count_of(source, size, "BranchMiss")
}

fn walk(pick: &str) -> String {
    format!(
        "type shape = A of int | B of int | C of int | D of int
let make k x = if k = 0 then A x else if k = 1 then B x else if k = 2 then C x else D x
let rec build n s acc = if n = 0 then acc else build (n - 1) ((s * 1103515245 + 12345) land 1073741823) (make ({pick}) n :: acc)
let weight v = match v with A x -> x | B x -> x + 1 | C x -> x + 2 | D x -> x + 3
let rec sum l acc = match l with [] -> acc | v :: t -> sum t (acc + weight v)
let input n = build n 7 []
let run l = sum l 0"
    )
}

#[test]
fn random_arms_miss_three_jumps_in_four_and_steady_or_cyclic_ones_almost_none() {
    // Only `run` is counted: building the input costs nothing here.
    let n = 20_000;
    let random = misses(&walk("(s lsr 20) land 3"), n);
    // Three in four of a cold predictor; the warm table still holds a few.
    assert!((12_000..15_000).contains(&random), "random {random}");
    assert!(misses(&walk("2"), n) < 20);
    assert!(misses(&walk("n land 3"), n) < 100);
    // 200 random arms: the last run taught the table nearly all of them.
    let short = misses(&walk("(s lsr 20) land 3"), 200);
    assert!(short < 30, "short {short}");
}

#[test]
fn two_way_tests_are_no_table_jumps_and_miss_as_a_memorising_predictor_does() {
    // A coin-toss `if` and a random two-constructor match: no table jump anywhere.
    let source = "
type t = L of int | R of int
let rec build n s acc = if n = 0 then acc else build (n - 1) ((s * 1103515245 + 12345) land 1073741823) ((if (s lsr 20) land 1 = 0 then L n else R n) :: acc)
let rec sum l acc = match l with [] -> acc | L x :: t -> sum t (acc + x) | R x :: t -> if x land 1 = 0 then sum t acc else sum t (acc - x)
let input n = build n 3 []
let run l = sum l 0";
    assert_eq!(misses(source, 5_000), 0);
    // Per element, the coin toss `if x land 1 = 0` of the `R` cells (half of them, 100 000);
    // the loop's own tests are biased. Long runs miss up to half the tosses (a little less: the
    // short history catches some runs of the parity of consecutive R cells), short ones are
    // memorised.
    let long = branch_misses(source, 200_000);
    assert!((30_000..60_000).contains(&long), "long {long}");
    let short = branch_misses(source, 500);
    assert!(short < 15, "short {short}");
    // A biased branch: never missed once learned.
    let biased = "
let rec sum n acc = if n = 0 then acc else if n land 1023 = 5 then sum (n - 1) (acc + 1) else sum (n - 1) acc
let input n = n
let run n = sum n 0";
    assert!(branch_misses(biased, 100_000) < 150);
}

/// Coin tosses in an array, one per element.
const TOSSES: &str = "
let next s = (s * 1103515245 + 12345) land 1073741823
let tosses n seed =
  let a = Array.make n 0 in
  let s = ref seed in
  for i = 0 to n - 1 do s := next !s; a.(i) <- (!s lsr 20) land 1 done;
  a";

#[test]
fn a_while_test_and_the_first_operand_of_an_and_are_branches_of_their_own() {
    // The inner loop's test ends on a coin toss (its first operand, `!i < n`, is biased):
    // each element is tested once, so a long run misses up to half of them, a short one few
    // (the model's tables hold it; under a tenth are contexts its history does not tell apart).
    let runs = format!(
        "{TOSSES}
let input n = tosses n 5
let run a =
  let n = Array.length a in
  let i = ref 0 in
  let runs = ref 0 in
  while !i < n do
    while !i < n && a.(!i) = 1 do incr i done;
    incr runs;
    incr i
  done;
  !runs"
    );
    let long = branch_misses(&runs, 200_000);
    assert!((60_000..110_000).contains(&long), "while, long {long}");
    let short = branch_misses(&runs, 500);
    assert!(short < 50, "while, short {short}");
    // `a && b` in a condition is two branches: the first a coin toss at every element, the
    // second one at half of them. Counted as one branch taken in a quarter of the elements,
    // the misses would be at most a quarter of them; with both, half of the first's tosses
    // and half of the second's: three quarters.
    let both = format!(
        "{TOSSES}
let input n = (tosses n 5, tosses n 9)
let run (a, b) =
  let k = ref 0 in
  for i = 0 to Array.length a - 1 do
    if a.(i) = 1 && b.(i) = 1 then incr k
  done;
  !k"
    );
    let n = 200_000;
    let misses = branch_misses(&both, n);
    assert!(
        (120_000..160_000).contains(&misses),
        "&&: {misses} misses over {n} elements"
    );
}

/// An input of pseudo-random numbers, whose low bits are coin tosses, and the divisor 2.
const COIN_TOSSES: &str = "let next s = (s * 1103515245 + 12345) land 1073741823
let input n =
  let a = Array.make n 0 in
  let s = ref 7 in
  for i = 0 to n - 1 do s := next !s; a.(i) <- !s lsr 20 done;
  (a, 2)";

#[test]
fn a_miss_waits_for_its_condition() {
    // The same coin tosses, decided by `a.(i) land 1 = 0` or by `a.(i) mod k = 0` with `k` 2
    // from the input: the same outcomes, the same misses. Each miss loses the cycles its
    // condition takes from the iteration's start, counted as ChainCycle: the element's load
    // (its index 1 cycle, the load 5), then `land` 1 or `mod` 22, then the comparison 2 — 9
    // cycles or 30. The loop carries only `c` (1 cycle, under its issue): no chain of its own.
    let tosses = |test: &str| {
        format!(
            "{COIN_TOSSES}
let run (a, k) =
  let c = ref 0 in
  for i = 0 to Array.length a - 1 do if {test} then incr c done;
  !c"
        )
    };
    let (land, modulo) = (tosses("a.(i) land 1 = 0"), tosses("a.(i) mod k = 0"));
    let n = 50_000;
    let missed = branch_misses(&land, n);
    assert!(missed > n as u64 / 4, "{missed} misses");
    assert_eq!(branch_misses(&modulo, n), missed);
    let chain = |source: &str| common::count_of(source, n, "ChainCycle");
    assert_eq!(chain(&land), 9 * missed);
    assert_eq!(chain(&modulo), 30 * missed);
}

#[test]
fn a_while_test_that_misses_waits_for_its_condition_too() {
    // From each element, the run of even elements that follows it, tested by `land 1` or by
    // `mod k` with `k` 2: the same outcomes. The `while` test is the `&&` of `!j < n`, 2
    // cycles from `j`, which the loop carries, and the element's test: `j`'s index 1, the load
    // 5, then `land` 1 or `mod` 22, and the comparison 2 — 9 cycles or 30, 21 apart per miss.
    // (The `&&`'s first operand, true but at the array's end, is learnt.)
    let runs = |test: &str| {
        format!(
            "{COIN_TOSSES}
let run (a, k) =
  let n = Array.length a in
  let c = ref 0 in
  for i = 0 to n - 1 do
    let j = ref i in
    while !j < n && {test} do incr j done;
    c := !c + !j - i
  done;
  !c"
        )
    };
    let (land, modulo) = (runs("a.(!j) land 1 = 0"), runs("a.(!j) mod k = 0"));
    let n = 50_000;
    let missed = branch_misses(&land, n);
    assert!(missed > n as u64 / 4, "{missed} misses");
    assert_eq!(branch_misses(&modulo, n), missed);
    let chain = |source: &str| common::count_of(source, n, "ChainCycle");
    assert_eq!(chain(&modulo) - chain(&land), 21 * missed);
}

#[test]
fn a_table_jump_miss_waits_for_its_value_and_its_tag() {
    // `match a.(i) with …` through a table: the element's index 1, its load 5, the tag's load
    // 5 — 11 cycles a miss, counted as ChainCycle. The loop carries only `s` (1 cycle).
    let source = "type shape = A of int | B of int | C of int | D of int
let next s = (s * 1103515245 + 12345) land 1073741823
let input n =
  let a = Array.make n (A 0) in
  let s = ref 7 in
  for i = 0 to n - 1 do
    s := next !s;
    let k = (!s lsr 20) land 3 in
    a.(i) <- (if k = 0 then A i else if k = 1 then B i else if k = 2 then C i else D i)
  done;
  a
let run a =
  let s = ref 0 in
  for i = 0 to Array.length a - 1 do
    s := !s + (match a.(i) with A x -> x | B x -> x + 1 | C x -> x + 2 | D x -> x + 3)
  done;
  !s";
    let n = 50_000;
    let missed = misses(source, n);
    assert!(missed > n as u64 / 2, "{missed} misses");
    assert_eq!(common::count_of(source, n, "ChainCycle"), 11 * missed);
}
