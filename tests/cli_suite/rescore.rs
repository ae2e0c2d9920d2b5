//! `fit` and `rescore` after an mlcost upgrade that changed the counting rules, on the quick
//! suite's run.

use super::support::{mlcost, read, text};
use std::path::Path;

/// The report opens offline in headless Chromium without console errors, and what it shows
/// includes the cost table and charts.
/// After an mlcost upgrade that changed the counting rules (simulated: counts and catalogue of
/// another semantics), `fit` refuses the old counts and `rescore` recounts, refits and
/// revalidates the run without measuring it: the same counts and validation as before.
pub fn rescore_after_an_upgrade(ws: &Path, run: &Path, validation: &serde_json::Value) {
    let counts = read(run.join("counts.json"));
    let manifest = read(run.join("manifest.json"));
    let fingerprint = manifest["counted_by"]
        .as_str()
        .expect("the build records it");
    let visits = std::fs::read_to_string(run.join("visits.jsonl")).unwrap();
    let mut old_counts = counts.clone();
    for row in old_counts.as_array_mut().unwrap() {
        row["counts"]["RetiredConstruct"] = 1.into();
    }
    let mut old_manifest = manifest.clone();
    old_manifest["counted_by"] = "0000000000000000".into();
    for (file, value) in [
        ("counts.json", &old_counts),
        ("manifest.json", &old_manifest),
    ] {
        std::fs::write(run.join(file), serde_json::to_string(value).unwrap()).unwrap();
    }

    let out = mlcost(&["fit", "run1"], ws);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("catalogue 0000000000000000")
            && said.contains(fingerprint)
            && said.contains("mlcost rescore run1"),
        "{said}"
    );

    let out = mlcost(&["rescore", "run1", "--history", "history.sqlite"], ws);
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let points = counts.as_array().unwrap().len();
    assert!(
        all.contains(&format!(
            "recounted {points} training points: {points} changed (catalogue 0000000000000000 → {fingerprint})"
        )) && all.contains("no longer counted: RetiredConstruct"),
        "{all}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.trim_end().lines().last(),
        Some("report: run1/report/index.html"),
        "{all}"
    );
    assert_eq!(read(run.join("counts.json")), counts);
    assert_eq!(read(run.join("counts-previous.json")), old_counts);
    assert_eq!(read(run.join("manifest.json")), manifest);
    assert_eq!(
        read(run.join("validation.json"))["summary"],
        validation["summary"]
    );
    assert_eq!(
        std::fs::read_to_string(run.join("visits.jsonl")).unwrap(),
        visits,
        "rescore measured"
    );
}
