//! `mlcost gen` on the built-in templates: every construct of the catalogue is stressed and the
//! count matrix at the default sizes has full column rank.

use std::process::Command;

#[test]
fn the_builtin_suite_separates_every_construct() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mlcost"))
        .args(["gen", "--out", "suite"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let design = stdout
        .lines()
        .find(|l| l.starts_with("design:"))
        .expect("a design line");
    let constructs: usize = design
        .split(" × ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("construct count");
    assert!(
        design.contains(&format!("rank {constructs} (full)")),
        "{design}"
    );
    assert_eq!(constructs, semantics_catalogue_len(), "{stdout}");
    assert!(
        !stdout.contains("cannot be separated") && !stdout.contains("never run by the suite"),
        "{stdout}"
    );
    let condition: f64 = design
        .rsplit("condition number ")
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(condition < 100.0, "{design}");
}

fn semantics_catalogue_len() -> usize {
    semantics::catalogue().len()
}
