//! The speed goal: 720 points x 40 constructs x 3 methods with 1000 bootstrap
//! resamples (and leave-one-program-out) in under 2 s on this machine.

use criterion::{criterion_group, criterion_main, Criterion};
use fit::synthetic::{generate, SyntheticSpec};
use fit::{FitOptions, Method};

/// 40 programs (36 stress + 3 extra + 1 mixed) x 18 sizes = 720 points over 40 constructs.
fn paper_sized_suite() -> fit::synthetic::SyntheticSuite {
    let suite = generate(&SyntheticSpec {
        sizes: (1..=18).map(|k| k * 1000).collect(),
        extra_constructs: 3,
        mixed_programs: 1,
        ..SyntheticSpec::default()
    });
    let constructs: std::collections::BTreeSet<&String> = suite
        .observations
        .iter()
        .flat_map(|observation| observation.counts.keys())
        .collect();
    assert_eq!((suite.observations.len(), constructs.len()), (720, 40));
    suite
}

fn bench_fit(criterion: &mut Criterion) {
    let suite = paper_sized_suite();
    let mut group = criterion.benchmark_group("fit_720x40");
    group.sample_size(10);
    group.bench_function("all_methods_1000_resamples", |bencher| {
        bencher
            .iter(|| fit::fit(&suite.observations, &suite.context, &FitOptions::default()).unwrap())
    });
    for method in Method::ALL {
        let options = FitOptions {
            methods: [method].into_iter().collect(),
            ..FitOptions::default()
        };
        group.bench_function(format!("{method}_only_1000_resamples"), |bencher| {
            bencher.iter(|| fit::fit(&suite.observations, &suite.context, &options).unwrap())
        });
    }
    group.bench_function("all_methods_single_thread", |bencher| {
        let options = FitOptions {
            threads: 1,
            ..FitOptions::default()
        };
        bencher.iter(|| fit::fit(&suite.observations, &suite.context, &options).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench_fit);
criterion_main!(benches);
