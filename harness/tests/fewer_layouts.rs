//! A program built in fewer layouts than the plan's (a suite's controls) is measured in the
//! layouts it has: its visits and its estimate's layouts stop there, the others' do not.

use harness::samples::VisitLog;
use harness::sampling::SamplingConfig;
use harness::{BenchPlan, BenchProgram, CompilerSetup, Silent};
use ocaml_runtime::Compiler;
use std::time::Duration;

#[test]
fn a_program_built_in_fewer_layouts_is_measured_in_those() {
    let tmp = tempfile::tempdir().unwrap();
    let program = |name: &str, body: &str| {
        let path = tmp.path().join(format!("{name}.ml"));
        std::fs::write(&path, body).unwrap();
        BenchProgram {
            name: name.into(),
            path,
            sizes: vec![200],
        }
    };
    let plan = BenchPlan {
        programs: vec![
            program(
                "sum",
                "let rec sum n = if n = 0 then 0 else n + sum (n - 1)\nlet input n = n\nlet run n = sum n\n",
            ),
            program(
                "count",
                "let rec count n acc = if n = 0 then acc else count (n - 1) (acc + 1)\nlet input n = n\nlet run n = count n 0\n",
            ),
        ],
        compilers: vec![CompilerSetup {
            compiler: Compiler::discover(None, None).expect("ocamlopt on PATH"),
            flags: vec!["-inline".into(), "0".into()],
        }],
        layouts: 3,
        sampling: SamplingConfig {
            quota: Duration::from_millis(20),
            rounds: 2,
            ..SamplingConfig::default()
        },
        cpu: ocaml_runtime::process::default_cpu(),
        out_dir: tmp.path().join("run"),
        canary_reference: None,
    };
    let mut binaries = harness::bench::build_all(&plan, &mut Silent).unwrap();
    // `count` as a suite's control: built in one layout only.
    binaries[0][1].truncate(1);
    let outcome = harness::measure_built(&plan, &binaries, false, &mut Silent).unwrap();
    let visits = VisitLog::read_all(&plan.out_dir.join("visits.jsonl")).unwrap();
    let layouts_visited = |name: &str| {
        let mut l: Vec<u32> = visits
            .iter()
            .filter(|v| v.key.benchmark == name)
            .map(|v| v.key.layout)
            .collect();
        l.sort();
        l.dedup();
        l
    };
    assert_eq!(layouts_visited("sum"), [0, 1, 2]);
    assert_eq!(layouts_visited("count"), [0]);
    let layouts_of = |name: &str| {
        outcome
            .estimates
            .iter()
            .find(|e| e.benchmark == name)
            .map(|e| e.layouts.len())
    };
    assert_eq!(layouts_of("sum"), Some(3));
    assert_eq!(layouts_of("count"), Some(1));
}
