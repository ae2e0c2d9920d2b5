//! `AllocMerged`: blocks that ocamlopt allocates together with the ones before them (its
//! Comballoc pass), by hand and against the real compiler's assembly.

mod common;

use common::count_of;
use std::process::Command;

fn merged(source: &str, size: i64) -> u64 {
    count_of(source, size, "AllocMerged")
}

#[test]
fn blocks_with_nothing_between_them_are_one_allocation() {
    // Per level: `y :: ry`, `x :: rx` and the pair after the recursive call: 2 join. The
    // empty case's `([], [])` is a constant.
    let split = "
let rec pairs n acc = if n = 0 then acc else pairs (n - 1) ((n, n) :: acc)
let input n = pairs n []
let rec split l = match l with
  | [] -> ([], [])
  | (x, y) :: t -> let (rx, ry) = split t in (x :: rx, y :: ry)
let run l = split l";
    assert_eq!(merged(split, 7), 2 * 7);
    // A list literal's cells (`[2]` is a constant tail: two cells) and the cell holding it:
    // 2 join per call; a tuple and its cell: 1.
    let literal = "
let rec build n acc = if n = 0 then acc else build (n - 1) ([n; n + 1; 2] :: acc)
let input n = n
let run n = build n []";
    assert_eq!(merged(literal, 5), 5 * 2);
    let pairs = "
let rec pairs n acc = if n = 0 then acc else pairs (n - 1) ((n, n) :: acc)
let input n = n
let run n = pairs n []";
    assert_eq!(merged(pairs, 5), 5);
}

#[test]
fn a_call_or_a_branch_between_blocks_starts_a_new_allocation() {
    // Right to left: `f n`'s call comes between the tuple's inner cell and the tuple.
    let call = "
let[@inline never] f n = n + 1
let input n = n
let run n = (f n :: [], n :: [])";
    // `n :: []` is allocated first, then f is called, then `f n :: []` and the tuple: 1 joins.
    assert_eq!(merged(call, 3), 1);
    // An `if` in an operand ends the run; a division by a variable tests for zero (a branch),
    // one by a constant does not.
    let branch = "
let input n = n
let run n = ((if n > 2 then 1 else 2) :: [], n :: [])";
    assert_eq!(merged(branch, 3), 1);
    let division = "
let input n = n
let run n = ([n / (n - 1)], [n])";
    assert_eq!(merged(division, 3), 1);
    let by_constant = "
let input n = n
let run n = ([n / 3], [n])";
    assert_eq!(merged(by_constant, 3), 2);
}

#[test]
fn floats_boxed_for_a_block_join_it() {
    // Two new floats boxed for the pair, then the pair: one allocation of three blocks.
    let source = "
let input n = float_of_int n
let run x = (x *. 2.0, x +. 1.0)";
    assert_eq!(merged(source, 3), 2);
}

#[test]
fn a_run_stops_at_the_largest_minor_block() {
    // Two tuples of 200 fields are 402 words: more than 257, so two allocations.
    let fields = |k: usize| {
        (0..200)
            .map(|i| format!("n + {}", i + k))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let big = format!(
        "let input n = n\nlet run n = (({}), ({}))",
        fields(0),
        fields(1)
    );
    // The second big tuple does not join the first; the outer pair (3 words) joins it.
    assert_eq!(merged(&big, 1), 1);
    let small = "let input n = n\nlet run n = ((n, n), (n, n))";
    assert_eq!(merged(small, 1), 2);
}

/// Blocks and allocations in `run`'s assembly: headers stored below a new block (`movq
/// $header, -8(reg)`) and decrements of the allocation pointer r15.
fn native_allocations(source: &str) -> (usize, usize) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("comb.ml");
    std::fs::write(&path, source).unwrap();
    let status = Command::new("ocamlopt")
        .args(["-inline", "0", "-S", "-c", "comb.ml"])
        .current_dir(dir.path())
        .status()
        .expect("ocamlopt runs");
    assert!(status.success(), "ocamlopt failed on {source}");
    let assembly = std::fs::read_to_string(dir.path().join("comb.s")).unwrap();
    let mut in_run = false;
    let (mut blocks, mut allocations) = (0, 0);
    for line in assembly.lines() {
        if line.starts_with("camlComb__run_") && line.ends_with(':') {
            in_run = true;
        } else if in_run && line.contains(".cfi_endproc") {
            break;
        } else if in_run {
            let line = line.trim();
            if line.starts_with("sub") && line.ends_with("%r15") {
                allocations += 1;
            }
            if line.starts_with("movq\t$") && line.contains(", -8(") {
                blocks += 1;
            }
        }
    }
    (blocks, allocations)
}

#[test]
fn straight_line_code_allocates_as_often_as_the_native_code() {
    // Each `run` runs straight through once: its blocks less the merged ones are the
    // allocations ocamlopt emitted.
    let programs = [
        "let input n = n\nlet run n = (n, [n; n + 1], Some n)",
        "let input n = float_of_int n\nlet run x = (x *. 2.0, x +. 1.0, [x])",
        "let[@inline never] f n = n + 1\nlet input n = n\nlet run n = (f n :: [], n :: [], (n, f n))",
        "let input n = n\nlet run n = ((if n > 2 then 1 else 2) :: [], n :: [])",
        "let input n = n\nlet run n = ([n / (n - 1)], [n], [n / 4])",
        "type r = { mutable a : int; b : int list }\nlet input n = n\nlet run n = ({ a = n; b = [n] }, ref n)",
        "let input n = (n, n)\nlet run (a, b) = compare (a, b) (b, a) :: [a; b]",
    ];
    for source in programs {
        let program = semantics::Program::from_source("comb.ml", source).unwrap();
        let counts = program.count(3).unwrap().counts;
        let blocks: u64 = ["Cons", "TupleHead", "VariantHead", "FloatBox", "FunDef"]
            .iter()
            .map(|c| counts.get(*c).copied().unwrap_or(0))
            .sum();
        let merged = counts.get("AllocMerged").copied().unwrap_or(0);
        let (native_blocks, native_allocations) = native_allocations(source);
        assert_eq!(blocks as usize, native_blocks, "blocks of {source}");
        assert_eq!(
            (blocks - merged) as usize,
            native_allocations,
            "allocations of {source}"
        );
    }
}

#[test]
fn a_record_holds_its_boxed_float_fields_and_joins_with_them() {
    // `{ x = a *. 2.0; n }`: the float is boxed for the record (2 words), then the record (3):
    // one allocation of five words, as a tuple holding the float would be.
    let source = "
type r = { x : float; n : int }
let input n = float_of_int n
let run a = { x = a *. 2.0; n = 1 }";
    let program = semantics::Program::from_source("rec.ml", source).unwrap();
    let result = program.count(3).unwrap();
    assert_eq!(result.counts.get("FloatBox"), Some(&1));
    assert_eq!(result.counts.get("AllocMerged"), Some(&1));
    assert_eq!(result.allocation.words, 5);
}
