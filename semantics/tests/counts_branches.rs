//! `JumpMiss`: the interpreter runs a model of the processor's indirect-jump predictor beside
//! the program. These tests pin what it must get right: a `match` of many arms whose arm
//! changes at random misses about three jumps in four, one whose arm is constant or cycles
//! with a short period almost never, and two-way tests are not counted at all.

mod common;

fn misses(source: &str, size: i64) -> u64 {
    common::count_of(source, size, "JumpMiss")
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
    let n = 8_000;
    let random = misses(&walk("(s lsr 20) land 3"), n);
    assert!((5_200..6_800).contains(&random), "random {random}");
    assert!(misses(&walk("2"), n) < 20);
    assert!(misses(&walk("n land 3"), n) < 100);
}

#[test]
fn two_way_tests_are_not_counted() {
    // A coin-toss `if` and a random two-constructor match: no table jump anywhere.
    let source = "
type t = L of int | R of int
let rec build n s acc = if n = 0 then acc else build (n - 1) ((s * 1103515245 + 12345) land 1073741823) ((if (s lsr 20) land 1 = 0 then L n else R n) :: acc)
let rec sum l acc = match l with [] -> acc | L x :: t -> sum t (acc + x) | R x :: t -> if x land 1 = 0 then sum t acc else sum t (acc - x)
let input n = build n 3 []
let run l = sum l 0";
    assert_eq!(misses(source, 5_000), 0);
}
