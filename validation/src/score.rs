//! Scoring a model on measured control points: per point the prediction of each method and its
//! error, the summary of the paper's Table 1 (mean error, without and with GC), the layout
//! spread that bounds any model's error from below, and the qualitative pairs of §8. Pure
//! functions on plain data.

use fit::{CostModel, Method};
use harness::Interval;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One measured and counted (control program, size).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasuredPoint {
    pub program: String,
    pub size: u64,
    pub measured_ns: Interval,
    pub layout_spread_pct: f64,
    pub minor_collections_per_run: f64,
    pub counts: BTreeMap<String, f64>,
    /// What the interpreter says a run allocates and promotes, beside what the runtime
    /// measured (absent in validations written before allocation was counted).
    #[serde(default)]
    pub allocation: Option<PointAllocation>,
}

/// Words per run, predicted by the interpreter and measured by the runtime.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointAllocation {
    pub predicted_words: f64,
    /// Minor words plus words allocated directly in the major heap.
    pub measured_words: f64,
    pub predicted_promoted_words: f64,
    pub measured_promoted_words: f64,
    /// The memory the run works in, in words ([`semantics::Allocation::working_set_words`]).
    #[serde(default)]
    pub working_set_words: f64,
    /// The cache the interpreter's `FarLoad` models, in words: a point working in more is
    /// beyond what the model describes (see [`PointAllocation::beyond_cache`]).
    #[serde(default)]
    pub cache_words: u64,
}

impl PointAllocation {
    pub fn predicted_and_measured(
        allocation: &semantics::Allocation,
        minor_heap_words: u64,
        measured: &harness::Estimate,
    ) -> PointAllocation {
        PointAllocation {
            predicted_words: allocation.words as f64,
            measured_words: measured.minor_words_per_run + measured.major_words_per_run
                - measured.promoted_words_per_run,
            predicted_promoted_words: allocation.promoted_words(minor_heap_words),
            measured_promoted_words: measured.promoted_words_per_run,
            working_set_words: allocation.working_set_words(minor_heap_words),
            cache_words: allocation.touches.cache_words,
        }
    }

    /// The run works in more memory than the cache the model knows: its walks beyond it are
    /// priced as the prefetcher streaming them for free, which holds on some machines and not
    /// on others (docs/latency.md), so the point's error is reported apart.
    pub fn beyond_cache(&self) -> bool {
        self.cache_words > 0 && self.working_set_words > self.cache_words as f64
    }

    /// Predicted words equal the measured ones (to the tenth of a word the measurement
    /// carries: the runtime counts whole words, averaged over runs).
    pub fn words_exact(&self) -> bool {
        (self.predicted_words - self.measured_words).abs() < 0.1
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    pub program: String,
    pub size: u64,
    pub measured_ns: Interval,
    pub layout_spread_pct: f64,
    /// Minor collections happened during runs: the prediction's GC part is its PromotedWord and
    /// ScannedFrame counts, and the allocating constructs' share of empty collections.
    pub collects: bool,
    pub predicted_ns: BTreeMap<Method, f64>,
    pub error_pct: BTreeMap<Method, f64>,
    /// Constructs the program runs that the model has no cost for (predicted as free).
    pub unknown_constructs: Vec<String>,
    #[serde(default)]
    pub allocation: Option<PointAllocation>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MethodSummary {
    /// Mean error (%) over programs, at the sizes where no collection happened.
    pub no_gc: Option<f64>,
    /// Mean error (%) over programs, at the sizes that collected.
    pub gc: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// `ls`, `l1`, `nnls` → mean errors, as keys of the summary itself.
    #[serde(flatten)]
    pub methods: BTreeMap<Method, MethodSummary>,
    /// Mean over programs of the layout spread: what code placement alone moves a measurement.
    pub layout_spread_pct: f64,
    pub programs: usize,
    pub points: usize,
    /// Points whose predicted words per run equal the measured, of the points with both.
    #[serde(default)]
    pub words_exact: Option<(usize, usize)>,
    /// Mean over programs of |predicted − measured| / measured promoted words, percent, at
    /// the points that collected and promoted at least 100 words per run.
    #[serde(default)]
    pub promoted_error_pct: Option<f64>,
    /// Points whose run works in more memory than the modelled cache
    /// ([`PointAllocation::beyond_cache`]), and the methods' errors over the other points.
    #[serde(default)]
    pub beyond_cache_points: usize,
    #[serde(default)]
    pub within_cache: BTreeMap<Method, MethodSummary>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    pub pair: String,
    pub size: u64,
    pub first: String,
    pub second: String,
    pub predicted_faster: String,
    pub measured_faster: String,
    pub predicted_ratio: f64,
    pub measured_ratio: f64,
    pub agree: bool,
}

pub fn score_point(model: &CostModel, point: &MeasuredPoint) -> PointResult {
    let collects = point.minor_collections_per_run > 0.0;
    let mut predicted_ns = BTreeMap::new();
    let mut error_pct = BTreeMap::new();
    for &method in model.methods.keys() {
        // Collections are priced inside the counts (PromotedWord, ScannedFrame) and amortised
        // into the allocating constructs, as the fit saw them: no term is added.
        let prediction = model.try_predict_ns(method, &point.counts, false);
        if let Ok(predicted) = prediction {
            let measured = point.measured_ns.estimate;
            predicted_ns.insert(method, predicted);
            error_pct.insert(method, 100.0 * (measured - predicted).abs() / measured);
        }
    }
    PointResult {
        program: point.program.clone(),
        size: point.size,
        measured_ns: point.measured_ns,
        layout_spread_pct: point.layout_spread_pct,
        collects,
        predicted_ns,
        error_pct,
        unknown_constructs: model.unknown_constructs(&point.counts),
        allocation: point.allocation.clone(),
    }
}

fn mean(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values
        .into_iter()
        .fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// Mean over programs of each program's mean over its selected points.
fn per_program_mean(
    points: &[&PointResult],
    value: impl Fn(&PointResult) -> Option<f64>,
) -> Option<f64> {
    let mut by_program: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for p in points {
        if let Some(v) = value(p) {
            by_program.entry(&p.program).or_default().push(v);
        }
    }
    mean(by_program.values().filter_map(|v| mean(v.iter().copied())))
}

pub fn summarise(results: &[PointResult]) -> Summary {
    let methods: std::collections::BTreeSet<Method> = results
        .iter()
        .flat_map(|r| r.error_pct.keys().copied())
        .collect();
    let all: Vec<&PointResult> = results.iter().collect();
    let beyond = |r: &PointResult| r.allocation.as_ref().is_some_and(|a| a.beyond_cache());
    let within: Vec<&PointResult> = results.iter().filter(|r| !beyond(r)).collect();
    Summary {
        methods: method_summaries(&methods, &all),
        within_cache: method_summaries(&methods, &within),
        beyond_cache_points: results.iter().filter(|r| beyond(r)).count(),
        layout_spread_pct: per_program_mean(&all, |r| Some(r.layout_spread_pct)).unwrap_or(0.0),
        programs: results
            .iter()
            .map(|r| &r.program)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        points: results.len(),
        words_exact: {
            let with: Vec<&PointAllocation> = results
                .iter()
                .filter_map(|r| r.allocation.as_ref())
                .collect();
            (!with.is_empty())
                .then(|| (with.iter().filter(|a| a.words_exact()).count(), with.len()))
        },
        promoted_error_pct: per_program_mean(&gc_points(&all), |r| {
            let a = r.allocation.as_ref()?;
            (a.measured_promoted_words >= 100.0).then(|| {
                100.0 * (a.predicted_promoted_words - a.measured_promoted_words).abs()
                    / a.measured_promoted_words
            })
        }),
    }
}

fn gc_points<'a>(points: &[&'a PointResult]) -> Vec<&'a PointResult> {
    points.iter().copied().filter(|r| r.collects).collect()
}

/// Each method's mean errors over `points`, without and with GC.
fn method_summaries(
    methods: &std::collections::BTreeSet<Method>,
    points: &[&PointResult],
) -> BTreeMap<Method, MethodSummary> {
    let no_gc: Vec<&PointResult> = points.iter().copied().filter(|r| !r.collects).collect();
    let gc = gc_points(points);
    methods
        .iter()
        .map(|&m| {
            let error = |r: &PointResult| r.error_pct.get(&m).copied();
            (
                m,
                MethodSummary {
                    no_gc: per_program_mean(&no_gc, error),
                    gc: per_program_mean(&gc, error),
                },
            )
        })
        .collect()
}

/// For each pair name shared by exactly two programs, at each size both ran: which one the
/// model (`method`) says is faster, and which one was.
pub fn compare_pairs(
    results: &[PointResult],
    pairs: &BTreeMap<String, Vec<String>>,
    method: Method,
) -> Vec<PairResult> {
    let mut out = Vec::new();
    for (pair, members) in pairs {
        let [first, second] = members.as_slice() else {
            continue;
        };
        for a in results.iter().filter(|r| &r.program == first) {
            let Some(b) = results
                .iter()
                .find(|r| &r.program == second && r.size == a.size)
            else {
                continue;
            };
            let (Some(pa), Some(pb)) = (a.predicted_ns.get(&method), b.predicted_ns.get(&method))
            else {
                continue;
            };
            let faster = |x: f64, y: f64| {
                if x <= y {
                    first.clone()
                } else {
                    second.clone()
                }
            };
            let predicted_faster = faster(*pa, *pb);
            let measured_faster = faster(a.measured_ns.estimate, b.measured_ns.estimate);
            out.push(PairResult {
                pair: pair.clone(),
                size: a.size,
                first: first.clone(),
                second: second.clone(),
                agree: predicted_faster == measured_faster,
                predicted_faster,
                measured_faster,
                predicted_ratio: pa / pb,
                measured_ratio: a.measured_ns.estimate / b.measured_ns.estimate,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(
        program: &str,
        size: u64,
        measured: f64,
        predicted: f64,
        collects: bool,
    ) -> PointResult {
        PointResult {
            program: program.into(),
            size,
            measured_ns: Interval {
                estimate: measured,
                ci_low: measured,
                ci_high: measured,
            },
            layout_spread_pct: 10.0,
            collects,
            predicted_ns: [(Method::Ls, predicted)].into(),
            error_pct: [(Method::Ls, 100.0 * (measured - predicted).abs() / measured)].into(),
            unknown_constructs: vec![],
            allocation: None,
        }
    }

    #[test]
    fn summary_averages_programs_not_points_and_splits_gc() {
        let results = vec![
            result("a", 1, 100.0, 90.0, false),  // 10%
            result("a", 2, 100.0, 70.0, false),  // 30% -> a: 20%
            result("b", 1, 100.0, 100.0, false), // 0% -> b: 0%
            result("b", 2, 100.0, 150.0, true),  // 50%, with GC
        ];
        let s = summarise(&results);
        let ls = s.methods[&Method::Ls];
        assert!((ls.no_gc.unwrap() - 10.0).abs() < 1e-9, "{ls:?}");
        assert!((ls.gc.unwrap() - 50.0).abs() < 1e-9);
        assert_eq!((s.programs, s.points), (2, 4));
    }

    #[test]
    fn points_beyond_the_cache_are_counted_and_left_out_of_the_second_summary() {
        let working = |words: f64| PointAllocation {
            predicted_words: 0.0,
            measured_words: 0.0,
            predicted_promoted_words: 0.0,
            measured_promoted_words: 0.0,
            working_set_words: words,
            cache_words: 65_536,
        };
        let mut results = vec![
            result("walk", 1000, 100.0, 90.0, false), // 10%, in the cache
            result("walk", 600_000, 100.0, 60.0, false), // 40%, beyond it
            result("tree", 1000, 100.0, 80.0, false), // 20%
        ];
        results[0].allocation = Some(working(3_000.0));
        results[1].allocation = Some(working(1_800_000.0));
        results[2].allocation = Some(working(65_536.0)); // exactly the cache: within
        let s = summarise(&results);
        assert_eq!(s.beyond_cache_points, 1);
        let all = s.methods[&Method::Ls].no_gc.unwrap();
        let within = s.within_cache[&Method::Ls].no_gc.unwrap();
        assert!((all - (25.0 + 20.0) / 2.0).abs() < 1e-9, "{all}");
        assert!((within - (10.0 + 20.0) / 2.0).abs() < 1e-9, "{within}");
        // A validation written before the working set was known flags nothing.
        results[1].allocation.as_mut().unwrap().cache_words = 0;
        assert_eq!(summarise(&results).beyond_cache_points, 0);
    }

    #[test]
    fn pairs_compare_predicted_and_measured_order() {
        let results = vec![
            result("fact", 10, 200.0, 150.0, false),
            result("fact_tr", 10, 100.0, 160.0, false),
            result("fact", 20, 400.0, 300.0, false),
            result("fact_tr", 20, 200.0, 100.0, false),
        ];
        let pairs: BTreeMap<String, Vec<String>> = [(
            "f".to_string(),
            vec!["fact".to_string(), "fact_tr".to_string()],
        )]
        .into();
        let out = compare_pairs(&results, &pairs, Method::Ls);
        assert_eq!(out.len(), 2);
        assert!(
            !out[0].agree
                && out[0].measured_faster == "fact_tr"
                && out[0].predicted_faster == "fact"
        );
        assert!(out[1].agree);
        assert!((out[1].measured_ratio - 2.0).abs() < 1e-12);
    }
}
