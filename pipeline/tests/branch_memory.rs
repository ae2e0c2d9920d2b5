//! A run's recorded branch memory is the one its counts use: a walk of coin tosses that the
//! model's own tables lose is counted as kept once the run says its machine keeps it.

use pipeline::branch_probe::{use_recorded_branch_memory, BranchMemory, ProbePoint};
use pipeline::RunDir;

/// The probe's own walk of coin tosses.
const TOSSES: &str = include_str!("../ocaml/branch_probe_toss.ml");

fn misses(size: i64) -> u64 {
    let program = semantics::Program::from_source("tosses.ml", TOSSES).unwrap();
    program.count(size).unwrap().counts["BranchMiss"]
}

#[test]
fn a_run_counts_with_the_branch_memory_its_machine_measured() {
    let dir = tempfile::tempdir().unwrap();
    let run = RunDir::new(dir.path());
    // No probe recorded (a run from before it): the model's own tables, which lose most of
    // 30 000 tosses.
    assert_eq!(use_recorded_branch_memory(&run).unwrap(), None);
    let lost = misses(30_000);
    assert!(lost > 9_000, "{lost} misses of 30 000 tosses");
    // A machine that loses 40% of 64 000 tosses and all of 128 000: it keeps about 72 000,
    // six and a half times the model's tables.
    let points = [2000u64, 32_000, 64_000, 128_000]
        .iter()
        .map(|&n| {
            let extra = match n {
                128_000 => 3.0,
                64_000 => 1.2,
                _ => 0.0,
            };
            ProbePoint {
                tosses: n,
                toss_ns: n as f64 * (1.4 + extra),
                learnt_ns: n as f64 * 1.4,
                toss_ns_by_layout: Vec::new(),
                learnt_ns_by_layout: Vec::new(),
            }
        })
        .collect();
    let memory = BranchMemory::from_points(points, 0, 16);
    let kept = memory.kept_tosses.unwrap();
    assert!((70_000.0..74_000.0).contains(&kept), "{kept}");
    rundir::write_json(&run.branch_memory_file(), &memory).unwrap();
    assert_eq!(use_recorded_branch_memory(&run).unwrap(), Some(memory));
    let kept_misses = misses(30_000);
    assert!(
        kept_misses * 10 < lost,
        "{kept_misses} misses once the machine keeps {kept:.0} tosses, {lost} before"
    );
}
