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
    let program = dir.join("work.ml");
    std::fs::write(&program, PROGRAM).unwrap();
    let compiler = Compiler::discover(None, None).unwrap();
    let flags = vec!["-inline".to_string(), "0".to_string()];
    let runtime = RuntimeObjects::prepare(&compiler, &flags, &dir.join("rt"), 1).unwrap();
    build(
        &BuildSpec {
            program: &program,
            compiler: &compiler,
            flags: &flags,
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
    let program = dir.path().join("raise.ml");
    std::fs::write(
        &program,
        "let input n = n\nlet run n = if n > 5 then failwith \"big\" else n\n",
    )
    .unwrap();
    let compiler = Compiler::discover(None, None).unwrap();
    let runtime = RuntimeObjects::prepare(&compiler, &[], &dir.path().join("rt"), 1).unwrap();
    let binary = build(
        &BuildSpec {
            program: &program,
            compiler: &compiler,
            flags: &[],
            layout: 0,
            dir: &dir.path().join("layout-0"),
        },
        &runtime,
    )
    .unwrap();
    let err = instructions::count_batches(&valgrind, &binary.path, &[(3, 2), (10, 4)]).unwrap_err();
    assert!(err.to_string().contains("answered 2 of 4 batches"), "{err}");
}
