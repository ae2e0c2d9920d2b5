//! `BranchMiss`: the interpreter runs a model branch predictor beside the program. These
//! tests pin what it must get right: a coin-toss branch is missed about half the time, a
//! loop test or a short pattern almost never, and a `match` of many arms is a jump whose
//! target is missed when it changes at random.

use semantics::Program;

fn misses(source: &str, size: i64) -> u64 {
    let result = Program::from_source("t.ml", source)
        .unwrap()
        .count(size)
        .unwrap();
    result.counts.get("BranchMiss").copied().unwrap_or(0)
}

fn loop_with_test(test: &str) -> String {
    format!(
        "let rec loop n s acc =
  if n = 0 then acc
  else
    let t = (s * 1103515245 + 12345) land 1073741823 in
    if {test} then loop (n - 1) t (acc + 1) else loop (n - 1) t (acc + 3)
let input n = n
let run n = loop n 42 0"
    )
}

#[test]
fn a_coin_toss_is_missed_half_the_time_and_a_pattern_almost_never() {
    let n = 20_000;
    let coin = misses(&loop_with_test("s land 1024 = 0"), n);
    let biased = misses(&loop_with_test("s land 7168 = 0"), n);
    let pattern = misses(&loop_with_test("n land 3 = 0"), n);
    assert!((8_000..12_000).contains(&coin), "coin {coin}");
    // Taken one time in eight: the predictor bets on "not taken" and misses the eighth.
    assert!((1_500..4_000).contains(&biased), "biased {biased}");
    assert!(pattern < 200, "pattern {pattern}");
}

#[test]
fn a_match_on_random_constructors_misses_its_jump_and_a_steady_one_does_not() {
    let program = |pick: &str| {
        format!(
            "type shape = A of int | B of int | C of int | D of int
let make k x = if k = 0 then A x else if k = 1 then B x else if k = 2 then C x else D x
let rec build n s acc = if n = 0 then acc else build (n - 1) ((s * 1103515245 + 12345) land 1073741823) (make ({pick}) n :: acc)
let weight v = match v with A x -> x | B x -> x + 1 | C x -> x + 2 | D x -> x + 3
let rec sum l acc = match l with [] -> acc | v :: t -> sum t (acc + weight v)
let input n = build n 7 []
let run l = sum l 0"
        )
    };
    // Only `run` is counted: building the input costs nothing here.
    let n = 8_000;
    let random = misses(&program("(s lsr 9) land 3"), n);
    let steady = misses(&program("2"), n);
    // Four targets at random: three times in four the last target is wrong.
    assert!(random > n as u64 / 2, "random {random}");
    assert!(steady < 100, "steady {steady}");
}
