//! Where the first batch after an input starts in the minor heap. `Gc.compact` empties the
//! minor heap, so before the driver moved the allocation pointer on after each rebuild, every
//! visit that rebuilt its input ran its first run from the same place: a run allocating more
//! than a minor heap, everything it allocates live until it returns, was collected at its
//! 262 144th word every time and promoted exactly that much (`map` over 100 000 elements:
//! 262 067 words, 6 rebuilds out of 6). Real `ocamlopt`, real runtime, real counters.

use ocaml_runtime::{build, BuildSpec, Compiler, DriverProcess, Placement, Reply, Request};
use ocaml_runtime::{BatchSample, RuntimeObjects};
use std::time::Duration;

const MAP: &str = "
let rec map f = function [] -> [] | a :: l -> let r = f a in r :: map f l
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let input n = range n []
let run l = map succ l
";

fn first_batch_after_rebuild(driver: &mut DriverProcess, size: u64) -> BatchSample {
    let limit = Duration::from_secs(30);
    match driver.request(Request::Size(size), limit).unwrap() {
        Reply::Ready { .. } => {}
        other => panic!("size {size}: {other:?}"),
    }
    match driver.request(Request::Batch(1), limit).unwrap() {
        Reply::Sample(sample) => sample,
        other => panic!("batch: {other:?}"),
    }
}

#[test]
fn each_rebuild_starts_the_runs_at_another_place_of_the_minor_heap() {
    let Ok(compiler) = Compiler::discover(None, None) else {
        panic!("ocamlopt is needed (the README's set-up installs it)");
    };
    let tmp = tempfile::tempdir().unwrap();
    let program = tmp.path().join("map.ml");
    std::fs::write(&program, MAP).unwrap();
    let flags = vec!["-inline".to_string(), "0".to_string()];
    let runtime = RuntimeObjects::prepare(&compiler, &flags, &tmp.path().join("rt"), 1).unwrap();
    let spec = BuildSpec {
        program: &program,
        compiler: &compiler,
        flags: &flags,
        layout: 0,
        dir: &tmp.path().join("build"),
    };
    let binary = build(&spec, &runtime).unwrap();
    let mut driver = DriverProcess::spawn(
        &binary.path,
        None,
        Placement::default(),
        Duration::from_secs(30),
    )
    .unwrap();
    let promoted: Vec<u64> = (0..6)
        .map(|_| {
            let sample = first_batch_after_rebuild(&mut driver, 100_000);
            assert_eq!(sample.minor_words, 300_000.0, "{sample:?}");
            sample.promoted_words as u64
        })
        .collect();
    let mut distinct = promoted.clone();
    distinct.sort_unstable();
    distinct.dedup();
    // Six places spread by the golden ratio: no two alike, and never the whole minor heap
    // that an empty one would give.
    assert_eq!(distinct.len(), 6, "{promoted:?}");
    let minor_heap = 262_144;
    assert!(
        promoted.iter().all(|&p| p < minor_heap - 1_000),
        "{promoted:?}"
    );
    // Between them, early and late collections both: the spread covers the heap.
    let (low, high) = (distinct[0], distinct[5]);
    assert!(
        low < minor_heap / 3 && high > minor_heap / 2,
        "{promoted:?}"
    );
}
