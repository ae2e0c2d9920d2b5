//! The model as a product: `model.json`'s names, determinism, predictions, memory and GC.

use std::collections::BTreeMap;

use fit::synthetic::{generate, SyntheticSpec, MINOR_HEAP_WORDS, NS_PER_MINOR_COLLECTION};
use fit::{fit, CostModel, FitOptions, Method};

fn small_options() -> FitOptions {
    FitOptions {
        bootstrap_resamples: 60,
        ..FitOptions::default()
    }
}

fn fitted(seed: u64, options: &FitOptions) -> (fit::synthetic::SyntheticSuite, CostModel) {
    let suite = generate(&SyntheticSpec {
        seed,
        sizes: (1..=10).map(|k| k * 2000).collect(),
        ..SyntheticSpec::default()
    });
    let model = fit(&suite.observations, &suite.context, options).unwrap();
    (suite, model)
}

#[test]
fn model_json_has_the_issue_names_and_round_trips() {
    let (_, model) = fitted(1, &small_options());
    let json = serde_json::to_value(&model).unwrap();
    assert_eq!(json["compiler"]["version"], "synthetic");
    assert_eq!(json["machine"]["name"], "synthetic");
    for method in ["ls", "l1", "nnls"] {
        let fun_app = &json["methods"][method]["time_ns"]["FunApp"];
        for field in ["estimate", "ci_low", "ci_high"] {
            assert!(fun_app[field].is_f64(), "{method}.{field}");
        }
    }
    assert!(json["methods"]["ls"]["time_ns"]["FunApp"]["std_error"].is_f64());
    assert!(json["methods"]["l1"]["time_ns"]["FunApp"]
        .get("std_error")
        .is_none());
    assert_eq!(json["memory_bytes"]["Cons"], 24);
    assert!(json["memory_fit"]["rounding_residual"]["Cons"].is_f64());
    assert_eq!(json["gc"]["minor_heap_bytes"], 2 * 1024 * 1024);
    for field in ["estimate", "ci_low", "ci_high"] {
        assert!(json["gc"]["ns_per_minor_collection"][field].is_f64());
    }
    let diagnostics = &json["diagnostics"];
    assert_eq!(diagnostics["rank"], 37);
    assert!(diagnostics["condition_number"].as_f64().unwrap() >= 1.0);
    assert_eq!(diagnostics["aliased"], serde_json::json!([]));
    assert!(diagnostics["vif"]["IntDiv"].as_f64().unwrap() >= 1.0);
    for method in ["ls", "l1", "nnls"] {
        assert!(diagnostics["lopo_error_pct"][method].is_f64(), "{method}");
    }

    let text = serde_json::to_string_pretty(&model).unwrap();
    let back: CostModel = serde_json::from_str(&text).unwrap();
    assert_eq!(back, model);
}

#[test]
fn same_seed_gives_the_same_model_whatever_the_threads() {
    let one_thread = FitOptions {
        threads: 1,
        ..small_options()
    };
    let three_threads = FitOptions {
        threads: 3,
        ..small_options()
    };
    let (_, first) = fitted(2, &one_thread);
    let (_, second) = fitted(2, &three_threads);
    assert_eq!(first, second);
    let other_seed = FitOptions {
        seed: 99,
        ..one_thread
    };
    let (_, third) = fitted(2, &other_seed);
    let interval = |model: &CostModel| model.methods[&Method::L1].time_ns["FunApp"].ci_low;
    assert_ne!(interval(&first), interval(&third));
}

#[test]
fn memory_constants_are_exact_integers_from_exact_word_counts() {
    let (suite, model) = fitted(3, &small_options());
    let expected: BTreeMap<String, i64> = suite
        .true_bytes
        .iter()
        .map(|(construct, bytes)| (construct.clone(), *bytes as i64))
        .collect();
    assert_eq!(model.memory_bytes, expected);
    assert_eq!(model.memory_bytes["Cons"], 24);
    assert_eq!(model.memory_bytes["FunDef"], 24);
    assert_eq!(model.memory_bytes["Closure"], 8);
    assert!(model.memory_fit.max_abs_rounding_residual < 1e-6);
    assert!(model.memory_fit.max_abs_error_bytes_per_run < 1e-6);
    assert_eq!(model.memory_fit.word_size_bytes, 8);
}

#[test]
fn memory_follows_the_word_size_and_survives_regression_noise() {
    // A 32-bit target, and word counts that come from the harness's regression slopes.
    let mut suite = generate(&SyntheticSpec {
        seed: 4,
        word_size_bytes: 4,
        sizes: (1..=10).map(|k| k * 2000).collect(),
        ..SyntheticSpec::default()
    });
    for (index, observation) in suite.observations.iter_mut().enumerate() {
        let wobble = if index % 2 == 0 {
            1.0 + 1e-4
        } else {
            1.0 - 1e-4
        };
        observation.words_per_run *= wobble;
    }
    let model = fit(&suite.observations, &suite.context, &small_options()).unwrap();
    assert_eq!(model.memory_bytes["Cons"], 12);
    assert_eq!(model.memory_bytes["FunDef"], 12);
    assert_eq!(model.memory_bytes["Closure"], 4);
    let others_allocate_nothing = model
        .memory_bytes
        .iter()
        .filter(|(construct, _)| !["Cons", "FunDef", "Closure"].contains(&construct.as_str()))
        .all(|(_, bytes)| *bytes == 0);
    assert!(others_allocate_nothing);
    // The noise shows in the residuals (most in Base, a per-run constant next to 10^5-byte
    // runs) but moves no constant anywhere near a rounding boundary.
    let residual = model.memory_fit.max_abs_rounding_residual;
    assert!(residual > 0.0 && residual < 0.5, "{residual}");
    for construct in ["Cons", "FunDef", "Closure"] {
        let residual = model.memory_fit.rounding_residual[construct];
        assert!(residual.abs() < 0.01, "{construct}: {residual}");
    }
}

#[test]
fn gc_model_recovers_heap_size_and_collection_time() {
    let (_, model) = fitted(5, &small_options());
    assert_eq!(model.gc.minor_heap_bytes, MINOR_HEAP_WORDS * 8);
    let collection = model.gc.ns_per_minor_collection.unwrap();
    assert!(
        collection.contains(NS_PER_MINOR_COLLECTION),
        "{collection:?}"
    );
    assert!(collection.ci_high - collection.ci_low < 0.1 * NS_PER_MINOR_COLLECTION);
    assert!(model.gc.collection_points > 20);
    let from_allocation = model.gc.minor_heap_bytes_from_allocation.unwrap();
    assert!((from_allocation / model.gc.minor_heap_bytes as f64 - 1.0).abs() < 1e-9);
}

#[test]
fn predictions_add_construct_costs_and_collections() {
    let (_, model) = fitted(6, &small_options());
    let counts: BTreeMap<String, f64> = [("FunApp", 1000.0), ("Cons", 500.0), ("Base", 1.0)]
        .into_iter()
        .map(|(construct, count)| (construct.to_string(), count))
        .collect();
    for method in Method::ALL {
        let costs = &model.methods[&method].time_ns;
        let execution = 1000.0 * costs["FunApp"].estimate
            + 500.0 * costs["Cons"].estimate
            + costs["Base"].estimate;
        let collections = 500.0 * 24.0 / (MINOR_HEAP_WORDS * 8) as f64;
        let collection_ns = model.gc.ns_per_minor_collection.unwrap().estimate;
        let without_gc = model.predict_ns(method, &counts, false);
        let with_gc = model.predict_ns(method, &counts, true);
        assert!((without_gc - execution).abs() < 1e-9 * execution);
        assert!((with_gc - execution - collections * collection_ns).abs() < 1e-9 * with_gc);
    }
    assert_eq!(model.predict_bytes(&counts), 500.0 * 24.0);

    let mut with_unknown = counts.clone();
    with_unknown.insert("StringLength".into(), 10.0);
    assert_eq!(
        model.unknown_constructs(&with_unknown),
        vec!["StringLength"]
    );
    assert_eq!(
        model.predict_ns(Method::Ls, &with_unknown, false),
        model.predict_ns(Method::Ls, &counts, false)
    );
}

#[test]
fn one_method_fits_only_that_method() {
    let options = FitOptions {
        methods: [Method::Nnls].into_iter().collect(),
        ..small_options()
    };
    let (_, model) = fitted(7, &options);
    assert_eq!(
        model.methods.keys().copied().collect::<Vec<_>>(),
        vec![Method::Nnls]
    );
    assert_eq!(
        model.try_predict_ns(Method::L1, &BTreeMap::new(), false),
        Err(fit::FitError::MethodNotFitted(Method::L1))
    );
    assert!(model.diagnostics.lopo_error_pct.contains_key(&Method::Nnls));
    assert!(!model.diagnostics.lopo_error_pct.contains_key(&Method::Ls));
}

#[test]
fn constructs_never_counted_are_absent() {
    let mut suite = generate(&SyntheticSpec {
        seed: 8,
        sizes: (1..=6).map(|k| k * 3000).collect(),
        ..SyntheticSpec::default()
    });
    for observation in &mut suite.observations {
        observation.counts.insert("StringLength".into(), 0.0);
    }
    let model = fit(&suite.observations, &suite.context, &small_options()).unwrap();
    assert!(!model.methods[&Method::Ls]
        .time_ns
        .contains_key("StringLength"));
    assert!(!model.memory_bytes.contains_key("StringLength"));
    assert!(!model.diagnostics.vif.contains_key("StringLength"));
    assert_eq!(model.diagnostics.constructs, 37);
}
