//! Counts split by the function that ran them (`Program::count_by_function`), as callgrind
//! splits instructions: what `mlcost explain` sets side by side.

mod common;

use semantics::{FunctionCounts, Program, OUTSIDE};
use std::collections::BTreeMap;

fn by_function(source: &str, size: i64) -> (BTreeMap<String, u64>, Vec<FunctionCounts>) {
    let program = Program::from_source("test.ml", source).unwrap_or_else(|e| panic!("{e}"));
    let (result, split) = program
        .count_by_function(size)
        .unwrap_or_else(|e| panic!("{e}"));
    (result.counts, split)
}

fn of<'a>(split: &'a [FunctionCounts], function: &str) -> &'a BTreeMap<String, u64> {
    &split
        .iter()
        .find(|f| f.function == function)
        .unwrap_or_else(|| panic!("no {function} in {split:#?}"))
        .counts
}

const SUM_OF_DOUBLES: &str = "
let[@inline never] double x = x + x
let rec sum n acc = if n = 0 then acc else sum (n - 1) (acc + double n)
let input n = n
let run n = sum n 0
";

#[test]
fn every_count_belongs_to_one_function_and_they_add_up_to_the_run() {
    let (total, split) = by_function(SUM_OF_DOUBLES, 10);
    let mut added: BTreeMap<String, u64> = BTreeMap::new();
    for f in &split {
        for (c, n) in &f.counts {
            *added.entry(c.clone()).or_default() += n;
        }
    }
    assert_eq!(added, total);
    // The same counts as without the split.
    let program = Program::from_source("test.ml", SUM_OF_DOUBLES).unwrap();
    assert_eq!(program.count(10).unwrap().counts, total);
}

#[test]
fn a_construct_goes_to_the_code_that_runs_it() {
    let (_, split) = by_function(SUM_OF_DOUBLES, 10);
    // `double` adds once per call, and calls nothing.
    let double = common::source_level(of(&split, "double").clone());
    assert_eq!(double, BTreeMap::from([("IntAdd".to_string(), 10)]));
    // `sum` tests n 11 times, subtracts and adds 10 times, calls `double` 10 times and jumps
    // back to its head 10 times; the call is the caller's.
    let sum = of(&split, "sum");
    assert_eq!(sum["IntCondEq"], 11);
    assert_eq!(sum["IntSub"], 10);
    assert_eq!(sum["IntAdd"], 10);
    assert_eq!(sum["FunApp"], 10);
    assert_eq!(sum["SelfTailApp"], 10);
    // `sum` keeps `acc` across the call: its frame is set up once, on entry, not per jump.
    assert_eq!(sum.get("Frame"), Some(&1));
    // `run`'s one tail call; the driver's fixed cost is outside every function.
    assert_eq!(of(&split, "run").get("TailApp"), Some(&1));
    assert_eq!(of(&split, OUTSIDE).get("Base"), Some(&1));
    assert!(!of(&split, "run").contains_key("Base"));
}

#[test]
fn stdlib_functions_are_named_as_their_symbols_are() {
    // `List.map` as list.ml (4.13) writes it calls `f` once per element, inside `map`;
    // `succ` is the caller's closure, an anonymous function.
    let source = "
let input n = List.init n (fun i -> i)
let run l = List.map (fun x -> x + 1) l
";
    let (_, split) = by_function(source, 7);
    let map = of(&split, "List.map");
    assert_eq!(map["FunApp"], 7 + 7, "{map:?}"); // f a, and map f l
    let lambda = common::source_level(of(&split, "fun").clone());
    assert_eq!(lambda.get("IntAdd"), Some(&7), "{lambda:?}");
}

#[test]
fn an_exception_hands_the_counts_back_to_the_handler() {
    // `find` raises from inside the recursion; what the handler runs is `run`'s.
    let source = "
let rec find n = if n = 0 then raise Not_found else 1 + find (n - 1)
let input n = n
let run n = try find n with Not_found -> n * 3 + 1
";
    let (_, split) = by_function(source, 5);
    let run = of(&split, "run");
    assert_eq!(run.get("TryWith"), Some(&1), "{run:?}");
    assert_eq!(run.get("IntAdd"), Some(&1), "{run:?}");
    let find = of(&split, "find");
    assert_eq!(find.get("Raise"), Some(&1), "{find:?}");
    assert_eq!(find["IntCondEq"], 6);
    assert!(!find.contains_key("TryWith"));
}
