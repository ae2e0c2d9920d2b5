//! Real valgrind on real binaries built with the real `ocamlopt`: instructions per run are
//! deterministic and proportional to the work. Without valgrind these tests say so and pass,
//! except on CI (`CI=true`), where a missing valgrind is a failure.

use instructions::{measure_binary, Valgrind};
use ocaml_runtime::{build, BuildSpec, BuiltBinary, Compiler, RuntimeObjects};
use std::path::Path;

fn valgrind() -> Option<Valgrind> {
    let found = instructions::available();
    if found.is_none() {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "valgrind is missing on CI: install it (scripts/setup.sh)"
        );
        eprintln!("valgrind is not installed: instruction tests skipped");
    }
    found
}

/// `run n` does `n` iterations of a loop that calls a function: work exactly proportional to
/// `n`. (No allocation: how often the minor heap fills depends on the batch, which makes a
/// collection's share of a run close to, not exactly, proportional.)
const PROGRAM: &str = "\
let[@inline never] step acc i = (acc * 31 + i) land 0xffff
let rec go acc i n = if i = n then acc else go (step acc i) (i + 1) n
let input n = n
let run n = go 0 0 n
";

fn build_program(dir: &Path) -> BuiltBinary {
    build_source(
        dir,
        "work",
        PROGRAM,
        &["-inline".to_string(), "0".to_string()],
    )
}

/// `source` written to `dir/name.ml` and built with `flags` in layout 0.
fn build_source(dir: &Path, name: &str, source: &str, flags: &[String]) -> BuiltBinary {
    let program = dir.join(format!("{name}.ml"));
    std::fs::write(&program, source).unwrap();
    let compiler = Compiler::discover(None, None).unwrap();
    let runtime = RuntimeObjects::prepare(&compiler, flags, &dir.join("rt"), 1).unwrap();
    build(
        &BuildSpec {
            program: &program,
            compiler: &compiler,
            flags,
            layout: 0,
            dir: &dir.join("layout-0"),
        },
        &runtime,
    )
    .unwrap()
}

fn per_run(valgrind: &Valgrind, binary: &Path, sizes: &[u64]) -> Vec<f64> {
    measure_binary(valgrind, binary, sizes)
        .unwrap()
        .iter()
        .map(|c| c.per_run())
        .collect()
}

#[test]
fn instructions_per_run_are_deterministic_and_proportional_to_the_work() {
    let Some(valgrind) = valgrind() else { return };
    let dir = tempfile::tempdir().unwrap();
    let binary = build_program(dir.path()).path;

    // Sizes large enough that a run's fixed part (the call of `run`, ~0.1% here) does not
    // blur the proportion.
    let first = per_run(&valgrind, &binary, &[20_000, 40_000]);
    let again = per_run(&valgrind, &binary, &[20_000]);
    let (once, twice) = (first[0], first[1]);
    assert!(once > 20_000.0, "{once} instructions for 20000 iterations");
    let drift = (once - again[0]).abs() / once;
    assert!(
        drift <= 0.001,
        "{once} then {}: {:.4}%",
        again[0],
        drift * 100.0
    );

    let ratio = twice / once;
    assert!(
        (ratio - 2.0).abs() < 0.01,
        "2x the work: {twice} / {once} = {ratio}"
    );
}

#[test]
fn a_program_that_raises_is_an_error_not_a_count() {
    let Some(valgrind) = valgrind() else { return };
    let dir = tempfile::tempdir().unwrap();
    let binary = build_source(
        dir.path(),
        "raise",
        "let input n = n\nlet run n = if n > 5 then failwith \"big\" else n\n",
        &[],
    );
    let plan = [(3, Some(2)), (10, Some(4))];
    let err = instructions::count_batches(&valgrind, &binary.path, &plan).unwrap_err();
    // Size 3 is counted; the probe of size 10 raises.
    assert!(
        err.to_string()
            .contains("answered `batch 1` with exception: Failure(\"big\")"),
        "{err}"
    );
}

/// `down n` nests `n` frames of 16 bytes (`subq $8, %rsp` and the return address).
const DEEP: &str = "\
let rec down n = if n = 0 then 0 else 1 + down (n - 1)
let input n = n
let run n = down n
";

/// A million nested calls (16 MB of 16-byte frames, twice the default stack limit) run under
/// valgrind as they do when timed: about as many instructions a level at 10^6 as at 10^3.
#[test]
fn a_recursion_deeper_than_the_default_stack_limit_is_counted() {
    let Some(valgrind) = valgrind() else { return };
    let dir = tempfile::tempdir().unwrap();
    let binary = build_source(dir.path(), "deep", DEEP, &[]);
    let runs = per_run(&valgrind, &binary.path, &[1000, 1_000_000]);
    let (shallow, deep) = (runs[0] / 1e3, runs[1] / 1e6);
    assert!(
        deep > 2.0 && (deep / shallow - 1.0).abs() < 0.05,
        "instructions a level: {shallow} at 1000, {deep} at 10^6"
    );
}

/// `run n` conses a fresh list of `n` elements (3 words each) and keeps it live until the run
/// ends: at 100 000 a run fills more than a minor heap (256 k words), so collections fall
/// inside runs and promote part of a live list; at 20 000, a collection every four or five
/// runs, at a point that depends on the batch and on what ran before.
const CONS: &str = "\
let rec build n = if n = 0 then [] else n :: build (n - 1)
let input n = n
let run n = List.length (build n)
";

#[test]
fn collections_cancel_whatever_the_batches_and_the_heap_before_them() {
    let Some(valgrind) = valgrind() else { return };
    let dir = tempfile::tempdir().unwrap();
    let binary = build_source(dir.path(), "cons", CONS, &[]).path;
    let count = |plan: &[(u64, Option<u64>)]| {
        instructions::count_batches(&valgrind, &binary, plan).unwrap()
    };
    // Session A: each size on a fresh process, batches chosen from the probe. Session B: the
    // sizes in the other order after a small one, so each starts from another heap, and
    // batches of other sizes, so collections fall at other runs.
    let a = count(&[(20_000, None), (100_000, None)]);
    let b = count(&[(1_000, Some(64)), (100_000, Some(3)), (20_000, Some(5))]);
    for (size, a, b) in [(20_000, a[0], b[2]), (100_000, a[1], b[1])] {
        eprintln!(
            "size {size}: K {} vs {}; per run {} vs {}; collector {} vs {}",
            a.runs_low,
            b.runs_low,
            a.per_run(),
            b.per_run(),
            a.gc_per_run(),
            b.gc_per_run()
        );
        assert_ne!(a.runs_low, b.runs_low, "the two sessions use other batches");
        // The test means something only if collections happen inside the batches.
        assert!(
            a.gc_per_run() > 0.01 * a.per_run() && b.gc_per_run() > 0.01 * b.per_run(),
            "size {size}: the collector's share is {} and {} of {} per run",
            a.gc_per_run(),
            b.gc_per_run(),
            a.per_run()
        );
        // The mutator's instructions: a few per batch at most (the branches into the
        // collector, a collection more or less per batch; 3.4 measured), far below 10⁻⁴ of a
        // run.
        assert!(
            (a.per_run() - b.per_run()).abs() <= 8.0,
            "size {size}: {} then {} instructions per run",
            a.per_run(),
            b.per_run()
        );
        // And the probe, the first run of its process, agrees with the slope.
        assert!(
            (a.probe as f64 - a.per_run()).abs() <= 0.001 * a.per_run(),
            "size {size}: probe {} vs {} per run",
            a.probe,
            a.per_run()
        );
    }
}
