//! `mlcost bench` as a user runs it: the table, the JSON, and errors that name the file.

use std::path::Path;
use std::process::{Command, Output};

fn mlcost(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mlcost"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("mlcost runs")
}

const FAST: [&str; 6] = ["--quota", "150ms", "--layouts", "2", "--out", "out"];

#[test]
fn bench_prints_the_core_bench_table_and_json() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("sum.ml"),
        "let rec sum n = if n = 0 then 0 else n + sum (n - 1)\nlet input n = n\nlet run n = sum n\n",
    )
    .unwrap();
    let out = mlcost(
        &[
            &["bench", "sum.ml", "--size", "100", "--size", "1000"][..],
            &FAST,
        ]
        .concat(),
        tmp.path(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for column in [
        "Name", "Time/Run", "mWd/Run", "mjWd/Run", "Prom/Run", "R²", "95% CI",
    ] {
        assert!(stdout.contains(column), "no {column} in\n{stdout}");
    }
    assert!(
        stdout.contains("sum:100") && stdout.contains("sum:1000"),
        "{stdout}"
    );

    // The same output directory again is refused: its measurements are kept.
    let again = mlcost(
        &[&["bench", "sum.ml", "--size", "500"][..], &FAST].concat(),
        tmp.path(),
    );
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already holds measurements"));
    std::fs::remove_dir_all(tmp.path().join("out")).unwrap();
    let out = mlcost(
        &[&["bench", "sum.ml", "--size", "500", "--json"][..], &FAST].concat(),
        tmp.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    let first = &json[0];
    assert_eq!(first["benchmark"], "sum");
    assert_eq!(first["size"], 500);
    let est = first["ns_per_run"]["estimate"].as_f64().unwrap();
    assert!(first["ns_per_run"]["ci_low"].as_f64().unwrap() <= est);
    assert_eq!(first["layouts"].as_array().unwrap().len(), 2);
    assert!(tmp.path().join("out/samples.jsonl").is_file());
}

#[test]
fn a_syntax_error_names_file_and_line_and_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("bad.ml"),
        "let input n = n\nlet run n = (n +\n",
    )
    .unwrap();
    let out = mlcost(&[&["bench", "bad.ml"][..], &FAST].concat(), tmp.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    // 2 is an error; 1 would tell a nightly job "regression".
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("bad.ml:3") || stderr.contains("bad.ml:2"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bad_flags_and_missing_files_are_one_line_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let out = mlcost(&["bench", "nope.ml"], tmp.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("nope.ml: no such file"), "{stderr}");
    std::fs::write(tmp.path().join("p.ml"), "let input n = n\nlet run n = n\n").unwrap();
    let out = mlcost(&["bench", "p.ml", "--compiler", "/no/ocamlopt"], tmp.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("/no/ocamlopt"), "{stderr}");
}

#[test]
fn bench_measures_in_rounds_of_visits_recorded_with_their_seed() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("sum.ml"),
        "let rec sum n = if n = 0 then 0 else n + sum (n - 1)\nlet input n = n\nlet run n = sum n\n",
    )
    .unwrap();
    let args = [
        "bench",
        "sum.ml",
        "--size",
        "200",
        "--size",
        "800",
        "--rounds",
        "3",
        "--seed",
        "42",
        "--json",
        "--catch-up-rounds",
        "0",
    ];
    let out = mlcost(&[&args[..], &FAST].concat(), tmp.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    for estimate in json.as_array().unwrap() {
        // Two layouts, three rounds: six visits per size, each layout's visits listed.
        assert_eq!(estimate["visits"], 6, "{estimate}");
        for layout in estimate["layouts"].as_array().unwrap() {
            let visits = layout["visit_ns_per_run"].as_array().unwrap();
            // Every visit is either kept or left out for a reason the layout counts.
            let left_out = layout["slow_machine_visits"].as_u64().unwrap()
                + layout["implausible_visits"].as_u64().unwrap();
            assert_eq!(visits.len() + left_out as usize, 3, "{layout}");
        }
    }
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("out/run.json")).unwrap())
            .unwrap();
    assert_eq!(
        (run["rounds"].as_u64(), run["seed"].as_u64()),
        (Some(3), Some(42))
    );
    // Every round visits all four (size, layout) points once, and the rounds come in order.
    let visits: Vec<serde_json::Value> =
        std::fs::read_to_string(tmp.path().join("out/visits.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    assert_eq!(visits.len(), 12);
    let rounds: Vec<u64> = visits
        .iter()
        .map(|v| v["round"].as_u64().unwrap())
        .collect();
    assert_eq!(rounds, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
    let canary = std::fs::read_to_string(tmp.path().join("out/canary.jsonl")).unwrap();
    assert!(canary.lines().count() >= 1, "no canary reading");

    let out = mlcost(
        &[&["bench", "sum.ml", "--rounds", "0"][..], &FAST].concat(),
        tmp.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--rounds must be at least 1"));
}

#[test]
fn count_checks_the_interpreter_against_the_native_binary() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("tree.ml"),
        "type t = Leaf | Node of t * int * t\n\
         let rec insert x = function Leaf -> Node (Leaf, x, Leaf)\n\
         | Node (l, y, r) as t -> if x < y then Node (insert x l, y, r) else if x > y then Node (l, y, insert x r) else t\n\
         let rec sum = function Leaf -> 0 | Node (l, x, r) -> sum l + x + sum r\n\
         let input n = List.init n (fun i -> (i * 7919) mod (n + 1))\n\
         let run l = sum (List.fold_left (fun t x -> insert x t) Leaf l) + max 0 (List.length l)\n",
    )
    .unwrap();
    let out = mlcost(
        &["count", "tree.ml", "--size", "300", "--native", "--json"],
        tmp.path(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let digest = json["digest"].as_str().unwrap();
    assert!(
        stderr.contains(&format!("native result digest agrees: {digest}")),
        "{stderr}"
    );
    let out = mlcost(
        &["count", "tree.ml", "--size", "-1", "--native"],
        tmp.path(),
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
