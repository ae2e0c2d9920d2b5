//! The branch probe on this machine, with the real compiler: it finds a figure inside its
//! ladder, and a suite started again over a probe already taken measures it again. A process of
//! its own, since the probe sets the figure every count in the process uses.

use pipeline::branch_probe::{probe_branch_memory, use_recorded_branch_memory};
use pipeline::RunDir;

#[test]
fn the_probe_measures_this_machine_and_measures_it_again_over_a_left_probe() {
    let dir = tempfile::tempdir().unwrap();
    let run = RunDir::new(dir.path());
    let compiler = ocaml_runtime::CompilerSetup {
        compiler: ocaml_runtime::Compiler::discover(None, None).expect("ocamlopt on PATH"),
        flags: Vec::new(),
    };
    let cpu = ocaml_runtime::process::default_cpu();
    let first = probe_branch_memory(&run, &compiler, cpu, &mut harness::Silent).unwrap();
    // A real predictor keeps thousands of tosses, not the whole ladder: the longest walk
    // loses to it, and the figure lies inside the ladder.
    let longest = first.points.last().unwrap();
    assert!(longest.toss_ns > 1.3 * longest.learnt_ns, "{first:?}");
    let kept = first.kept_tosses.expect("a figure");
    assert!((1000.0..128_000.0).contains(&kept), "{first:?}");
    assert_eq!(first.kept_tosses_by_layout.len(), 2, "{first:?}");
    // As a suite killed after its probe and started again finds it: the probe's samples are
    // there, and the probe runs again rather than failing on them.
    assert!(run.branch_probe_dir().join("samples.jsonl").is_file());
    let second = probe_branch_memory(&run, &compiler, cpu, &mut harness::Silent).unwrap();
    assert!(second.kept_tosses.is_some(), "{second:?}");
    assert_eq!(
        use_recorded_branch_memory(&run).unwrap().as_ref(),
        Some(&second)
    );
}
