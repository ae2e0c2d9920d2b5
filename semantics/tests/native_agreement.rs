//! The interpreter's digest of `run (input n)` equals the native driver's, for every program
//! of `tests/programs` at several sizes: the counted program is the timed one.
//!
//! Needs `ocamlopt` on PATH (the `ocaml-nox` package); without it the test fails loudly.

use semantics::Program;
use std::path::PathBuf;

const SIZES: &[u64] = &[0, 1, 7, 100, 1000];

fn programs() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/programs exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ml"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 12,
        "a dozen programs at least, found {}",
        files.len()
    );
    files
}

#[test]
fn interpreter_and_native_digests_agree() {
    let mut failures = Vec::new();
    for path in programs() {
        let program = Program::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let native = ocaml_runtime::native_digests(&path, SIZES)
            .unwrap_or_else(|e| panic!("native build of {}: {e}", path.display()));
        for (&size, native_digest) in SIZES.iter().zip(&native) {
            let counted = program.count(size as i64).unwrap_or_else(|e| panic!("{e}"));
            if &counted.digest != native_digest {
                failures.push(format!(
                    "{} at size {size}: interpreter {} native {native_digest}",
                    path.display(),
                    counted.digest
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "digests differ:\n{}",
        failures.join("\n")
    );
}
