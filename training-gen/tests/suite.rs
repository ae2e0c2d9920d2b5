//! The training suite with the real compiler: the built-in suite renders, compiles and
//! verifies; what the compiler optimised away fails verification; broken templates are named
//! and the rest of the suite still comes out.

use ocaml_runtime::{Compiler, CompilerSetup};
use std::path::Path;
use std::time::Duration;
use training_gen::{build_suite, generate, BuildOptions, RenderContext};

fn context() -> RenderContext {
    RenderContext {
        ocaml_version: "4.13.1".into(),
        word_size: 64,
    }
}

fn compilers() -> Vec<CompilerSetup> {
    vec![CompilerSetup {
        compiler: Compiler::discover(None, None).expect("ocamlopt on PATH"),
        flags: vec!["-inline".into(), "0".into()],
    }]
}

fn build(suite: &Path, layouts: u32) -> training_gen::BuildOutcome {
    // Counted against a 512 KiB level 2 and a 32 MiB last level whatever this machine's, so
    // that the miss and streaming templates' largest sizes are beyond them (read once per
    // process, before the first count).
    static CACHES: std::sync::Once = std::sync::Once::new();
    CACHES.call_once(|| {
        std::env::set_var("MLCOST_CACHE_BYTES", "512K");
        std::env::set_var("MLCOST_LAST_LEVEL_CACHE_BYTES", "32M");
    });
    build_suite(
        &BuildOptions {
            suite,
            compilers: &compilers(),
            layouts,
            timeout: Duration::from_secs(60),
        },
        &|_| {},
    )
    .unwrap()
}

#[test]
fn every_builtin_template_renders_compiles_and_passes_verification() {
    let tmp = tempfile::tempdir().unwrap();
    let generated = generate(tmp.path(), None, true, &context()).unwrap();
    assert!(generated.errors.is_empty(), "{:?}", generated.errors);
    let outcome = build(tmp.path(), 1);
    assert!(outcome.failures.is_empty(), "{:#?}", outcome.failures);
    for program in &outcome.manifest.programs {
        let b = &program.builds[0];
        assert!(
            b.verified() && b.digests_agree == Some(true),
            "{}: {b:?}",
            program.name
        );
        let rows = outcome
            .counts
            .iter()
            .filter(|c| c.program == program.name)
            .count();
        assert_eq!(rows, program.sizes.len(), "{}", program.name);
    }
    // Each template really runs the construct it claims to stress, at every size: in every
    // program, or, where variants differ only in the data (a constant or cyclic arm beside
    // random ones, whose misses the predictor learns), in at least one.
    let templates: std::collections::BTreeSet<&str> = outcome
        .manifest
        .programs
        .iter()
        .map(|p| p.template.as_str())
        .collect();
    for template in templates {
        let programs: Vec<_> = outcome
            .manifest
            .programs
            .iter()
            .filter(|p| p.template == template)
            .collect();
        let stressed_at = |program: &training_gen::manifest::ProgramEntry| {
            let stressed = &program.constructs[0];
            outcome
                .counts
                .iter()
                .filter(|c| c.program == program.name)
                .map(|row| row.counts.get(stressed).copied().unwrap_or(0) > 0)
                .collect::<Vec<bool>>()
        };
        let runs_it = |program: &training_gen::manifest::ProgramEntry| {
            stressed_at(program).iter().all(|&runs| runs)
        };
        let stressed = programs[0].constructs[0].as_str();
        let data_only = ["JumpMiss", "BranchMiss"].contains(&stressed);
        if ["FarLoad", "FarStreamWord", "FarStackWord"].contains(&stressed) {
            // Misses happen only beyond a cache (streams beyond the last level, frames
            // deeper than it): the small sizes are the baseline, the largest must run it.
            for program in programs {
                assert_eq!(stressed_at(program).last(), Some(&true), "{}", program.name);
            }
        } else if data_only {
            // Misses depend on the data: below a predictor's capacity a run's outcomes are
            // learnt (as the processor learns a coin toss over 4000 elements), so the small
            // sizes may be the baseline; the largest must miss, in one variant at least.
            assert!(
                programs
                    .iter()
                    .any(|p| stressed_at(p).last() == Some(&true)),
                "{template}"
            );
        } else {
            for program in programs {
                assert!(
                    runs_it(program),
                    "{} never runs {}",
                    program.name,
                    program.constructs[0]
                );
            }
        }
    }
}

fn user_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

const INLINED_FAPP: &str = r#"{#
construct = "FunApp"
[[check]]
function = "fapp_inl"
calls = "id"
min = 4
why = "the calls to `id` were inlined away: `id` must be marked [@inline never]"
#}
let id n = n
let rec fapp_inl x = if x = 0 then 0 else fapp_inl (id (id (id (id (x - 1)))))
let input n = n
let run n = fapp_inl n
"#;

#[test]
fn a_template_whose_id_can_be_inlined_fails_verification_and_says_why() {
    let user = user_dir(&[("fapp_inlined.ml.tera", INLINED_FAPP)]);
    let suite = tempfile::tempdir().unwrap();
    generate(suite.path(), Some(user.path()), false, &context()).unwrap();
    let outcome = build(suite.path(), 1);
    let failure = outcome
        .failures
        .iter()
        .find(|f| f.starts_with("fapp_inlined"))
        .expect("the inlined template must fail");
    assert!(
        failure.contains("found 0") && failure.contains("[@inline never]"),
        "{failure}"
    );
}

#[test]
fn broken_templates_are_named_and_the_rest_of_the_suite_is_generated() {
    let user = user_dir(&[
        ("bad_tera.ml.tera", "{#\nconstruct = \"IntAdd\"\n#}\nlet input n = n\n{% for x in %}\nlet run n = n\n"),
        ("bad_ocaml.ml.tera", "{#\nconstruct = \"IntAdd\"\nsizes = [10]\n#}\nlet input n = n\nlet run n = n +\n"),
        ("good.ml.tera", "{#\nconstruct = \"IntAdd\"\nsizes = [10, 20]\n#}\nlet input n = n\nlet run n = n + n\n"),
    ]);
    let suite = tempfile::tempdir().unwrap();
    let generated = generate(suite.path(), Some(user.path()), false, &context()).unwrap();
    assert_eq!(generated.errors.len(), 1, "{:?}", generated.errors);
    let error = generated.errors[0].to_string();
    assert!(error.contains("bad_tera.ml.tera:5"), "{error}");
    let names: Vec<&str> = generated
        .manifest
        .programs
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert!(
        names.contains(&"bad_ocaml") && names.contains(&"good"),
        "{names:?}"
    );

    let outcome = build(suite.path(), 1);
    let failure = outcome
        .failures
        .iter()
        .find(|f| f.starts_with("bad_ocaml"))
        .expect("bad_ocaml fails");
    assert!(failure.contains("bad_ocaml.ml:"), "{failure}");
    let verified = outcome
        .manifest
        .programs
        .iter()
        .filter(|p| p.builds.iter().all(|b| b.verified()))
        .count();
    assert_eq!(verified, outcome.manifest.programs.len() - 1);
}
