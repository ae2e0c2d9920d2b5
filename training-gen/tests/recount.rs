//! Recounting a suite whose counts came from another cost semantics: the counts are replaced
//! by this interpreter's, the old ones kept; a program whose source changed or whose result
//! this interpreter no longer computes keeps no counts and is named.

use rundir::PREVIOUS_COUNTS_FILE;
use std::collections::BTreeMap;
use std::path::Path;
use training_gen::{generate, recount_suite, Manifest, ProgramCounts, RenderContext};

/// Two built-in templates rendered into a suite, counted with this interpreter as a build
/// would (without compiling: the recount never looks at the binaries).
fn counted_suite() -> (tempfile::TempDir, Vec<ProgramCounts>) {
    let templates = tempfile::tempdir().unwrap();
    let builtin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../templates");
    for name in ["fintadd", "cons"] {
        let file = format!("{name}.ml.tera");
        std::fs::copy(builtin.join(&file), templates.path().join(&file)).unwrap();
    }
    let suite = tempfile::tempdir().unwrap();
    let context = RenderContext {
        ocaml_version: "4.13.1".into(),
        word_size: 64,
    };
    let outcome = generate(suite.path(), Some(templates.path()), false, &context).unwrap();
    let mut counts = Vec::new();
    for entry in &outcome.manifest.programs {
        let sizes = &entry.sizes[..2];
        let results =
            semantics::Program::count_at_sizes(&suite.path().join(&entry.source), sizes).unwrap();
        counts.extend(results.into_iter().map(|r| ProgramCounts {
            program: entry.name.clone(),
            size: r.size as u64,
            counts: r.counts,
            digest: r.digest,
        }));
    }
    assert!(outcome.manifest.programs.len() >= 2 && counts.len() >= 4);
    (suite, counts)
}

/// What an older interpreter might have written: one construct counted twice as often,
/// another not at all, under another catalogue.
fn stale(counts: &[ProgramCounts]) -> Vec<ProgramCounts> {
    counts
        .iter()
        .map(|row| {
            let mut counts: BTreeMap<String, u64> = row.counts.clone();
            counts.remove("Base");
            if let Some(n) = counts.get_mut("IntAdd") {
                *n *= 2;
            }
            counts.insert("RetiredConstruct".into(), 7);
            ProgramCounts {
                counts,
                ..row.clone()
            }
        })
        .collect()
}

fn write_counts(suite: &Path, counts: &[ProgramCounts], counted_by: Option<&str>) {
    rundir::write_json(&suite.join("counts.json"), counts).unwrap();
    let mut manifest = Manifest::load(suite).unwrap();
    manifest.counted_by = counted_by.map(str::to_string);
    manifest.save(suite).unwrap();
}

fn read_counts(path: &Path) -> Vec<ProgramCounts> {
    rundir::read_json(path).unwrap()
}

#[test]
fn a_recount_replaces_another_semantics_counts_and_keeps_them_aside() {
    let (suite, fresh) = counted_suite();
    let old = stale(&fresh);
    write_counts(suite.path(), &old, Some("0123456789abcdef"));
    let counted = std::sync::Mutex::new(Vec::new());
    let outcome = recount_suite(suite.path(), &|p| {
        counted.lock().unwrap().push(p.to_string())
    })
    .unwrap();

    assert_eq!(read_counts(&suite.path().join("counts.json")), fresh);
    assert_eq!(read_counts(&suite.path().join(PREVIOUS_COUNTS_FILE)), old);
    let manifest = Manifest::load(suite.path()).unwrap();
    assert_eq!(
        manifest.counted_by,
        Some(semantics::catalogue_fingerprint())
    );
    assert_eq!(counted.lock().unwrap().len(), manifest.programs.len());
    assert_eq!(
        outcome.previous_fingerprint.as_deref(),
        Some("0123456789abcdef")
    );
    assert_eq!(
        (outcome.points, outcome.changed),
        (fresh.len(), fresh.len())
    );
    assert_eq!(outcome.constructs_added, ["Base"]);
    assert_eq!(outcome.constructs_removed, ["RetiredConstruct"]);
    assert!(outcome.failures.is_empty(), "{:?}", outcome.failures);
    let total = |rows: &[ProgramCounts], c: &str| -> u64 {
        rows.iter().filter_map(|r| r.counts.get(c)).sum()
    };
    let int_add = outcome
        .moved
        .iter()
        .find(|m| m.construct == "IntAdd")
        .expect("IntAdd moved");
    assert_eq!(
        (int_add.before, int_add.after),
        (total(&old, "IntAdd"), total(&fresh, "IntAdd"))
    );
    assert!(int_add.before > 0 && int_add.before == 2 * int_add.after);

    // Counted again by the same semantics: nothing changes.
    let again = recount_suite(suite.path(), &|_| {}).unwrap();
    assert_eq!(again.changed, 0);
    assert!(again.moved.is_empty() && again.constructs_added.is_empty());
    assert_eq!(read_counts(&suite.path().join("counts.json")), fresh);
}

#[test]
fn a_program_not_the_one_timed_keeps_no_counts_and_is_named() {
    let (suite, fresh) = counted_suite();
    let manifest = Manifest::load(suite.path()).unwrap();
    let (edited, other) = (&manifest.programs[0], &manifest.programs[1]);
    // The recorded digest is not what this interpreter computes: as if the binary had
    // computed something else.
    let mut old = fresh.clone();
    let wrong = old.iter_mut().find(|r| r.program == other.name).unwrap();
    wrong.digest = "ffffffffffffffff".into();
    let wrong_size = wrong.size;
    write_counts(suite.path(), &old, None);
    // And the first program's source was edited after it was built.
    let source = suite.path().join(&edited.source);
    let text = std::fs::read_to_string(&source).unwrap();
    std::fs::write(&source, format!("{text}\n(* edited *)\n")).unwrap();

    let outcome = recount_suite(suite.path(), &|_| {}).unwrap();
    assert_eq!(outcome.previous_fingerprint, None);
    assert_eq!(outcome.failures.len(), 2, "{:?}", outcome.failures);
    let about = |name: &str| {
        outcome
            .failures
            .iter()
            .find(|f| f.starts_with(&format!("{name}: ")))
            .unwrap_or_else(|| panic!("{name} not named: {:?}", outcome.failures))
            .clone()
    };
    let edited_line = about(&edited.name);
    assert!(
        edited_line.contains(&source.display().to_string()) && edited_line.contains("changed"),
        "{edited_line}"
    );
    let wrong_line = about(&other.name);
    assert!(
        wrong_line.contains(&format!("at size {wrong_size}"))
            && wrong_line.contains("ffffffffffffffff"),
        "{wrong_line}"
    );
    // Neither keeps counts; nothing is lost, the previous ones are aside.
    let kept = read_counts(&suite.path().join("counts.json"));
    assert!(kept
        .iter()
        .all(|r| r.program != edited.name && r.program != other.name));
    assert_eq!(outcome.points, kept.len());
    assert_eq!(read_counts(&suite.path().join(PREVIOUS_COUNTS_FILE)), old);
}
