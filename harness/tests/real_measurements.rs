//! Measuring real binaries built with the real `ocamlopt`: scaling, layouts, GC counters,
//! faults, resuming. Timing checks are ratios or wide bounds; allocation checks are exact, as
//! the runtime counts them exactly.

use harness::sampling::{sample_visit, Driver, SamplingConfig, SamplingError};
use harness::{run_bench, BenchError, BenchPlan, BenchProgram, CompilerSetup, Estimate, Silent};
use ocaml_runtime::{Compiler, DriverProcess, Placement};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const FAPP: &str = "let[@inline never] id n = n\n\
    let rec fapp x = if x = 0 then 0 else fapp (id (id (id (id (x - 1)))))\n\
    let input n = n\nlet run n = fapp n\n";

fn program(dir: &Path, name: &str, source: &str, sizes: &[u64]) -> BenchProgram {
    let path = dir.join(format!("{name}.ml"));
    std::fs::write(&path, source).unwrap();
    BenchProgram {
        name: name.into(),
        path,
        sizes: sizes.to_vec(),
    }
}

fn plan(out: &Path, programs: Vec<BenchProgram>, layouts: u32, quota_ms: u64) -> BenchPlan {
    BenchPlan {
        programs,
        compilers: vec![CompilerSetup {
            compiler: Compiler::discover(None, None).expect("ocamlopt on PATH"),
            flags: vec!["-inline".into(), "0".into()],
        }],
        layouts,
        sampling: SamplingConfig {
            quota: Duration::from_millis(quota_ms),
            rounds: 4,
            reply_timeout: Duration::from_secs(20),
            ..SamplingConfig::default()
        },
        cpu: ocaml_runtime::process::default_cpu(),
        out_dir: out.join("run"),
        canary_reference: None,
    }
}

fn measure(programs: Vec<BenchProgram>, layouts: u32, quota_ms: u64) -> Vec<Estimate> {
    let tmp = tempfile::tempdir().unwrap();
    run_bench(&plan(tmp.path(), programs, layouts, quota_ms), &mut Silent)
        .unwrap()
        .estimates
}

#[test]
fn a_list_of_n_ints_allocates_exactly_3n_minor_words_and_a_big_array_goes_major() {
    let tmp = tempfile::tempdir().unwrap();
    let list = program(
        tmp.path(),
        "build",
        "let rec build n = if n = 0 then [] else n :: build (n - 1)\nlet input n = n\nlet run n = build n\n",
        &[100, 1000, 5000],
    );
    let array = program(
        tmp.path(),
        "array",
        "let input n = n\nlet run _ = Array.make 300 0\n",
        &[1],
    );
    let estimates = measure(vec![list, array], 1, 200);
    for e in &estimates[..3] {
        let expected = 3.0 * e.size as f64;
        assert!(
            (e.minor_words_per_run - expected).abs() < 1e-6 * expected,
            "{}: {}",
            e.size,
            e.minor_words_per_run
        );
    }
    let array = &estimates[3];
    // mjWd/Run includes promoted words (as Gc.major_words does): a collection inside a batch
    // can promote a few of the driver's own words, so the direct allocation is the exact one.
    let direct = array.major_words_per_run - array.promoted_words_per_run;
    assert!((direct - 301.0).abs() < 1e-6, "{direct}");
    assert_eq!(
        array.major_words_per_run.round(),
        301.0,
        "{}",
        array.major_words_per_run
    );
    assert!(
        array.minor_words_per_run.abs() < 1e-9,
        "{}",
        array.minor_words_per_run
    );
}

#[test]
fn heap_compactions_per_run_are_measured_where_the_heap_is_mostly_garbage() {
    // A 10 000-word `bytes` made and dropped each run goes straight to the major heap. With
    // nothing else live, every major cycle ends with the heap almost all free, beyond
    // `max_overhead` (500%), and compacts, which forces one more cycle: about half the cycles
    // are compactions. With a million words kept live beside it, no cycle comes near that.
    let tmp = tempfile::tempdir().unwrap();
    let alone = program(
        tmp.path(),
        "alone",
        "let input n = n\nlet run n = Bytes.length (Bytes.make n 'x')\n",
        &[80_000],
    );
    let beside_live = program(
        tmp.path(),
        "beside_live",
        "let input n = (n, Array.make 1_000_000 0)\n\
         let run (n, live) = Bytes.length (Bytes.make n 'x') + Array.length live\n",
        &[80_000],
    );
    let estimates = measure(vec![alone, beside_live], 1, 600);
    let (alone, beside_live) = (&estimates[0], &estimates[1]);
    for e in [alone, beside_live] {
        assert!(e.major_collections_per_run > 0.0, "{}: {e:?}", e.benchmark);
    }
    let share = |e: &Estimate| e.compactions_per_run / e.major_collections_per_run;
    assert!(
        share(alone) > 0.3,
        "{:?}",
        (alone.compactions_per_run, alone.major_collections_per_run)
    );
    assert!(
        share(beside_live) < 0.05,
        "{:?}",
        (
            beside_live.compactions_per_run,
            beside_live.major_collections_per_run
        )
    );
}

#[test]
fn fapp_time_scales_with_n_and_fits_a_line() {
    let tmp = tempfile::tempdir().unwrap();
    let estimates = measure(
        vec![program(tmp.path(), "fapp", FAPP, &[2000, 16000])],
        1,
        700,
    );
    let ratio = estimates[1].ns_per_run.estimate / estimates[0].ns_per_run.estimate;
    assert!((6.0..=10.0).contains(&ratio), "16000/2000 = {ratio}");
    for e in &estimates {
        assert!(e.r2 > 0.95, "R² {} at {}", e.r2, e.size);
        assert!(
            e.ns_per_run.ci_low <= e.ns_per_run.estimate
                && e.ns_per_run.estimate <= e.ns_per_run.ci_high
        );
    }
}

#[test]
fn four_layouts_are_reported_and_averaged_within_their_range() {
    let tmp = tempfile::tempdir().unwrap();
    let estimates = measure(vec![program(tmp.path(), "fapp", FAPP, &[4000])], 4, 250);
    let e = &estimates[0];
    assert_eq!(e.layouts.len(), 4);
    let per_layout: Vec<f64> = e.layouts.iter().map(|l| l.ns_per_run.estimate).collect();
    let (lo, hi) = per_layout
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    assert!(
        lo <= e.ns_per_run.estimate && e.ns_per_run.estimate <= hi,
        "{per_layout:?} vs {}",
        e.ns_per_run.estimate
    );
    assert!(e.ns_per_run.ci_low <= lo && hi <= e.ns_per_run.ci_high);
    let offsets: Vec<u64> = e.layouts.iter().map(|l| l.offset_bytes % 64).collect();
    assert_eq!(offsets, vec![0, 16, 32, 48]);
    let json = serde_json::to_value(e).unwrap();
    for field in [
        "benchmark",
        "size",
        "samples",
        "ns_per_run",
        "r2",
        "minor_words_per_run",
        "major_words_per_run",
        "promoted_words_per_run",
        "minor_collections_per_run",
        "major_collections_per_run",
        "compactions_per_run",
        "digest",
        "layouts",
    ] {
        assert!(json.get(field).is_some(), "--json field {field} missing");
    }
}

#[test]
fn an_empty_run_costs_a_few_nanoseconds() {
    let tmp = tempfile::tempdir().unwrap();
    let estimates = measure(
        vec![program(
            tmp.path(),
            "empty",
            "let input _ = ()\nlet run () = ()\n",
            &[1],
        )],
        1,
        300,
    );
    let slope = estimates[0].ns_per_run.estimate;
    assert!(slope > 0.0 && slope < 50.0, "empty run costs {slope} ns");
}

fn fault_of(source: &str, timeout_ms: u64) -> (String, Duration) {
    let tmp = tempfile::tempdir().unwrap();
    let mut p = plan(
        tmp.path(),
        vec![program(tmp.path(), "faulty", source, &[10])],
        1,
        200,
    );
    p.sampling.reply_timeout = Duration::from_millis(timeout_ms);
    let started = Instant::now();
    let err = run_bench(&p, &mut Silent).expect_err("the fault must be reported");
    (err.to_string(), started.elapsed())
}

#[test]
fn an_infinite_loop_is_killed_within_the_limit() {
    let (msg, took) = fault_of(
        "let rec spin x = spin x\nlet input n = n\nlet run n = spin n\n",
        1500,
    );
    assert!(
        msg.contains("faulty") && msg.contains("size 10") && msg.contains("no reply within"),
        "{msg}"
    );
    assert!(took < Duration::from_secs(15), "took {took:?}");
}

#[test]
fn exceptions_stack_overflows_early_exits_and_crashes_are_errors() {
    let cases = [
        ("let input n = n\nlet run n = if n > 0 then raise Not_found else 0\n", "Not_found"),
        ("let rec deep n = 1 + deep (n + 1)\nlet input n = n\nlet run n = deep n\n", "stack_overflow"),
        ("let input n = n\nlet run n = exit 3\n", "exit code 3"),
        ("let input n = n\nlet run n = match (Obj.magic n : int list) with x :: _ -> x | [] -> 0\n", "SIGSEGV"),
        ("let input n = failwith \"no input\"\nlet run n = n\n", "in input"),
    ];
    for (source, expected) in cases {
        let (msg, _) = fault_of(source, 10_000);
        assert!(
            msg.contains("faulty") && msg.contains(expected),
            "expected {expected:?} in: {msg}"
        );
    }
}

fn fake_driver(dir: &Path, script: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("fake.sh");
    std::fs::write(&path, format!("#!/bin/sh\necho 'mlcost-driver 1 word_size=64 minor_heap_words=262144 ocaml=4.13.1'\n{script}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn garbage_on_the_protocol_is_an_error_and_earlier_samples_were_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let fake = fake_driver(
        tmp.path(),
        "read l; echo 'ready 10 5'\nread l; echo 'sample 1 100 0 0 0 0 0 0'\nread l; echo 'Segmentation fault?? hello'\n",
    );
    let mut driver = Driver::from(
        DriverProcess::spawn(&fake, None, Placement::default(), Duration::from_secs(5)).unwrap(),
    );
    let mut kept = Vec::new();
    let err = sample_visit(
        &mut driver,
        10,
        Duration::from_millis(100),
        &SamplingConfig::default(),
        true,
        &mut |s| {
            kept.push(*s);
            Ok::<(), ()>(())
        },
    )
    .unwrap_err();
    match err {
        SamplingError::Driver(fault) => assert!(
            fault.to_string().contains("garbage on the protocol"),
            "{fault}"
        ),
        SamplingError::Sink(()) => panic!("sink never fails here"),
    }
    assert_eq!(kept.len(), 1);
}

#[test]
fn when_the_second_benchmark_crashes_the_first_ones_results_stay_on_disk() {
    let tmp = tempfile::tempdir().unwrap();
    let good = program(tmp.path(), "fapp", FAPP, &[1000]);
    let bad = program(
        tmp.path(),
        "crash",
        "let input n = n\nlet run n = exit 2\n",
        &[1000],
    );
    let p = plan(tmp.path(), vec![good, bad], 1, 200);
    let err = run_bench(&p, &mut Silent).unwrap_err();
    assert!(
        matches!(err, BenchError::Measure { ref benchmark, .. } if benchmark == "crash"),
        "{err}"
    );
    let estimates: Vec<Estimate> =
        serde_json::from_str(&std::fs::read_to_string(p.out_dir.join("estimates.json")).unwrap())
            .unwrap();
    assert_eq!(estimates.len(), 1);
    assert_eq!(estimates[0].benchmark, "fapp");
    let samples = harness::samples::SampleLog::read_all(&p.out_dir.join("samples.jsonl")).unwrap();
    let fapp_samples = samples.iter().filter(|s| s.benchmark == "fapp").count();
    assert_eq!(fapp_samples, estimates[0].samples);
    let info: harness::machine::RunInfo =
        serde_json::from_str(&std::fs::read_to_string(p.out_dir.join("run.json")).unwrap())
            .unwrap();
    assert!(info.compilers[0]
        .compiler
        .version
        .starts_with(char::is_numeric));
    assert!(info.compilers[0]
        .compiler
        .config
        .contains_key("architecture"));
    assert_eq!(info.compilers[0].flags, vec!["-inline", "0"]);
}

#[test]
fn a_resumed_run_keeps_old_samples_and_measures_only_unfinished_visits() {
    let tmp = tempfile::tempdir().unwrap();
    let p = plan(
        tmp.path(),
        vec![program(tmp.path(), "fapp", FAPP, &[500, 1000, 1500])],
        1,
        160,
    );
    let first = run_bench(&p, &mut Silent).unwrap();
    let samples_path = p.out_dir.join("samples.jsonl");
    let visits_path = p.out_dir.join("visits.jsonl");
    let original = std::fs::read_to_string(&samples_path).unwrap();
    let visits = harness::samples::VisitLog::read_all(&visits_path).unwrap();
    assert_eq!(visits.len(), 3 * 4, "three sizes, four rounds");
    // Interrupted during the last two visits: their completion marks never made it (their
    // batches did, and stay on disk unused).
    let visit_text = std::fs::read_to_string(&visits_path).unwrap();
    let visit_lines: Vec<&str> = visit_text.lines().collect();
    std::fs::write(&visits_path, visit_lines[..10].join("\n") + "\n").unwrap();
    let redone: Vec<u64> = visits[10..].iter().map(|v| v.key.size).collect();

    let binaries = harness::bench::build_all(&p, &mut Silent).unwrap();
    let resumed = harness::measure_built(&p, &binaries, true, &mut Silent).unwrap();
    let after = harness::samples::VisitLog::read_all(&visits_path).unwrap();
    assert_eq!(after.len(), 12);
    assert_eq!(
        &after[..10],
        &visits[..10],
        "finished visits were rewritten"
    );
    assert!(after[10..].iter().all(|v| v.sequence >= 10 && v.round == 3));
    for (a, b) in first.estimates.iter().zip(&resumed.estimates) {
        assert_eq!(a.size, b.size);
        assert_eq!(b.visits, 4);
        if !redone.contains(&a.size) {
            // Every visit came back from disk unchanged, batch for batch.
            assert_eq!(a.ns_per_run, b.ns_per_run, "size {}", a.size);
            assert_eq!(a.samples, b.samples);
        }
    }
    let now = std::fs::read_to_string(&samples_path).unwrap();
    assert!(
        now.starts_with(&original),
        "original samples were rewritten"
    );
    assert!(now.len() > original.len());
}

/// `down 1_000_000` nests a million 16-byte frames (`subq $8, %rsp` and the return address):
/// 16 MB of system stack, twice the default limit, under which the binary dies of
/// `Stack_overflow` near 500 000 levels. The interpreter counts it, so it must be measured too.
#[test]
fn a_recursion_deeper_than_the_default_stack_limit_is_measured() {
    let tmp = tempfile::tempdir().unwrap();
    let deep = program(
        tmp.path(),
        "deep",
        "let rec down n = if n = 0 then 0 else 1 + down (n - 1)\nlet input n = n\nlet run n = down n\n",
        &[1_000_000],
    );
    let estimates = measure(vec![deep], 1, 300);
    let e = &estimates[0];
    // A million calls and returns take milliseconds, not nothing and not seconds.
    assert!(
        e.ns_per_run.estimate > 100_000.0 && e.ns_per_run.estimate < 1e9,
        "{:?}",
        e.ns_per_run
    );
}
