//! Ending many driver processes: asked to quit all at once, they exit in parallel instead of
//! one after another.

use ocaml_runtime::{DriverProcess, Placement};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long the fake driver takes to exit once asked. A real driver finishes its sample first;
/// the delay also makes the sequential case slow by construction, not by how fast this machine
/// happens to start a shell (a fast CI machine ended 30 instant drivers in 283 ms).
const EXIT_DELAY_MS: u64 = 50;

fn fake_driver(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("fake.sh");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\necho 'mlcost-driver 1 word_size=64 minor_heap_words=262144 ocaml=4.13.1'\n\
             while read l; do [ \"$l\" = quit ] && sleep {} && exit 0; done\n",
            EXIT_DELAY_MS as f64 / 1000.0
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn spawn_many(binary: &Path, n: usize) -> Vec<DriverProcess> {
    (0..n)
        .map(|_| {
            DriverProcess::spawn(binary, None, Placement::default(), Duration::from_secs(10))
                .unwrap()
        })
        .collect()
}

#[test]
fn processes_asked_to_quit_first_end_in_parallel() {
    let tmp = tempfile::tempdir().unwrap();
    let fake = fake_driver(tmp.path());
    let n = 30;

    // One by one: each drop asks, then waits until its process has gone.
    let one_by_one = spawn_many(&fake, n);
    let started = Instant::now();
    drop(one_by_one);
    let sequential = started.elapsed();
    assert!(
        sequential >= Duration::from_millis(EXIT_DELAY_MS * n as u64),
        "{sequential:?}"
    );

    let mut asked_first = spawn_many(&fake, n);
    let started = Instant::now();
    for process in &mut asked_first {
        process.ask_to_quit();
    }
    drop(asked_first);
    let parallel = started.elapsed();
    assert!(
        parallel * 3 < sequential,
        "asked first {parallel:?}, one by one {sequential:?}"
    );
}
