//! Synthetic suites shaped like the real training programs, with known constants: every method
//! must recover them within its intervals, the intervals must be calibrated and informative, L1
//! and (Huber-weighted) NNLS must shrug off gross outliers, and layouts must widen the intervals they affect.

use std::collections::BTreeMap;

use fit::synthetic::{generate, SyntheticSpec, SyntheticSuite};
use fit::{fit, CostModel, FitOptions, Method};

fn options(resamples: usize) -> FitOptions {
    FitOptions {
        bootstrap_resamples: resamples,
        leave_one_program_out: false,
        ..FitOptions::default()
    }
}

fn misses(model: &CostModel, method: Method, truth: &BTreeMap<String, f64>) -> Vec<String> {
    model.methods[&method]
        .time_ns
        .iter()
        .filter(|(construct, estimate)| !estimate.contains(truth[*construct]))
        .map(|(construct, estimate)| {
            format!(
                "{construct}: truth {} not in [{:.4}, {:.4}]",
                truth[construct], estimate.ci_low, estimate.ci_high
            )
        })
        .collect()
}

#[test]
fn every_method_recovers_every_constant_within_its_interval() {
    // Each 95% interval misses with some probability, so "all 37 constants of all three
    // methods" holds for most suites, not all: this seed is one where it does, and the test
    // below checks the calibration across suites.
    let suite = generate(&SyntheticSpec {
        seed: 2,
        ..SyntheticSpec::default()
    });
    let model = fit(&suite.observations, &suite.context, &options(300)).unwrap();
    assert_eq!(model.methods.len(), 3);
    for method in Method::ALL {
        let fitted = &model.methods[&method];
        assert_eq!(fitted.time_ns.len(), suite.true_ns.len());
        assert_eq!(
            misses(&model, method, &suite.true_ns),
            Vec::<String>::new(),
            "{method}"
        );
        // Informative, not merely wide: with four layouts 5% apart, the constants that carry
        // their programs' time are pinned to within ±15%.
        for construct in ["FunApp", "IntDiv", "IntMod", "FloatDiv", "IntMult"] {
            let estimate = fitted.time_ns[construct];
            let relative_width = (estimate.ci_high - estimate.ci_low) / suite.true_ns[construct];
            assert!(relative_width < 0.3, "{method} {construct}: {estimate:?}");
        }
    }
}

#[test]
fn intervals_shrink_with_the_noise_and_still_cover() {
    let quiet = generate(&SyntheticSpec {
        seed: 2,
        layout_noise: 0.005,
        point_noise: 0.005,
        ..SyntheticSpec::default()
    });
    let model = fit(&quiet.observations, &quiet.context, &options(200)).unwrap();
    for method in Method::ALL {
        assert_eq!(misses(&model, method, &quiet.true_ns), Vec::<String>::new());
        for construct in ["FunApp", "IntDiv", "IntMod", "FloatDiv", "IntMult"] {
            let estimate = model.methods[&method].time_ns[construct];
            let relative_width = (estimate.ci_high - estimate.ci_low) / quiet.true_ns[construct];
            assert!(relative_width < 0.04, "{method} {construct}: {estimate:?}");
        }
    }
}

#[test]
fn intervals_are_calibrated_across_suites() {
    let mut covered = BTreeMap::new();
    let mut total = 0;
    for seed in 10..16 {
        let suite = generate(&SyntheticSpec {
            seed,
            ..SyntheticSpec::default()
        });
        let model = fit(&suite.observations, &suite.context, &options(200)).unwrap();
        total += suite.true_ns.len();
        for method in Method::ALL {
            let missed = misses(&model, method, &suite.true_ns).len();
            *covered.entry(method).or_insert(0) += suite.true_ns.len() - missed;
        }
    }
    // Nominal 95%. Layout effects known from only four builds make this hard to reach:
    // resampling the four layout estimates themselves covered 79% on these suites; the
    // Student-t layout draw (see bootstrap.rs) covers 98%.
    for (method, hits) in covered {
        let coverage = hits as f64 / total as f64;
        assert!(coverage >= 0.9, "{method}: coverage {coverage}");
    }
}

#[test]
fn l1_and_nnls_resist_gross_outliers_that_move_least_squares() {
    let mut suite = generate(&SyntheticSpec {
        seed: 3,
        ..SyntheticSpec::default()
    });
    // Three points of the IntDiv program run 3x slower (a context switch, a frequency drop).
    for observation in suite
        .observations
        .iter_mut()
        .filter(|o| o.program == "fintdiv" && [5000, 9000, 14000].contains(&o.size))
    {
        observation.ns_per_run *= 3.0;
        for layout in &mut observation.ns_per_run_layouts {
            *layout *= 3.0;
        }
    }
    let model = fit(&suite.observations, &suite.context, &options(200)).unwrap();
    let truth = suite.true_ns["IntDiv"];
    let error =
        |method: Method| (model.methods[&method].time_ns["IntDiv"].estimate - truth).abs() / truth;
    assert!(
        error(Method::Ls) > 0.15,
        "LS moved only {}",
        error(Method::Ls)
    );
    assert!(error(Method::L1) < 0.06, "L1 moved {}", error(Method::L1));
    assert!(error(Method::Ls) > 3.0 * error(Method::L1));
    // NNLS weighs each point by Huber's rule: the three far points count for little.
    assert!(
        error(Method::Nnls) < 0.06,
        "NNLS moved {}",
        error(Method::Nnls)
    );
    assert!(error(Method::Ls) > 3.0 * error(Method::Nnls));
    assert!(model.methods[&Method::L1].time_ns["IntDiv"].contains(truth));
}

#[test]
fn layout_spread_widens_the_intervals_it_affects() {
    let suite = generate(&SyntheticSpec {
        seed: 4,
        layout_noise: 0.08,
        ..SyntheticSpec::default()
    });
    let mut single_layout: SyntheticSuite = suite.clone();
    for observation in &mut single_layout.observations {
        observation.ns_per_run_layouts = vec![observation.ns_per_run];
    }
    let with_layouts = fit(&suite.observations, &suite.context, &options(200)).unwrap();
    let without = fit(&single_layout.observations, &suite.context, &options(200)).unwrap();
    let width = |model: &CostModel, construct: &str| {
        let estimate = model.methods[&Method::Ls].time_ns[construct];
        estimate.ci_high - estimate.ci_low
    };
    // The estimates are the same numbers; only the uncertainty differs.
    assert_eq!(
        with_layouts.methods[&Method::Ls].time_ns["IntDiv"].estimate,
        without.methods[&Method::Ls].time_ns["IntDiv"].estimate
    );
    for construct in ["IntDiv", "FloatDiv", "TupleHead"] {
        assert!(
            width(&with_layouts, construct) > 2.0 * width(&without, construct),
            "{construct}: {} vs {}",
            width(&with_layouts, construct),
            width(&without, construct)
        );
    }
    assert!(with_layouts.diagnostics.layout_spread_pct.unwrap() > 5.0);
    assert!(without.diagnostics.layout_spread_pct.is_none());
}

#[test]
fn nnls_keeps_every_cost_non_negative_where_ls_may_not() {
    // FunDef's true time is 0 (paper §5): LS scatters around it, NNLS stays at or above it.
    let suite = generate(&SyntheticSpec {
        seed: 5,
        ..SyntheticSpec::default()
    });
    let model = fit(&suite.observations, &suite.context, &options(100)).unwrap();
    let nnls = &model.methods[&Method::Nnls].time_ns;
    assert!(nnls.values().all(|e| e.estimate >= 0.0 && e.ci_low >= 0.0));
    assert!(nnls["FunDef"].estimate < 0.1);
    let ls = &model.methods[&Method::Ls].time_ns;
    assert!(ls["FunDef"].contains(0.0));
    // Where the constraint is not active, NNLS and LS agree, up to what Huber's weights move
    // on points with ordinary noise (a few of them beyond 1.345 robust deviations).
    let relative = (nnls["IntDiv"].estimate - ls["IntDiv"].estimate).abs() / ls["IntDiv"].estimate;
    assert!(relative < 1e-2, "{relative}");
}

#[test]
fn noise_free_suite_is_recovered_exactly_and_predicts_left_out_programs() {
    let suite = generate(&SyntheticSpec {
        seed: 6,
        point_noise: 0.0,
        layout_noise: 0.0,
        ..SyntheticSpec::default()
    });
    let model = fit(
        &suite.observations,
        &suite.context,
        &FitOptions {
            bootstrap_resamples: 50,
            ..FitOptions::default()
        },
    )
    .unwrap();
    for method in Method::ALL {
        for (construct, estimate) in &model.methods[&method].time_ns {
            let truth = suite.true_ns[construct];
            assert!(
                (estimate.estimate - truth).abs() < 1e-6 * (1.0 + truth),
                "{method} {construct}: {} vs {truth}",
                estimate.estimate
            );
        }
        let lopo = model.diagnostics.lopo_error_pct[&method].unwrap();
        assert!(lopo < 1e-6, "{method}: {lopo}");
    }
    let skipped = &model.diagnostics.lopo_skipped;
    assert_eq!(skipped["fintdiv"], vec!["IntDiv".to_string()]);
    assert!(!skipped.contains_key("ffunapp"));
    assert!(model.diagnostics.lopo_error_pct_by_program[&Method::Ls].contains_key("ffunapp"));
}

#[test]
fn least_squares_reports_closed_form_standard_errors() {
    let suite = generate(&SyntheticSpec {
        seed: 7,
        layouts: 1,
        ..SyntheticSpec::default()
    });
    let model = fit(&suite.observations, &suite.context, &options(300)).unwrap();
    for (construct, estimate) in &model.methods[&Method::Ls].time_ns {
        let standard_error = estimate.std_error.unwrap();
        assert!(standard_error > 0.0);
        // Without layouts, the bootstrap and the closed form measure the same scatter.
        let bootstrap_sd = (estimate.ci_high - estimate.ci_low) / (2.0 * 1.96);
        let ratio = bootstrap_sd / standard_error;
        assert!((0.5..2.0).contains(&ratio), "{construct}: ratio {ratio}");
    }
    assert!(model.methods[&Method::L1].time_ns["FunApp"]
        .std_error
        .is_none());
}
