//! The whole pipeline as a user runs it, on a small real suite (a few built-in templates and
//! a few control programs) so that it fits in a test: `suite --quick` end to end, resuming a
//! killed run, a broken control, history, and `compare` on a re-run, on a slowed-down
//! compiler and on two real OCaml releases.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "cli_suite/rescore.rs"]
mod rescore;
#[path = "cli_suite/support.rs"]
mod support;

use rescore::rescore_after_an_upgrade;
use support::{mlcost, read, suite_args, text, workspace};

#[test]
fn quick_suite_end_to_end_then_history_and_a_rerun_comparison() {
    let ws = workspace();
    let out = mlcost(&suite_args("run1", &[]), ws.path());
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let run = ws.path().join("run1");
    for file in [
        "manifest.json",
        "samples.jsonl",
        "estimates.json",
        "counts.json",
        "model.json",
        "validation.json",
        "report/index.html",
    ] {
        assert!(run.join(file).is_file(), "{file} missing\n{all}");
    }
    // The branch probe ran first on this machine: its longest walk of tosses lost to the
    // predictor (a real processor keeps thousands of tosses, not a hundred thousand), and the
    // figure it found is said and kept.
    let memory = read(run.join("branch-memory.json"));
    let points = memory["points"].as_array().unwrap();
    let longest = points.last().unwrap();
    let ratio = longest["toss_ns"].as_f64().unwrap() / longest["learnt_ns"].as_f64().unwrap();
    assert!(ratio > 1.3, "{memory}");
    let kept = memory["kept_tosses"].as_f64().unwrap();
    assert!((1000.0..128_000.0).contains(&kept), "{memory}");
    assert!(all.contains("branch predictor: keeps about"), "{all}");
    // Each of the two code layouts gives its own reading, and the report shows the probe.
    let by_layout = memory["kept_tosses_by_layout"].as_array().unwrap();
    assert_eq!(by_layout.len(), 2, "{memory}");
    let page = std::fs::read_to_string(run.join("report/index.html")).unwrap();
    assert!(
        page.contains("id=\"branch-predictor\"") && page.contains("share of coin tosses lost"),
        "the report has no branch predictor section"
    );
    // The report's path is the last line on stdout, as given (relative to the working
    // directory), so a user can open it as printed.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.trim_end().lines().last(),
        Some("report: run1/report/index.html"),
        "{all}"
    );
    let validation = read(run.join("validation.json"));
    for method in ["ls", "l1", "nnls"] {
        let e = validation["summary"][method]["no_gc"]
            .as_f64()
            .unwrap_or(f64::NAN);
        assert!(
            e.is_finite() && e >= 0.0,
            "{method}: {}",
            validation["summary"]
        );
    }
    assert!(validation["summary"]["layout_spread_pct"]
        .as_f64()
        .unwrap()
        .is_finite());
    let skipped = validation["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0]["program"], "broken");
    assert!(
        skipped[0]["reason"]
            .as_str()
            .unwrap()
            .contains("broken.ml:"),
        "{skipped:?}"
    );
    assert!(!validation["pairs"].as_array().unwrap().is_empty());
    // The controls were timed in the training programs' rounds, not in a stage of their own:
    // within each round, some control visit lies between two training visits, and the
    // controls' directory holds their estimates but no samples log of its own.
    let visits = std::fs::read_to_string(run.join("visits.jsonl")).unwrap();
    let visits: Vec<(u64, bool)> = visits
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| {
            let control = v["benchmark"].as_str().unwrap().starts_with("control:");
            (v["round"].as_u64().unwrap(), control)
        })
        .collect();
    let rounds: std::collections::BTreeSet<u64> = visits.iter().map(|(r, _)| *r).collect();
    for round in rounds.iter().take(4) {
        let kinds: Vec<bool> = visits
            .iter()
            .filter(|(r, _)| r == round)
            .map(|(_, c)| *c)
            .collect();
        let first_control = kinds.iter().position(|c| *c);
        let last_training = kinds.iter().rposition(|c| !*c);
        assert!(
            matches!((first_control, last_training), (Some(f), Some(l)) if f < l),
            "round {round}: controls not interleaved with training ({kinds:?})"
        );
    }
    let control_estimates = read(run.join("controls/4.13.1/estimates.json"));
    let names: std::collections::BTreeSet<&str> = control_estimates
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["benchmark"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["sum", "sum_tr"].into(), "{control_estimates}");
    assert!(!run.join("controls/4.13.1/samples.jsonl").exists());
    // Validating the run again (no flag needed) scores the same estimates: the same
    // validation, nothing measured.
    let visits_before = std::fs::read_to_string(run.join("visits.jsonl")).unwrap();
    std::fs::rename(
        run.join("validation.json"),
        run.join("validation-first.json"),
    )
    .unwrap();
    let out = mlcost(&["validate", "run1"], ws.path());
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(read(run.join("validation.json")), validation);
    assert!(!run.join("controls/4.13.1/samples.jsonl").exists());
    assert_eq!(
        std::fs::read_to_string(run.join("visits.jsonl")).unwrap(),
        visits_before
    );
    let estimates = read(run.join("estimates.json"));
    assert!(
        estimates
            .as_array()
            .unwrap()
            .iter()
            .all(|e| !e["benchmark"].as_str().unwrap().starts_with("control:")),
        "controls among the training estimates"
    );
    rescore_after_an_upgrade(ws.path(), &run, &validation);
    // Controls timed on their own (a user's corpus) say how the machine was while they ran,
    // in the table's text and in their validation file.
    let out = mlcost(
        &[
            "validate",
            "run1",
            "--controls",
            "controls",
            "--only",
            "sum",
        ],
        ws.path(),
    );
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("measured on their own: machine disturbed"),
        "{said}"
    );
    let alone = read(run.join("validation-controls.json"));
    assert!(
        alone["machine"]["canary_readings"].as_u64().unwrap() > 0
            && alone["machine"]["visits"].as_u64().unwrap() > 0,
        "{}",
        alone["machine"]
    );
    assert!(read(run.join("validation.json")).get("machine").is_none());
    // The memory model's real check: bytes per construct are exact integers learned from real runs.
    let model = read(run.join("model.json"));
    let bytes = &model["memory_bytes"];
    assert_eq!(
        (&bytes["Cons"], &bytes["FunDef"], &bytes["Closure"]),
        (&24.into(), &24.into(), &8.into()),
        "{bytes}"
    );
    let residual = model["memory_fit"]["max_abs_rounding_residual"]
        .as_f64()
        .unwrap();
    assert!(residual < 0.05, "{}", model["memory_fit"]);
    report_opens_in_chromium(&run.join("report/index.html"));

    // A re-run with the same compiler. A quick suite measures for a few seconds, and on a
    // shared machine a neighbour can slow a whole run of it, so two separate runs may really
    // differ: what must hold is that every verdict is the one its interval gives. That
    // nothing is flagged between two measurements of one compiler is checked where a nightly
    // job would check it, on compilers interleaved in one run (the `afl` test below).
    let out = mlcost(&suite_args("run2", &[]), ws.path());
    assert!(out.status.success(), "{}", text(&out));
    let out = mlcost(&["compare", "run1", "run2", "--json"], ws.path());
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out));
    let cmp: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let changes = cmp["constructs"].as_array().unwrap();
    assert!(changes.len() >= 8, "{cmp}");
    for c in changes {
        let (low, high) = (
            c["ratio_ci"][0].as_f64().unwrap(),
            c["ratio_ci"][1].as_f64().unwrap(),
        );
        let expected = match c["verdict"].as_str().unwrap() {
            "slower" => low > 1.0,
            "faster" => high < 1.0,
            "no_significant_change" => {
                (low <= 1.0 && high >= 1.0) || c["change_pct"].as_f64().unwrap().abs() <= 3.0
            }
            _ => true,
        };
        assert!(expected, "verdict against its interval: {c}");
        let regression = c["regression"].as_bool().unwrap();
        assert_eq!(
            regression,
            c["verdict"] == "slower" && c["change_pct"].as_f64().unwrap() > 5.0,
            "{c}"
        );
    }
    let regressions = changes.iter().filter(|c| c["regression"] == true).count();
    assert_eq!(out.status.code(), Some(i32::from(regressions > 0)), "{cmp}");
    let out = mlcost(&["compare", "run1", "run1"], ws.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        !text(&out).contains("the machine itself ran"),
        "{}",
        text(&out)
    );
    // A run during which the machine itself was 50% slower (its canary readings scaled):
    // the comparison says so, with how much.
    let slow = ws.path().join("run1-slow-machine");
    std::fs::create_dir_all(&slow).unwrap();
    for entry in std::fs::read_dir(ws.path().join("run1")).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), slow.join(entry.file_name())).unwrap();
        }
    }
    let canary = std::fs::read_to_string(slow.join("canary.jsonl")).unwrap();
    let scaled: String = canary
        .lines()
        .map(|line| {
            let mut reading: serde_json::Value = serde_json::from_str(line).unwrap();
            let ns = reading["ns_per_run"].as_f64().unwrap();
            reading["ns_per_run"] = serde_json::json!(ns * 1.5);
            format!("{reading}\n")
        })
        .collect();
    assert!(
        !scaled.is_empty(),
        "the quick suite recorded no canary readings"
    );
    std::fs::write(slow.join("canary.jsonl"), scaled).unwrap();
    let out = mlcost(
        &["compare", "run1", "run1-slow-machine", "--json"],
        ws.path(),
    );
    let all = text(&out);
    assert!(all.contains("the machine itself ran 50% slower"), "{all}");
    let cmp: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        (cmp["machine_ratio"].as_f64().unwrap() - 1.5).abs() < 1e-9,
        "{cmp}"
    );

    let out = mlcost(
        &[
            "history",
            "--db",
            "history.sqlite",
            "--construct",
            "FunApp",
            "--json",
        ],
        ws.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let points: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(points.as_array().unwrap().len(), 2, "{points}");
    assert!(ws.path().join("trend.html").is_file());
}

#[test]
fn a_killed_suite_resumes_without_losing_or_remeasuring_samples() {
    let ws = workspace();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mlcost"))
        .args(suite_args("run", &[]))
        .current_dir(ws.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let samples = ws.path().join("run/samples.jsonl");
    let started = Instant::now();
    let lines = |p: &Path| {
        std::fs::read_to_string(p)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let visits = ws.path().join("run/visits.jsonl");
    // How many samples one visit takes depends on the machine's speed (batches grow
    // geometrically through a fixed slice), so wait for both a completed visit and a few
    // hundred samples rather than for a sample count alone.
    while (lines(&samples) < 150 || lines(&visits) < 2)
        && started.elapsed() < Duration::from_secs(120)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = std::fs::read_to_string(&samples).unwrap();
    let k = before.lines().count();
    assert!(k >= 150, "only {k} samples before the kill");
    let visits_before = std::fs::read_to_string(&visits).unwrap_or_default();
    assert!(
        visits_before.lines().count() > 0,
        "no visit completed before the kill"
    );
    // As if the run had been built by an mlcost that counted by other rules: the resumed run
    // recounts before it measures, so its fit has counts of this semantics.
    let (counts_file, manifest_file) = (
        ws.path().join("run/counts.json"),
        ws.path().join("run/manifest.json"),
    );
    let counts = read(counts_file.clone());
    let mut stale = counts.clone();
    for row in stale.as_array_mut().unwrap() {
        row["counts"]["RetiredConstruct"] = 1.into();
    }
    let mut manifest = read(manifest_file.clone());
    manifest["counted_by"] = "0000000000000000".into();
    std::fs::write(&counts_file, stale.to_string()).unwrap();
    std::fs::write(&manifest_file, manifest.to_string()).unwrap();

    let out = mlcost(
        &["suite", "--resume", "run", "--history", "history.sqlite"],
        ws.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(read(counts_file), counts, "not recounted on resume");
    assert_eq!(read(ws.path().join("run/counts-previous.json")), stale);
    let after = std::fs::read_to_string(&samples).unwrap();
    assert!(
        after.starts_with(before.trim_end_matches(|c| c != '\n')),
        "the original samples were rewritten"
    );
    // Visits completed before the kill were not taken again: the log grew only at its end.
    let visits_after = std::fs::read_to_string(ws.path().join("run/visits.jsonl")).unwrap();
    assert!(
        visits_after.starts_with(visits_before.trim_end_matches(|c| c != '\n')),
        "completed visits were rewritten"
    );
    let keys = |text: &str| -> Vec<(String, u64, u64, u64)> {
        text.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .map(|v| {
                (
                    v["benchmark"].as_str().unwrap().to_string(),
                    v["size"].as_u64().unwrap(),
                    v["layout"].as_u64().unwrap(),
                    v["round"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let mut all = keys(&visits_after);
    let total = all.len();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), total, "a visit was taken twice");
    let estimates = read(ws.path().join("run/estimates.json"));
    let manifest = read(ws.path().join("run/manifest.json"));
    let expected: usize = manifest["programs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["sizes"].as_array().unwrap().len())
        .sum();
    assert_eq!(estimates.as_array().unwrap().len(), expected);
}

/// Whether valgrind is installed; on CI (`CI=true`) it must be.
/// `mlcost explain` on a control of the run: its loop's instructions, measured under callgrind,
/// beside the prediction from what the interpreter counted in it; the functions' instructions
/// add up to the point's instructions per run as the instruction stage counted them.
fn explain_puts_the_control_s_instructions_on_its_functions(ws: &Path) {
    let out = mlcost(
        &["explain", "afl", "sum_tr", "--compiler", "plain", "--json"],
        ws,
    );
    assert!(out.status.success(), "{}", text(&out));
    let e: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(e["size"], 1000, "{e}");
    let rows = e["rows"].as_array().unwrap();
    let go = rows.iter().find(|r| r["function"] == "go").expect("go");
    let (measured, predicted) = (
        go["measured"].as_f64().unwrap(),
        go["predicted"].as_f64().unwrap(),
    );
    // `go` runs 1000 iterations of a handful of instructions each, on both sides.
    assert!(measured > 3000.0 && predicted > 3000.0, "{go}");
    let total: f64 = rows.iter().map(|r| r["measured"].as_f64().unwrap()).sum();
    let counted: Vec<serde_json::Value> = walk_json(&ws.join("afl/controls"), "instructions.json");
    let per_run = counted
        .iter()
        .flat_map(|v| v.as_array().unwrap().iter())
        .find(|p| p["program"] == "sum_tr" && p["compiler"] == "plain" && p["size"] == 1000)
        .and_then(|p| p["instructions_per_run"].as_f64())
        .expect("sum_tr at 1000 counted by the instruction stage");
    assert!(
        (total - per_run).abs() <= 0.01 * per_run,
        "{total} against {per_run}"
    );
    // The table on the terminal; a program the run does not have is one clear error.
    let out = mlcost(&["explain", "afl", "sum_tr", "--compiler", "plain"], ws);
    let table = text(&out);
    assert!(
        table.contains("│ go ") && table.contains("total"),
        "{table}"
    );
    let out = mlcost(&["explain", "afl", "no_such_program"], ws);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("no_such_program"), "{}", text(&out));
}

/// Every file named `name` under `dir`, parsed.
fn walk_json(dir: &Path, name: &str) -> Vec<serde_json::Value> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk_json(&path, name));
        } else if path.file_name().is_some_and(|n| n == name) {
            found.push(read(path));
        }
    }
    found
}

fn valgrind_present() -> bool {
    let present = std::process::Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        present || std::env::var("CI").as_deref() != Ok("true"),
        "valgrind is missing on CI: install it (scripts/setup.sh)"
    );
    present
}

#[test]
fn compare_fails_on_a_compiler_that_instruments_every_branch() {
    let ws = workspace();
    let mut args = suite_args(
        "afl",
        &[
            "--compiler",
            "plain=ocamlopt",
            "--compiler",
            "afl=ocamlopt",
            "--compiler",
            "same=ocamlopt",
            "--compiler-flags",
            "afl=-inline 0 -afl-instrument",
            // Four layouts and longer quotas than --quick: intervals a nightly job would have.
            "--layouts",
            "4",
            "--quota",
            "150ms",
        ],
    );
    // valgrind's instruction counts are tested here, once: the suite's default.
    args.retain(|a| *a != "--no-instructions");
    let out = mlcost(&args, ws.path());
    assert!(out.status.success(), "{}", text(&out));
    let out = mlcost(
        &["compare", "afl", "--compiler-b", "afl", "--threshold", "5"],
        ws.path(),
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("REGRESSION"), "{all}");
    // The same compiler measured twice, interleaved with it: nothing to report (a nightly
    // job's false alarm).
    let out = mlcost(
        &["compare", "afl", "--compiler-b", "same", "--json"],
        ws.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let cmp: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let alarms: Vec<&serde_json::Value> = cmp["constructs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["verdict"] == "slower" || c["verdict"] == "faster")
        .collect();
    assert!(alarms.len() <= 1, "{alarms:#?}");
    // Instructions, counted under valgrind: instrumenting every branch adds instructions to
    // the constructs that branch, exactly, run after run.
    if valgrind_present() {
        let model = read(ws.path().join("afl/model-afl.json"));
        assert!(
            model["instructions"]["nnls"]["time_ns"].is_object(),
            "{model}"
        );
        // With instructions counted, ordinary constructs are priced by them: IntAdd costs the
        // fitted nanoseconds per instruction times its instructions; FunApp has its own
        // constant; the free fit is kept beside.
        assert_eq!(model["time_model"]["kind"], "structured", "{model}");
        let alpha = model["time_model"]["ns_per_instruction"]["nnls"]["estimate"]
            .as_f64()
            .unwrap();
        assert!(alpha > 0.0, "{alpha}");
        let instructions = model["instructions"]["nnls"]["time_ns"]["IntSub"]["estimate"]
            .as_f64()
            .unwrap();
        let time = model["methods"]["nnls"]["time_ns"]["IntSub"]["estimate"]
            .as_f64()
            .unwrap();
        assert!((time - alpha * instructions).abs() <= 1e-9 * time.abs().max(1.0));
        let priced_apart = model["time_model"]["priced_apart"].as_array().unwrap();
        assert!(
            priced_apart.iter().any(|c| c == "FunApp"),
            "{priced_apart:?}"
        );
        assert!(model["free"]["methods"]["nnls"]["time_ns"]["IntSub"].is_object());
        assert!(
            all.contains("instructions: ") && all.contains(" changed: "),
            "{all}"
        );
        explain_puts_the_control_s_instructions_on_its_functions(ws.path());
    }
    assert!(ws
        .path()
        .join("afl/report/compare-afl-vs-plain.html")
        .is_file());
}

#[test]
#[ignore = "needs a second OCaml release in MLCOST_OLD_OCAMLOPT; test.sh fetches one and runs it"]
fn two_real_ocaml_releases_in_one_run() {
    let old = std::env::var_os("MLCOST_OLD_OCAMLOPT")
        .filter(|p| !p.is_empty())
        .expect("MLCOST_OLD_OCAMLOPT: the second compiler (scripts/fetch-old-ocaml.sh prints it)");
    let ws = workspace();
    let old = format!("4.11={}", old.to_string_lossy());
    let out = mlcost(
        &suite_args("two", &["--compiler", "4.13=ocamlopt", "--compiler", &old]),
        ws.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let run = read(ws.path().join("two/run.json"));
    let versions: Vec<&str> = run["compilers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["version"].as_str().unwrap())
        .collect();
    assert_eq!(versions.len(), 2);
    assert!(versions.contains(&"4.11.1"), "{versions:?}");
    // Points are interleaved per (program, size): both compilers' samples alternate in the log.
    let samples = std::fs::read_to_string(ws.path().join("two/samples.jsonl")).unwrap();
    let compilers: Vec<String> = samples
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["compiler"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let switches = compilers.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(
        switches > 10,
        "compilers were not interleaved ({switches} switches)"
    );
    for file in ["model-4.13.json", "model-4.11.json", "validation-4.11.json"] {
        assert!(ws.path().join("two").join(file).is_file(), "{file}");
    }
    let out = mlcost(&["compare", "two", "--json"], ws.path());
    let cmp: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let constructs = cmp["constructs"].as_array().unwrap();
    assert!(!constructs.is_empty());
    // Two releases may differ: 1 exactly when the comparison names a regression, never 2.
    let regression = constructs.iter().any(|c| c["regression"] == true);
    assert_eq!(
        out.status.code(),
        Some(i32::from(regression)),
        "{}",
        text(&out)
    );
}

fn report_opens_in_chromium(page: &Path) {
    let Some(chromium) = ["chromium", "chromium-browser"].into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    }) else {
        // On CI a missing browser is a failure, not a silent pass; elsewhere the rest of the
        // end-to-end test is still worth running.
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "no chromium for the browser check (test.sh installs Debian's chromium)"
        );
        eprintln!("browser check not run: no chromium (test.sh installs Debian's chromium)");
        return;
    };
    let profile = tempfile::tempdir().unwrap();
    let shot = profile.path().join("report.png");
    let url = format!("file://{}", page.display());
    let run = |extra: &[&str]| {
        Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--enable-logging=stderr",
                "--v=0",
                "--window-size=1400,2400",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(extra)
            .arg(&url)
            .output()
            .expect("chromium runs")
    };
    let dom = run(&["--dump-dom"]);
    let html = String::from_utf8_lossy(&dom.stdout);
    assert!(
        html.contains("Cost of each construct") && html.contains("FunApp"),
        "no cost table in the rendered page"
    );
    assert!(
        html.matches("<svg").count() >= 2,
        "no charts in the rendered page"
    );
    let log = String::from_utf8_lossy(&dom.stderr);
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:?}");
    let screenshot = run(&[&format!("--screenshot={}", shot.display())]);
    assert!(
        screenshot.status.success(),
        "{}",
        String::from_utf8_lossy(&screenshot.stderr)
    );
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 50_000,
        "screenshot of {} bytes",
        png.len()
    );
}
