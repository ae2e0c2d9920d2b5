//! Real `ocamlopt`, real binaries: building, compiler errors, layouts, and the C digest
//! agreeing with the Rust one.

use ocaml_runtime::build::symbol_address;
use ocaml_runtime::digest::Digest;
use ocaml_runtime::{build, native_digests, BuildError, BuildSpec, Compiler, RuntimeObjects};
use std::path::Path;

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn flags() -> Vec<String> {
    vec!["-inline".into(), "0".into()]
}

#[test]
fn c_digest_matches_rust_digest_on_a_mixed_value() {
    let tmp = tempfile::tempdir().unwrap();
    let prog = write(
        tmp.path(),
        "mixed.ml",
        "type t = A | B of int * t | C of (int * int)\n\
         let input n = n\n\
         let run n = ([n; 2], (3.5, true), B (7, A), C (1, -n), Some ())\n",
    );
    let native = native_digests(&prog, &[5]).unwrap();

    let mut d = Digest::new();
    d.block(0, 5);
    // [5; 2]
    d.block(0, 2);
    d.immediate(5);
    d.block(0, 2);
    d.immediate(2);
    d.immediate(0);
    // (3.5, true)
    d.block(0, 2);
    d.float(3.5);
    d.immediate(1);
    // B (7, A): second non-constant constructor? No: B is the first non-constant one (tag 0).
    d.block(0, 2);
    d.immediate(7);
    d.immediate(0);
    // C (1, -5): tag 1, one field holding a tuple
    d.block(1, 1);
    d.block(0, 2);
    d.immediate(1);
    d.immediate(-5);
    // Some ()
    d.block(0, 1);
    d.immediate(0);
    assert_eq!(native, vec![d.finish()]);
}

#[test]
fn digest_changes_with_size_and_walks_long_lists() {
    let tmp = tempfile::tempdir().unwrap();
    let prog = write(
        tmp.path(),
        "build.ml",
        "let rec build n acc = if n = 0 then acc else build (n - 1) (n :: acc)\n\
         let input n = n\nlet run n = build n []\n",
    );
    let digests = native_digests(&prog, &[3, 4, 1_000_000]).unwrap();
    let mut expected = Digest::new();
    for i in 1..=3 {
        expected.block(0, 2);
        expected.immediate(i);
    }
    expected.immediate(0);
    assert_eq!(digests[0], expected.finish());
    assert_ne!(digests[0], digests[1]);
    assert_eq!(digests[2].len(), 16);
}

fn build_one(
    prog: &Path,
    layout: u32,
    out: &Path,
) -> Result<ocaml_runtime::BuiltBinary, BuildError> {
    let compiler = Compiler::discover(None, None).unwrap();
    let runtime = RuntimeObjects::prepare(&compiler, &flags(), &out.join("rt"), 4).unwrap();
    build(
        &BuildSpec {
            program: prog,
            compiler: &compiler,
            flags: &flags(),
            layout,
            dir: &out.join(format!("layout-{layout}")),
        },
        &runtime,
    )
}

#[test]
fn syntax_error_names_the_users_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let prog = write(
        tmp.path(),
        "broken.ml",
        "let input n = n\n\nlet run x = x +\n",
    );
    let err = build_one(&prog, 0, tmp.path()).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, BuildError::Compile { .. }), "{msg}");
    assert!(
        msg.contains("broken.ml:4") || msg.contains("broken.ml:3"),
        "{msg}"
    );
    assert!(msg.to_lowercase().contains("syntax error"), "{msg}");
}

#[test]
fn missing_run_is_a_shape_error() {
    let tmp = tempfile::tempdir().unwrap();
    let prog = write(tmp.path(), "norun.ml", "let input n = n\n");
    let err = build_one(&prog, 0, tmp.path()).unwrap_err();
    assert!(matches!(err, BuildError::Shape { .. }), "{err}");
    assert!(err.to_string().contains("no `run`"), "{err}");
}

#[test]
fn layouts_move_the_program_through_the_four_16_byte_phases_of_a_cache_line() {
    let tmp = tempfile::tempdir().unwrap();
    let prog = write(
        tmp.path(),
        "fapp.ml",
        "let[@inline never] id n = n\n\
         let rec fapp x = if x = 0 then 0 else fapp (id (id (id (id (x - 1)))))\n\
         let input n = n\nlet run n = fapp n\n",
    );
    let mut addresses = Vec::new();
    for layout in 0..4 {
        let bin = build_one(&prog, layout, tmp.path()).unwrap();
        assert!(bin.assembly.is_file());
        let addr = symbol_address(&bin.path, "camlBench_program__fapp_")
            .unwrap()
            .expect("fapp symbol");
        addresses.push(addr);
        assert_eq!(
            addr - addresses[0],
            bin.layout_offset,
            "addresses {addresses:x?}"
        );
    }
    let phases: Vec<u64> = addresses.iter().map(|a| (a - addresses[0]) % 64).collect();
    assert_eq!(phases, vec![0, 16, 32, 48], "addresses {addresses:x?}");
}

/// The older compiler `scripts/fetch-old-ocaml.sh` unpacks (set by `test.sh`).
fn old_compiler() -> std::path::PathBuf {
    let path = std::env::var_os("MLCOST_OLD_OCAMLOPT")
        .filter(|p| !p.is_empty())
        .expect("MLCOST_OLD_OCAMLOPT: the second compiler (scripts/fetch-old-ocaml.sh prints it)");
    std::path::PathBuf::from(path)
}

#[test]
#[ignore = "needs a second OCaml release in MLCOST_OLD_OCAMLOPT; test.sh fetches one and runs it"]
fn a_compiler_unpacked_into_another_prefix_uses_its_own_library() {
    let path = old_compiler();
    let old = Compiler::discover(Some("old"), Some(&path)).unwrap();
    let lib = old
        .ocamllib
        .clone()
        .expect("a relocated compiler gets OCAMLLIB");
    assert!(lib.join("stdlib.cmxa").is_file());
    let current = Compiler::discover(None, None).unwrap();
    assert_ne!(old.version, current.version);

    let tmp = tempfile::tempdir().unwrap();
    let prog = write(tmp.path(), "sum.ml", "let rec sum n = if n = 0 then 0 else n + sum (n - 1)\nlet input n = n\nlet run n = (sum n, [n])\n");
    let runtime = RuntimeObjects::prepare(&old, &flags(), &tmp.path().join("rt"), 2).unwrap();
    let bin = build(
        &BuildSpec {
            program: &prog,
            compiler: &old,
            flags: &flags(),
            layout: 1,
            dir: &tmp.path().join("b"),
        },
        &runtime,
    )
    .unwrap();
    let old_digest =
        ocaml_runtime::digests_of_binary(&bin.path, &[100], std::time::Duration::from_secs(20))
            .unwrap();
    assert_eq!(old_digest[0].1, native_digests(&prog, &[100]).unwrap()[0]);
}
