//! Catch-up rounds on real binaries: a measurement the canary finds disturbed throughout
//! visits every point again, in extra rounds of its own, and a resumed run takes none twice.
//! The disturbance is forced by a reference level no real reading can stay under, so that
//! the test does not depend on what the machine's neighbours are doing.

use harness::samples::VisitLog;
use harness::sampling::SamplingConfig;
use harness::{run_bench, BenchPlan, BenchProgram, CompilerSetup, Silent};
use ocaml_runtime::Compiler;
use std::path::Path;
use std::time::Duration;

fn plan(dir: &Path, canary_reference: Option<f64>) -> BenchPlan {
    let source = dir.join("sum.ml");
    std::fs::write(
        &source,
        "let rec sum n = if n = 0 then 0 else n + sum (n - 1)\nlet input n = n\nlet run n = sum n\n",
    )
    .unwrap();
    BenchPlan {
        programs: vec![BenchProgram {
            name: "sum".into(),
            path: source,
            sizes: vec![100, 400],
        }],
        compilers: vec![CompilerSetup {
            compiler: Compiler::discover(None, None).expect("ocamlopt on PATH"),
            flags: vec!["-inline".into(), "0".into()],
        }],
        layouts: 2,
        sampling: SamplingConfig {
            quota: Duration::from_millis(60),
            rounds: 3,
            catch_up_rounds: 2,
            reply_timeout: Duration::from_secs(20),
            ..SamplingConfig::default()
        },
        cpu: ocaml_runtime::process::default_cpu(),
        out_dir: dir.join("run"),
        canary_reference,
    }
}

#[test]
fn a_run_disturbed_throughout_takes_every_catch_up_round_and_resumes_without_repeats() {
    let tmp = tempfile::tempdir().unwrap();
    // One nanosecond per canary run: every reading is far above it, every visit disturbed.
    let p = plan(tmp.path(), Some(1.0));
    let outcome = run_bench(&p, &mut Silent).unwrap();
    let visits_path = p.out_dir.join("visits.jsonl");
    let visits = VisitLog::read_all(&visits_path).unwrap();
    // 2 sizes × 2 layouts, 3 planned rounds and 2 catch-up rounds.
    assert_eq!(visits.len(), 4 * 5);
    let mut rounds: Vec<u32> = visits.iter().map(|v| v.round).collect();
    rounds.dedup();
    assert_eq!(
        rounds,
        [0, 1, 2, 3, 4],
        "catch-up rounds follow the planned ones"
    );
    for estimate in &outcome.estimates {
        // No visit is quiet, so the estimate rests on all of them rather than on none.
        assert_eq!(estimate.visits, 2 * 5, "{estimate:?}");
    }
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p.out_dir.join("run.json")).unwrap())
            .unwrap();
    assert_eq!(run["catch_up_rounds"], 2);

    // Killed during the last catch-up round: only its missing visits are taken again.
    let text = std::fs::read_to_string(&visits_path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&visits_path, lines[..18].join("\n") + "\n").unwrap();
    let binaries = harness::bench::build_all(&p, &mut Silent).unwrap();
    harness::measure_built(&p, &binaries, true, &mut Silent).unwrap();
    let after = VisitLog::read_all(&visits_path).unwrap();
    assert_eq!(after.len(), 20);
    assert_eq!(&after[..18], &visits[..18]);
    assert!(after[18..].iter().all(|v| v.round == 4));
}
