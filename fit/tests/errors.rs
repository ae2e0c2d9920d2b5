//! Inputs the fit must refuse, each with a message that names what to fix.

use std::collections::BTreeMap;

use fit::synthetic::{generate, SyntheticSpec};
use fit::{fit, FitContext, FitError, FitOptions, Observation};

fn context() -> FitContext {
    FitContext {
        compiler: serde_json::json!({}),
        machine: serde_json::json!({}),
        word_size_bytes: 8,
        minor_heap_words: 262_144,
    }
}

fn options() -> FitOptions {
    FitOptions {
        bootstrap_resamples: 50,
        ..FitOptions::default()
    }
}

/// A point of a program whose counts are `per_iteration · size + Base`, timed exactly.
fn point(program: &str, size: u64, per_iteration: &[(&str, f64)]) -> Observation {
    let mut counts: BTreeMap<String, f64> = per_iteration
        .iter()
        .map(|(construct, count)| (construct.to_string(), count * size as f64))
        .collect();
    counts.insert("Base".into(), 1.0);
    let ns = 20.0 + counts.values().sum::<f64>();
    Observation {
        program: program.into(),
        size,
        ns_per_run: ns,
        ns_per_run_layouts: vec![ns],
        ns_ci: (ns * 0.99, ns * 1.01),
        words_per_run: 0.0,
        minor_collections_per_run: 0.0,
        promoted_words_per_run: 0.0,
        ns_per_minor_collection: None,
        counts,
    }
}

fn suite(programs: &[(&str, &[(&str, f64)])]) -> Vec<Observation> {
    programs
        .iter()
        .flat_map(|(program, counts)| (1..=6).map(move |k| point(program, k * 1000, counts)))
        .collect()
}

#[test]
fn rank_deficient_design_names_each_aliased_group() {
    // A and B always run 1:1, D and E always 1:2; C is separable.
    let observations = suite(&[
        ("pa", &[("A", 1.0), ("B", 1.0), ("C", 1.0)]),
        ("pb", &[("A", 2.0), ("B", 2.0), ("C", 3.0)]),
        ("pc", &[("D", 1.0), ("E", 2.0), ("C", 1.0)]),
        ("pd", &[("D", 3.0), ("E", 6.0)]),
        ("pe", &[("C", 5.0)]),
    ]);
    let error = fit(&observations, &context(), &options()).unwrap_err();
    match &error {
        FitError::RankDeficient {
            rank,
            constructs,
            aliased,
        } => {
            assert_eq!((*rank, *constructs), (4, 6));
            assert_eq!(
                aliased,
                &vec![
                    vec!["A".to_string(), "B".to_string()],
                    vec!["D".to_string(), "E".to_string()]
                ]
            );
        }
        other => panic!("expected RankDeficient, got {other:?}"),
    }
    let message = error.to_string();
    assert!(message.contains("{A, B} and {D, E}"), "{message}");
}

#[test]
fn realistic_suite_without_its_separating_programs_is_refused() {
    // Without the let-lambda, let-rec and map programs, every closure is bound by exactly one
    // `let f = fun …`: FunDef and LetLambda always run together.
    let full = generate(&SyntheticSpec {
        sizes: (1..=5).map(|k| k * 4000).collect(),
        ..SyntheticSpec::default()
    });
    let observations: Vec<Observation> = full
        .observations
        .into_iter()
        .filter(|o| !["fletlambda", "fletrec", "map_positive"].contains(&o.program.as_str()))
        .collect();
    match fit(&observations, &full.context, &options()) {
        Err(FitError::RankDeficient { aliased, .. }) => {
            assert_eq!(
                aliased,
                vec![vec!["FunDef".to_string(), "LetLambda".to_string()]]
            );
        }
        other => panic!("expected RankDeficient, got {other:?}"),
    }
}

#[test]
fn invalid_observations_are_named() {
    let good = suite(&[("pa", &[("A", 1.0)]), ("pb", &[("A", 1.0), ("B", 2.0)])]);
    type Corruption = Box<dyn Fn(&mut Observation)>;
    let cases: Vec<(Corruption, &str)> = vec![
        (Box::new(|o| o.ns_per_run = f64::NAN), "ns_per_run"),
        (Box::new(|o| o.ns_per_run = -3.0), "ns_per_run"),
        (
            Box::new(|o| o.ns_per_run_layouts = vec![1.0, 0.0]),
            "layout",
        ),
        (Box::new(|o| o.ns_ci = (5.0, 1.0)), "ns_ci"),
        (
            Box::new(|o| o.words_per_run = f64::INFINITY),
            "words_per_run",
        ),
        (
            Box::new(|o| o.ns_per_minor_collection = Some(-1.0)),
            "minor_collection",
        ),
        (
            Box::new(|o| {
                o.counts.insert("A".into(), -1.0);
            }),
            "count of A",
        ),
    ];
    for (corrupt, expected) in cases {
        let mut observations = good.clone();
        corrupt(&mut observations[3]);
        let error = fit(&observations, &context(), &options()).unwrap_err();
        let message = error.to_string();
        assert!(
            matches!(&error, FitError::InvalidObservation { program, size, .. } if program == "pa" && *size == 4000),
            "{message}"
        );
        assert!(message.contains(expected), "{message} lacks {expected}");
    }

    let mut duplicated = good.clone();
    duplicated.push(good[0].clone());
    let message = fit(&duplicated, &context(), &options())
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("pa at size 1000") && message.contains("twice"),
        "{message}"
    );
}

#[test]
fn unusable_suites_context_and_options_are_refused() {
    let good = suite(&[("pa", &[("A", 1.0)]), ("pb", &[("A", 1.0), ("B", 2.0)])]);
    assert_eq!(
        fit(&[], &context(), &options()),
        Err(FitError::NoObservations)
    );
    assert_eq!(
        fit(&good[..2], &context(), &options()),
        Err(FitError::TooFewPoints {
            points: 2,
            constructs: 2
        })
    );
    let mut no_counts = good.clone();
    for observation in &mut no_counts {
        observation.counts.clear();
    }
    assert_eq!(
        fit(&no_counts, &context(), &options()),
        Err(FitError::NoConstructs)
    );

    let zero_word = FitContext {
        word_size_bytes: 0,
        ..context()
    };
    assert!(matches!(
        fit(&good, &zero_word, &options()),
        Err(FitError::InvalidContext(_))
    ));
    let zero_heap = FitContext {
        minor_heap_words: 0,
        ..context()
    };
    assert!(matches!(
        fit(&good, &zero_heap, &options()),
        Err(FitError::InvalidContext(_))
    ));
    for bad in [
        FitOptions {
            bootstrap_resamples: 10,
            ..options()
        },
        FitOptions {
            confidence: 1.0,
            ..options()
        },
        FitOptions {
            methods: Default::default(),
            ..options()
        },
    ] {
        assert!(matches!(
            fit(&good, &context(), &bad),
            Err(FitError::InvalidOptions(_))
        ));
    }
    assert!("nnls".parse::<fit::Method>().is_ok());
    assert!(matches!(
        "ridge".parse::<fit::Method>(),
        Err(FitError::InvalidOptions(_))
    ));
}

#[test]
fn a_well_posed_handmade_suite_fits_exactly() {
    let observations = suite(&[
        ("pa", &[("A", 1.0), ("B", 1.0)]),
        ("pb", &[("A", 2.0), ("B", 1.0)]),
        ("pc", &[("B", 3.0)]),
    ]);
    let model = fit(&observations, &context(), &options()).unwrap();
    for method in fit::Method::ALL {
        let costs = &model.methods[&method].time_ns;
        assert!((costs["A"].estimate - 1.0).abs() < 1e-9, "{method}");
        assert!((costs["B"].estimate - 1.0).abs() < 1e-9, "{method}");
        assert!((costs["Base"].estimate - 21.0).abs() < 1e-6, "{method}");
    }
}
