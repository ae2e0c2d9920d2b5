//! Synthetic training suites shaped like the real ones: for tests, benchmarks and demos.
//!
//! Each stress program is a recursive loop over its size n (`if x = 0 then … else … f (x − 1)`:
//! per iteration one `FunApp`, one `IntSub`, one `IntCondEq`; per run one more `IntCondEq`, the
//! first call and `Base`) plus its construct four times per iteration and whatever companions
//! a real template needs (a closure needs a `FunDef`, a float a `LetData`, …). So `fapp` counts
//! `FunApp 5n + 1, IntSub n, IntCondEq n + 1, Base 1`, as the interpreter would. A few mixed
//! programs (list sum, append, map with a closure, tail-recursive factorial) stand in for
//! real algorithms. Times come from known constants (the paper's x86-64 table) with a
//! multiplicative per-(program, layout) placement factor and per-measurement noise; words are
//! exact (Cons 3, FunDef 3, Closure 1).

use std::collections::BTreeMap;

use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Normal};

use crate::input::{FitContext, Observation};

/// Nanoseconds per construct used as the truth: the paper's x86-64 values (§5), with `Base`
/// for a measured run rather than a whole process.
pub const PAPER_X86_NS: [(&str, f64); 37] = [
    ("Base", 40.0),
    ("FunApp", 1.505),
    ("TailApp", 0.156),
    ("FunDef", 0.0),
    ("Closure", 2.921),
    ("LetData", 2.828),
    ("LetLambda", 1.312),
    ("LetRec", 1.312),
    ("BoolNot", 0.424),
    ("BoolAnd", 0.184),
    ("BoolOr", 0.183),
    ("IntUMinus", 0.419),
    ("IntAdd", 0.297),
    ("IntSub", 0.278),
    ("IntMult", 1.299),
    ("IntDiv", 19.011),
    ("IntMod", 19.231),
    ("IntCondEq", 0.382),
    ("IntCondLT", 0.381),
    ("IntCondLE", 0.381),
    ("IntCondGT", 0.375),
    ("IntCondGE", 0.381),
    ("FloatUMinus", 1.232),
    ("FloatAdd", 2.102),
    ("FloatSub", 2.116),
    ("FloatMult", 1.737),
    ("FloatDiv", 8.575),
    ("FloatCondEq", 0.582),
    ("FloatCondLT", 0.619),
    ("FloatCondLE", 0.625),
    ("FloatCondGT", 0.585),
    ("FloatCondGE", 0.629),
    ("PatternMatch", 0.223),
    ("TupleHead", 5.892),
    ("TupleElem", 1.717),
    ("TupleMatch", 0.237),
    ("Cons", 1.1),
];

/// Words allocated per construct on a 64-bit target (everything else allocates nothing).
pub const OCAML_WORDS: [(&str, f64); 3] = [("Cons", 3.0), ("FunDef", 3.0), ("Closure", 1.0)];

/// Time of one minor collection in synthetic suites.
pub const NS_PER_MINOR_COLLECTION: f64 = 50_000.0;

/// OCaml's default minor heap: 256k words.
pub const MINOR_HEAP_WORDS: u64 = 262_144;

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticSpec {
    pub sizes: Vec<u64>,
    /// Code-layout variants per program.
    pub layouts: usize,
    /// σ of the log of each measurement's multiplicative noise.
    pub point_noise: f64,
    /// σ of the log of each (program, layout) placement factor.
    pub layout_noise: f64,
    /// Extra constructs `Extra1…`, each with its own stress program (to scale benchmarks).
    pub extra_constructs: usize,
    /// How many of the mixed "real algorithm" programs to include (at most 4).
    pub mixed_programs: usize,
    pub word_size_bytes: u32,
    pub seed: u64,
}

impl Default for SyntheticSpec {
    fn default() -> Self {
        SyntheticSpec {
            sizes: (1..=20).map(|k| k * 1000).collect(),
            layouts: 4,
            point_noise: 0.02,
            layout_noise: 0.05,
            extra_constructs: 0,
            mixed_programs: 4,
            word_size_bytes: 8,
            seed: 1,
        }
    }
}

/// A generated suite with the truth it was generated from.
#[derive(Debug, Clone)]
pub struct SyntheticSuite {
    pub observations: Vec<Observation>,
    pub context: FitContext,
    pub true_ns: BTreeMap<String, f64>,
    pub true_bytes: BTreeMap<String, f64>,
}

/// A program's counts: `per_iteration · n + per_run` for each construct.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgramShape {
    pub name: String,
    pub per_iteration: BTreeMap<String, f64>,
    pub per_run: BTreeMap<String, f64>,
}

impl ProgramShape {
    fn looping(name: &str, stress: &[(&str, f64)], tail_recursive: bool) -> ProgramShape {
        let mut shape = ProgramShape {
            name: name.to_string(),
            per_iteration: BTreeMap::new(),
            per_run: BTreeMap::new(),
        };
        let call = if tail_recursive { "TailApp" } else { "FunApp" };
        for (construct, count) in [(call, 1.0), ("IntSub", 1.0), ("IntCondEq", 1.0)] {
            shape.per_iteration.insert(construct.into(), count);
        }
        for (construct, count) in [("Base", 1.0), ("FunApp", 1.0), ("IntCondEq", 1.0)] {
            shape.per_run.insert(construct.into(), count);
        }
        for (construct, count) in stress {
            *shape
                .per_iteration
                .entry(construct.to_string())
                .or_default() += count;
        }
        shape
    }

    fn mixed(name: &str, per_iteration: &[(&str, f64)], per_run: &[(&str, f64)]) -> ProgramShape {
        let to_map = |pairs: &[(&str, f64)]| {
            pairs
                .iter()
                .map(|(construct, count)| (construct.to_string(), *count))
                .collect()
        };
        let mut shape = ProgramShape {
            name: name.to_string(),
            per_iteration: to_map(per_iteration),
            per_run: to_map(per_run),
        };
        shape.per_run.insert("Base".into(), 1.0);
        shape
    }

    /// Construct counts per run at input size `size`.
    pub fn counts_at(&self, size: u64) -> BTreeMap<String, f64> {
        let mut counts = self.per_run.clone();
        for (construct, count) in &self.per_iteration {
            *counts.entry(construct.clone()).or_default() += count * size as f64;
        }
        counts
    }
}

/// The stress programs (one per construct but `Base`), then `mixed` mixed programs.
pub fn training_programs(extra_constructs: usize, mixed: usize) -> Vec<ProgramShape> {
    let special: BTreeMap<&str, Vec<(&str, f64)>> = [
        ("FunApp", vec![("FunApp", 4.0)]),
        (
            "FunDef",
            vec![("FunDef", 1.0), ("LetLambda", 1.0), ("FunApp", 1.0)],
        ),
        (
            "Closure",
            vec![
                ("FunDef", 1.0),
                ("Closure", 3.0),
                ("LetLambda", 1.0),
                ("FunApp", 1.0),
            ],
        ),
        (
            "LetLambda",
            vec![("LetLambda", 4.0), ("FunDef", 1.0), ("FunApp", 1.0)],
        ),
        (
            "LetRec",
            vec![
                ("LetRec", 1.0),
                ("FunDef", 1.0),
                ("Closure", 1.0),
                ("FunApp", 1.0),
            ],
        ),
        ("BoolNot", vec![("BoolNot", 4.0), ("IntCondLT", 1.0)]),
        ("BoolAnd", vec![("BoolAnd", 4.0), ("IntCondLT", 2.0)]),
        ("BoolOr", vec![("BoolOr", 4.0), ("IntCondLT", 2.0)]),
        ("TupleHead", vec![("TupleHead", 2.0), ("TupleElem", 4.0)]),
        ("TupleElem", vec![("TupleHead", 1.0), ("TupleElem", 5.0)]),
        (
            "TupleMatch",
            vec![("TupleHead", 1.0), ("TupleElem", 2.0), ("TupleMatch", 4.0)],
        ),
        ("Cons", vec![("Cons", 1.0)]),
    ]
    .into_iter()
    .collect();
    let mut programs = Vec::new();
    for (construct, _) in PAPER_X86_NS.iter().skip(1) {
        let name = format!("f{}", construct.to_lowercase());
        let tail_recursive = *construct == "TailApp";
        let stress = match special.get(construct) {
            Some(stress) => stress.clone(),
            None if tail_recursive => vec![("IntAdd", 1.0)],
            None if construct.starts_with("Float") => vec![(*construct, 4.0), ("LetData", 1.0)],
            None => vec![(*construct, 4.0)],
        };
        programs.push(ProgramShape::looping(&name, &stress, tail_recursive));
    }
    for index in 1..=extra_constructs {
        let construct = format!("Extra{index}");
        let stress = [(construct.as_str(), 4.0)];
        programs.push(ProgramShape::looping(
            &format!("fextra{index}"),
            &stress,
            false,
        ));
    }
    let mixed_programs = [
        ProgramShape::mixed(
            "listsum",
            &[("PatternMatch", 1.0), ("IntAdd", 1.0), ("FunApp", 1.0)],
            &[("PatternMatch", 1.0), ("FunApp", 1.0)],
        ),
        ProgramShape::mixed(
            "append",
            &[("PatternMatch", 1.0), ("Cons", 1.0), ("FunApp", 1.0)],
            &[("PatternMatch", 1.0), ("FunApp", 1.0)],
        ),
        ProgramShape::mixed(
            "map_positive",
            &[
                ("PatternMatch", 1.0),
                ("Cons", 1.0),
                ("FunApp", 2.0),
                ("IntCondGT", 1.0),
            ],
            &[("PatternMatch", 1.0), ("FunDef", 1.0), ("Closure", 1.0)],
        ),
        ProgramShape::mixed(
            "fact_tail",
            &[
                ("TailApp", 1.0),
                ("IntMult", 1.0),
                ("IntSub", 1.0),
                ("IntCondEq", 1.0),
            ],
            &[("IntCondEq", 1.0), ("FunApp", 1.0)],
        ),
    ];
    programs.extend(mixed_programs.into_iter().take(mixed));
    programs
}

/// Generates a suite: counts from [`training_programs`], times from [`PAPER_X86_NS`] (extra
/// constructs cost 1–3 ns), words from [`OCAML_WORDS`].
pub fn generate(spec: &SyntheticSpec) -> SyntheticSuite {
    let mut true_ns: BTreeMap<String, f64> = PAPER_X86_NS
        .iter()
        .map(|(construct, ns)| (construct.to_string(), *ns))
        .collect();
    for index in 1..=spec.extra_constructs {
        true_ns.insert(format!("Extra{index}"), 1.0 + (index % 3) as f64);
    }
    let true_words: BTreeMap<String, f64> = OCAML_WORDS
        .iter()
        .map(|(construct, words)| (construct.to_string(), *words))
        .collect();
    let word_size = f64::from(spec.word_size_bytes);
    let true_bytes = true_ns
        .keys()
        .map(|construct| {
            let words = true_words.get(construct).copied().unwrap_or(0.0);
            (construct.clone(), words * word_size)
        })
        .collect();

    let mut rng = StdRng::seed_from_u64(spec.seed);
    let mut observations = Vec::new();
    for program in training_programs(spec.extra_constructs, spec.mixed_programs) {
        let placement: Vec<f64> = (0..spec.layouts.max(1))
            .map(|_| mean_one_lognormal(spec.layout_noise, &mut rng))
            .collect();
        for &size in &spec.sizes {
            let counts = program.counts_at(size);
            let dot = |costs: &BTreeMap<String, f64>| -> f64 {
                counts
                    .iter()
                    .map(|(construct, count)| count * costs.get(construct).copied().unwrap_or(0.0))
                    .sum()
            };
            let ns = dot(&true_ns);
            let words = dot(&true_words);
            let layouts: Vec<f64> = placement
                .iter()
                .map(|factor| ns * factor * mean_one_lognormal(spec.point_noise, &mut rng))
                .collect();
            let ns_per_run = layouts.iter().sum::<f64>() / layouts.len() as f64;
            let half_width = 1.96 * spec.point_noise * ns_per_run / (layouts.len() as f64).sqrt();
            let collections = words / MINOR_HEAP_WORDS as f64;
            observations.push(Observation {
                program: program.name.clone(),
                size,
                ns_per_run,
                ns_per_run_layouts: layouts,
                ns_ci: (ns_per_run - half_width, ns_per_run + half_width),
                words_per_run: words,
                minor_collections_per_run: collections,
                promoted_words_per_run: 0.0,
                ns_per_minor_collection: (collections > 0.0)
                    .then(|| NS_PER_MINOR_COLLECTION * mean_one_lognormal(0.05, &mut rng)),
                counts,
            });
        }
    }
    SyntheticSuite {
        observations,
        context: FitContext {
            compiler: serde_json::json!({ "version": "synthetic" }),
            machine: serde_json::json!({ "name": "synthetic" }),
            word_size_bytes: spec.word_size_bytes,
            minor_heap_words: MINOR_HEAP_WORDS,
        },
        true_ns,
        true_bytes,
    }
}

/// `exp(N(−σ²/2, σ))`: multiplicative noise whose mean is exactly 1.
fn mean_one_lognormal(sigma: f64, rng: &mut StdRng) -> f64 {
    if sigma <= 0.0 {
        return 1.0;
    }
    let normal = Normal::new(-sigma * sigma / 2.0, sigma).expect("σ > 0 is a valid deviation");
    normal.sample(rng).exp()
}
