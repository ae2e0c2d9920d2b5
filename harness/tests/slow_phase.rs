//! A slow phase injected into a real measurement: during the first rounds a competing process
//! on the other CPU streams through memory, so that the benchmark — a traversal of a list
//! larger than the caches — shares the last-level cache and the memory bus with it. (On this
//! kind of machine a busy process on the other vCPU moves a compute-bound benchmark by under
//! 3%, a memory-bound one by 10–50%; a process on the benchmark's own CPU is already caught
//! by the descheduling check.) From the samples of that one measurement: the estimate over
//! all visits must stay within 5% of the same estimator over the visits taken after the
//! competitor stopped, while the plain regression over the batches taken during the slow
//! phase — what one contiguous slice would have given — is moved by it, which shows the phase
//! was real. Comparing within one measurement keeps the processes, and so the list's place in
//! memory, the same on both sides.

use harness::bench::build_all;
use harness::robust::{fast_half_mean, fit_visit, VisitData};
use harness::samples::{SampleLog, SampleRecord};
use harness::sampling::SamplingConfig;
use harness::{measure_built, BenchPlan, BenchProgram, CompilerSetup, Progress, Silent};
use ocaml_runtime::Compiler;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

const LIST_SUM: &str = "let rec sum acc = function [] -> acc | x :: r -> sum (acc + x) r\n\
    let input n = List.init n (fun i -> i)\nlet run l = sum 0 l\n";

/// Streams through 32 MiB for ever.
const HOG: &str = "let () =\n  let a = Array.make (1 lsl 22) 1.0 in\n  let s = ref 0.0 in\n  \
    while true do\n    for i = 0 to Array.length a - 1 do\n      \
    s := !s +. a.(i); a.(i) <- !s *. 0.5\n    done\n  done\n";

/// Rounds during which the competitor runs.
const SLOW_ROUNDS: u32 = 3;

/// Starts the hog on `cpu` when measuring starts and stops it after round
/// `SLOW_ROUNDS - 1`.
struct Competitor {
    hog: PathBuf,
    cpu: usize,
    child: Option<Child>,
}

impl Competitor {
    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Progress for Competitor {
    fn stage(&mut self, message: &str) {
        if message == "measure" && self.child.is_none() {
            self.child = Some(
                Command::new("taskset")
                    .args(["-c", &self.cpu.to_string()])
                    .arg(&self.hog)
                    .spawn()
                    .expect("taskset starts the hog"),
            );
        }
    }

    fn round_finished(&mut self, round: u32, _rounds: u32) {
        if round + 1 == SLOW_ROUNDS {
            self.stop();
        }
    }
}

impl Drop for Competitor {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The hog, built with the compiler under test (taskset execs it, so killing the child
/// kills the hog).
fn build_hog(dir: &Path) -> PathBuf {
    let source = dir.join("hog.ml");
    std::fs::write(&source, HOG).unwrap();
    let binary = dir.join("hog");
    let status = Command::new("ocamlopt")
        .current_dir(dir)
        .args(["hog.ml", "-o"])
        .arg(&binary)
        .status()
        .expect("ocamlopt runs");
    assert!(status.success(), "the memory hog did not build");
    binary
}

fn plan(dir: &Path, out: &str) -> BenchPlan {
    let source = dir.join("listsum.ml");
    std::fs::write(&source, LIST_SUM).unwrap();
    BenchPlan {
        programs: vec![BenchProgram {
            name: "listsum".into(),
            path: source,
            sizes: vec![300_000, 600_000],
        }],
        compilers: vec![CompilerSetup {
            compiler: Compiler::discover(None, None).expect("ocamlopt on PATH"),
            flags: vec!["-inline".into(), "0".into()],
        }],
        layouts: 4,
        sampling: SamplingConfig {
            quota: Duration::from_millis(600),
            rounds: 10,
            seed: 3,
            ..SamplingConfig::default()
        },
        cpu: ocaml_runtime::process::default_cpu(),
        out_dir: dir.join(out),
    }
}

/// Visit slopes of one (size, layout) by round, from the samples log.
fn visit_slopes(samples: &[SampleRecord], size: u64, layout: u32) -> Vec<(u32, f64)> {
    let mut rounds: Vec<u32> = samples.iter().map(|s| s.round).collect();
    rounds.sort_unstable();
    rounds.dedup();
    rounds
        .into_iter()
        .filter_map(|round| {
            let visit = VisitData {
                round,
                samples: samples
                    .iter()
                    .filter(|s| s.size == size && s.layout == layout && s.round == round)
                    .map(|s| s.sample)
                    .collect(),
                slow_machine: false,
            };
            Some((round, fit_visit(&visit)?.line.slope))
        })
        .collect()
}

/// One measurement with the competitor in its first rounds: (estimate over visits, plain
/// contiguous estimate), both relative to the estimate over the visits after it stopped.
fn measure_with_slow_phase() -> (f64, f64) {
    let cpu = ocaml_runtime::process::default_cpu().expect("CPU affinity on this machine");
    let other_cpu = (0..cpu)
        .next_back()
        .expect("a slow phase needs a second CPU to run the competitor on");
    let tmp = tempfile::tempdir().unwrap();
    let plan = plan(tmp.path(), "run");
    let binaries = build_all(&plan, &mut Silent).unwrap();
    let mut competitor = Competitor {
        hog: build_hog(tmp.path()),
        cpu: other_cpu,
        child: None,
    };
    let outcome = measure_built(&plan, &binaries, false, &mut competitor)
        .unwrap()
        .into_result()
        .unwrap();
    competitor.stop();

    let samples = SampleLog::read_all(&outcome.samples_path).unwrap();
    let (mut robust, mut quiet, mut contiguous) = (0.0, 0.0, 0.0);
    for e in &outcome.estimates {
        for layout in &e.layouts {
            robust += layout.ns_per_run.estimate;
            let slopes = visit_slopes(&samples, e.size, layout.layout);
            let after: Vec<f64> = slopes
                .iter()
                .filter(|(round, _)| *round > SLOW_ROUNDS)
                .map(|s| s.1)
                .collect();
            quiet += fast_half_mean(&after);
            // One contiguous slice: every batch of the slow rounds in one regression, with
            // the same rule for descheduled batches.
            let during: Vec<_> = samples
                .iter()
                .filter(|s| s.size == e.size && s.layout == layout.layout)
                .filter(|s| s.round < SLOW_ROUNDS)
                .map(|s| s.sample)
                .collect();
            let during = harness::estimate::undisturbed(&during);
            let runs: Vec<f64> = during.iter().map(|s| s.runs as f64).collect();
            let ns: Vec<f64> = during.iter().map(|s| s.ns as f64).collect();
            contiguous += harness::regression::ols(&runs, &ns).unwrap().slope;
        }
    }
    (robust / quiet, contiguous / quiet)
}

#[test]
fn a_slow_phase_moves_the_contiguous_estimate_but_not_the_estimate_over_visits() {
    // The competitor is real, and so is the machine's own noise: an attempt in which the
    // contiguous estimate was not moved (a neighbour slowed the later rounds too, or the
    // competitor found nothing to contend for) shows nothing either way and is repeated.
    let mut attempts = Vec::new();
    for _ in 0..3 {
        let (robust, contiguous) = measure_with_slow_phase();
        attempts.push((robust, contiguous));
        if contiguous > 1.06 {
            assert!(
                (0.95..=1.05).contains(&robust),
                "estimate over visits moved by the slow phase: {robust:.3} (contiguous {contiguous:.3})"
            );
            return;
        }
    }
    panic!(
        "the competitor never slowed the measurement (estimate, contiguous per attempt: \
         {attempts:.3?}); the test cannot tell a robust estimate from a lucky one"
    );
}
