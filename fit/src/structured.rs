//! The structured time model: ordinary constructs priced by the instructions they execute.
//!
//! The free model fits one nanosecond cost per construct, about eighty constants from a
//! training suite in which most constructs are stressed by one or two templates; each constant
//! then carries its templates' context (how much of the construct the processor overlaps with
//! what surrounds it there), and a program written otherwise is missed by that much. The
//! instruction model (the same counts fitted on instructions per run, an exact metric) already
//! says how much code each construct runs. So the structured model prices an *ordinary*
//! construct as `α · I_c` — one machine-wide cost per instruction `α` times its instructions —
//! and fits its own constant only for the constructs whose time the instructions they execute
//! do not tell ([`PRICED_APART`]): latencies and mispredictions, the collector's work (not in
//! the mutator's instruction count), the runtime's C code, and control transfer. About twenty
//! constants instead of eighty: measured on one default run (131 training programs, 60
//! controls), the controls' NNLS error went from 27.2% to 25.1% and the median
//! leave-one-program-out error from 25.1% to 21.3% (docs/model.md, "The model").
//!
//! The fit itself is [`crate::fit`] on derived observations: the ordinary constructs' counts
//! collapse into one column, [`INSTRUCTIONS`], holding `Σ n_c I_c`; [`expand`] then turns the
//! fitted `α` back into per-construct costs, so that every consumer of a model (prediction,
//! validation, comparison, the metric export) reads nanoseconds per construct as before.

use std::collections::BTreeMap;

use crate::error::FitError;
use crate::input::{FitContext, FitOptions, Method, Observation};
use crate::model::{ConstantEstimate, CostModel, FreeFit, MethodFit, TimeModel};

/// The column of the structured design that holds a point's instructions from ordinary
/// constructs, and its cost: nanoseconds per instruction.
pub const INSTRUCTIONS: &str = "Instructions";

/// Constructs counted for what the processor waits on or the collector does, not for code the
/// mutator runs: mispredictions, misses and a loop's chain cost cycles, not instructions
/// (`JumpMiss`, `BranchMiss`, `ReturnMiss`, `FarLoad`, `MemoryLoad`, `FarStreamWord`,
/// `ChainCycle` and its kinds), and the collector's work
/// is outside the instruction count (`PromotedWord`, `ScannedFrame`, `MajorWord`). The
/// structured model prices them apart; the instruction model leaves them out, or it would give
/// them whatever share of other constructs' instructions they correlate with (`BranchMiss`
/// came out at 2.1 instructions a miss, `ReturnMiss` at 0.7).
pub const NO_INSTRUCTIONS: [&str; 15] = [
    "DividerCycle",
    "JumpMiss",
    "BranchMiss",
    "ReturnMiss",
    "FarLoad",
    "MemoryLoad",
    "FarStreamWord",
    "ChainCycle",
    "FloatMergeCycle",
    "FloatChainCycle",
    "DivisionChainCycle",
    "ForwardChainCycle",
    "PromotedWord",
    "ScannedFrame",
    "MajorWord",
];

/// Constructs that run the runtime's C code, at its own pace (`memmove` and `memset` move many
/// bytes an instruction; `caml_modify` and `caml_compare` branch on the values): the
/// structured model prices them apart, and `mlcost explain` finds their instructions in the
/// runtime's functions rather than in the OCaml function that the interpreter counts them in.
/// The write barrier, polymorphic comparison, `caml_make_vect`, the string externals, and the
/// array copies and fills (`caml_array_gather`, `caml_initialize`, `caml_array_fill`).
pub const RUNTIME_CODE: [&str; 12] = [
    "CamlModify",
    "PolyCompare",
    "PolyCompareStep",
    "PolyCompareBlock",
    "ArrayMake",
    "ArrayMakeWord",
    "BytesCreate",
    "BytesCopy",
    "BytesCopyWord",
    "ArrayCopy",
    "ArrayBarrierWord",
    "ArrayInitWord",
];

/// Constructs whose time is not their instructions' share, each fitted a constant of its own,
/// beside those of [`NO_INSTRUCTIONS`] and [`RUNTIME_CODE`]:
/// * long latencies, which cost cycles their instruction count does not show: `IntDiv`,
///   `IntMod`; and `DividerCycle`, the float divider's cycles beyond an iteration's issue
///   (`FloatDiv` and `FloatSqrt` themselves are ordinary: priced apart at a throughput, they
///   overpredicted an n-body step, whose 65 instructions a pair hide its division and square
///   root, by 59%; with the divider counted where it binds, the structured fit's
///   leave-one-program-out error went from 21.6% to 20.9% on one default run's measurements);
/// * control transfer — calls, returns, and the branches of a match — which the processor
///   handles apart from the arithmetic around it: `FunApp`, `TailApp`, `SelfTailApp` (the
///   jump back of a loop, which was part of `TailApp` before it was split off), `IndirectCall`
///   and `IndirectJump` (the same transfers through a code pointer, some cycles dearer),
///   `PatternMatch`, `TableJump`;
/// * `Base`, the driver's fixed cost of one run.
///
/// Pricing the comparisons and the boolean operators apart as well (they are branches too)
/// gave back most of the gain on the controls (27.8% against 25.1%, one run): their templates'
/// contexts came back with their constants.
pub const PRICED_APART: [&str; 11] = [
    "IntDiv",
    "IntMod",
    "DividerCycle",
    "FunApp",
    "TailApp",
    "IndirectCall",
    "IndirectJump",
    "SelfTailApp",
    "PatternMatch",
    "TableJump",
    "Base",
];

/// Instructions of a loop iteration that issue in the shadow of its calls (counted by the
/// interpreter, up to a bound a call): they are among the ordinary constructs' instructions,
/// but cost less than their share of `α`, as a short iteration around a call costs about its
/// call. How much less is the machine's: the instructions column takes each shadowed
/// instruction off whole (`−α`), and a column of the shadow's own count gives back, at a
/// nonnegative constant the fit learns, what the shadow does not hide ([`expand`] reports the
/// sum, between `−α` and 0 where the fit is physical). The `callshadow_*` templates run 9 to 51
/// instructions beside a call, so that this is not learned only from programs in which the
/// shadow is 18 a call, its bound, and moves with `FunApp`.
pub const SHADOWED: &str = "CallShadow";

/// Constructs whose instructions are known exactly rather than fitted: `AllocMerged`, a block
/// allocated together with the one before it, runs the three instructions of an allocation's
/// limit test fewer than its own construct counts (`sub`, `cmp`, `jb`; see
/// semantics/src/comballoc.rs). The instruction model takes them off the measured count before
/// fitting and reports them at their value; the structured model prices them at that many
/// instructions, `−3α`.
pub const FIXED_INSTRUCTIONS: [(&str, f64); 1] = [("AllocMerged", -3.0)];

/// The fixed instructions of `construct`, if they are ([`FIXED_INSTRUCTIONS`]).
pub fn fixed_instructions(construct: &str) -> Option<f64> {
    FIXED_INSTRUCTIONS
        .iter()
        .find(|(name, _)| *name == construct)
        .map(|&(_, instructions)| instructions)
}

/// How far the programs in which an ordinary construct weighs may be missed, on average and
/// weighted by its share of their instructions, before it is priced apart ([`misfit`]).
pub const MISFIT_SHARE: f64 = 0.15;

/// The share of a program's ordinary instructions from which the program stresses a construct.
pub const STRESS_SHARE: f64 = 0.20;

/// How many programs must stress a construct for [`misfit`] to judge it, whatever its weight:
/// as many as a constant needs to count as well supported, so that one program's layout
/// accident does not pass into a constant of its own.
pub const STRESSED_BY: usize = crate::model::WELL_SUPPORTED;

/// Rounds of pricing misfits apart and fitting again.
const MISFIT_ROUNDS: usize = 2;

/// The ordinary constructs whose time their instructions misstate on the machine measured: the
/// training programs in which the construct weighs are missed, all in one direction, by more
/// than [`MISFIT_SHARE`] on average, each program weighted by the construct's share of its
/// ordinary instructions. A processor on which a flag materialised or a raise costs far more
/// than its instructions (`intcompare` and `raise_failwith` missed by −64% and −84% on one
/// host, within ±15% on another) shows it in those constructs' own templates, and a constant
/// of their own keeps the error out of `α` and every other construct's price. Decided on the
/// training programs only, by the NNLS fit; a construct is judged when it weighs the
/// equivalent of two programs' instructions, or when [`STRESSED_BY`] programs each give it
/// [`STRESS_SHARE`] of their instructions (three templates of a comparison, each a third
/// comparisons, weigh one program's worth and are as telling).
pub fn misfit(
    observations: &[Observation],
    per_occurrence: &BTreeMap<String, f64>,
    nnls: &MethodFit,
) -> Vec<String> {
    let constant = |construct: &str| nnls.time_ns.get(construct).map_or(0.0, |e| e.estimate);
    // Per program: its mean relative error, and each ordinary construct's mean share.
    let mut programs: BTreeMap<&str, (f64, BTreeMap<&str, f64>, usize)> = BTreeMap::new();
    let derived = self::observations(observations, per_occurrence);
    for (point, structured) in observations.iter().zip(&derived) {
        if point.ns_per_run <= 0.0 {
            continue;
        }
        let predicted: f64 = structured
            .counts
            .iter()
            .map(|(construct, count)| count * constant(construct))
            .sum();
        let ordinary: BTreeMap<&str, f64> = point
            .counts
            .iter()
            .filter(|(construct, _)| *construct != SHADOWED && !priced_apart(construct))
            .filter_map(|(construct, count)| {
                Some((construct.as_str(), count * per_occurrence.get(construct)?))
            })
            .collect();
        let total: f64 = ordinary.values().sum();
        let entry = programs.entry(&point.program).or_default();
        entry.0 += predicted / point.ns_per_run - 1.0;
        entry.2 += 1;
        if total > 0.0 {
            for (construct, instructions) in ordinary {
                *entry.1.entry(construct).or_default() += instructions / total;
            }
        }
    }
    // Per construct: the sum of its programs' errors weighted by its share, the sum of its
    // shares, and how many programs stress it.
    let mut weighted: BTreeMap<&str, (f64, f64, usize)> = BTreeMap::new();
    for (error, shares, points) in programs.values() {
        let n = *points as f64;
        for (construct, share) in shares {
            let w = weighted.entry(construct).or_default();
            w.0 += share / n * error / n;
            w.1 += share / n;
            if share / n >= STRESS_SHARE {
                w.2 += 1;
            }
        }
    }
    weighted
        .into_iter()
        .filter(|(_, (sum, weight, stressed))| {
            (*weight >= 2.0 || *stressed >= STRESSED_BY) && (sum / weight).abs() > MISFIT_SHARE
        })
        .map(|(construct, _)| construct.to_string())
        .collect()
}

/// Whether the structured model fits `construct` a constant of its own (before [`misfit`]).
pub fn priced_apart(construct: &str) -> bool {
    [&PRICED_APART[..], &NO_INSTRUCTIONS, &RUNTIME_CODE]
        .iter()
        .any(|set| set.contains(&construct))
}

/// The observations of the structured fit: each point's counts of the constructs priced
/// apart, and its instructions from the ordinary ones (`Σ n_c I_c`, with `instructions`
/// the instruction model's constants). Ordinary constructs the instruction model does not
/// know are priced apart rather than dropped, so no count is lost.
pub fn observations(
    observations: &[Observation],
    instructions: &BTreeMap<String, f64>,
) -> Vec<Observation> {
    observations
        .iter()
        .map(|point| {
            let mut counts = BTreeMap::new();
            let mut ordinary = 0.0;
            for (construct, &count) in &point.counts {
                if construct == SHADOWED {
                    counts.insert(construct.clone(), count);
                }
                match instructions.get(construct) {
                    Some(per_occurrence) if !priced_apart(construct) => {
                        ordinary += count * per_occurrence;
                    }
                    _ => {
                        counts.insert(construct.clone(), count);
                    }
                }
            }
            if ordinary > 0.0 {
                counts.insert(INSTRUCTIONS.to_string(), ordinary);
            }
            Observation {
                counts,
                ..point.clone()
            }
        })
        .collect()
}

/// Per-construct costs from a structured fit: an ordinary construct costs `α · I_c`, its
/// interval `α`'s interval times `I_c` (the instruction constants are exact to the counting,
/// so their own uncertainty is left out); a construct priced apart keeps its fitted constant.
/// Ordinary constructs are those of `instructions` that the structured fit did not price.
pub fn expand(structured: &MethodFit, instructions: &BTreeMap<String, f64>) -> MethodFit {
    let mut time_ns: BTreeMap<String, ConstantEstimate> = structured
        .time_ns
        .iter()
        .filter(|(construct, _)| construct.as_str() != INSTRUCTIONS)
        .filter(|(construct, _)| construct.as_str() != SHADOWED)
        .map(|(construct, estimate)| (construct.clone(), *estimate))
        .collect();
    if let Some(alpha) = structured.time_ns.get(INSTRUCTIONS) {
        for (construct, &per_occurrence) in instructions {
            if !time_ns.contains_key(construct) && !priced_apart(construct) {
                // A negative share (AllocMerged) turns α's interval around.
                let (low, high) = if per_occurrence >= 0.0 {
                    (alpha.ci_low, alpha.ci_high)
                } else {
                    (alpha.ci_high, alpha.ci_low)
                };
                time_ns.insert(
                    construct.clone(),
                    ConstantEstimate {
                        estimate: alpha.estimate * per_occurrence,
                        ci_low: low * per_occurrence,
                        ci_high: high * per_occurrence,
                        std_error: alpha.std_error.map(|error| error * per_occurrence.abs()),
                    },
                );
            }
        }
    }
    // A shadowed instruction gives back `α` less what the fit keeps of it.
    if let (Some(given_back), Some(kept)) =
        (time_ns.get_mut(SHADOWED), structured.time_ns.get(SHADOWED))
    {
        given_back.estimate += kept.estimate;
        given_back.ci_low += kept.ci_low;
        given_back.ci_high += kept.ci_high;
        given_back.std_error = given_back
            .std_error
            .zip(kept.std_error)
            .map(|(a, b)| a.hypot(b));
    }
    MethodFit {
        time_ns,
        ..structured.clone()
    }
}

/// Re-fits `model`'s time constants as the structured model: ordinary constructs at one cost
/// per instruction times their instructions, from `model`'s instruction model (NNLS, else LS,
/// else L1), the constructs of [`PRICED_APART`] at constants of their own. The free fit moves to
/// `model.free`; `model.methods` and `model.diagnostics` become the structured fit's; memory
/// and GC stay the free fit's, which they do not depend on. `observations` must be those
/// `model` was fitted on. Returns `Ok(false)` and leaves `model` as it was when it has no
/// instruction model; fails, leaving `model` as it was, when the structured fit does.
pub fn structure(
    model: &mut CostModel,
    observations: &[Observation],
    context: &FitContext,
    options: &FitOptions,
) -> Result<bool, FitError> {
    let Some((instructions_method, instruction_fit)) = [Method::Nnls, Method::Ls, Method::L1]
        .into_iter()
        .find_map(|method| model.instructions.get(&method).map(|fit| (method, fit)))
    else {
        return Ok(false);
    };
    let mut per_occurrence: BTreeMap<String, f64> = instruction_fit
        .time_ns
        .iter()
        .map(|(construct, estimate)| {
            let fixed = fixed_instructions(construct);
            (
                construct.clone(),
                fixed.unwrap_or(estimate.estimate.max(0.0)),
            )
        })
        .collect();
    if observations
        .iter()
        .any(|point| point.counts.contains_key(SHADOWED))
    {
        per_occurrence.insert(SHADOWED.to_string(), -1.0);
    }
    let mut fitted = crate::fit_time(
        &self::observations(observations, &per_occurrence),
        context,
        options,
    )?;
    // Constructs whose instructions misstate their time on this machine are priced apart too,
    // and the model fitted again (see [`misfit`]).
    for _ in 0..MISFIT_ROUNDS {
        let Some(nnls) = fitted.methods.get(&Method::Nnls) else {
            break;
        };
        let misfits = misfit(observations, &per_occurrence, nnls);
        if misfits.is_empty() {
            break;
        }
        let mut narrower = per_occurrence.clone();
        for construct in &misfits {
            narrower.remove(construct);
        }
        match crate::fit_time(
            &self::observations(observations, &narrower),
            context,
            options,
        ) {
            Ok(refitted) => {
                per_occurrence = narrower;
                fitted = refitted;
            }
            // A construct priced apart that its programs cannot determine alone: keep the
            // model as it was.
            Err(_) => break,
        }
    }
    let ns_per_instruction = fitted
        .methods
        .iter()
        .filter_map(|(method, fit)| fit.time_ns.get(INSTRUCTIONS).map(|alpha| (*method, *alpha)))
        .collect();
    let priced_apart = fitted
        .design
        .constructs
        .iter()
        .filter(|construct| construct.as_str() != INSTRUCTIONS)
        .cloned()
        .collect();
    let methods = fitted
        .methods
        .iter()
        .map(|(method, fit)| (*method, expand(fit, &per_occurrence)))
        .collect();
    // The ordinary constructs share `α`, which every program supports: only the constants of
    // their own are listed.
    let mut diagnostics = fitted.diagnostics;
    diagnostics.support.remove(INSTRUCTIONS);
    model.free = Some(FreeFit {
        methods: std::mem::replace(&mut model.methods, methods),
        diagnostics: std::mem::replace(&mut model.diagnostics, diagnostics),
    });
    model.time_model = TimeModel::Structured {
        ns_per_instruction,
        priced_apart,
        instructions_method,
    };
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(counts: &[(&str, f64)]) -> Observation {
        Observation::for_test("p", 10, 100.0, counts)
    }

    /// A fit with these constants, each its own interval.
    fn fitted(constants: &[(&str, f64)]) -> MethodFit {
        MethodFit {
            time_ns: constants
                .iter()
                .map(|&(construct, estimate)| {
                    let constant = ConstantEstimate {
                        estimate,
                        ci_low: estimate,
                        ci_high: estimate,
                        std_error: None,
                    };
                    (construct.to_string(), constant)
                })
                .collect(),
            training_error_pct: 0.0,
            bootstrap_resamples: 0,
        }
    }

    fn at(program: &str, ns: f64, counts: &[(&str, f64)]) -> Observation {
        Observation::for_test(program, 10, ns, counts)
    }

    #[test]
    fn ordinary_counts_collapse_into_instructions_and_the_others_stay() {
        let instructions: BTreeMap<String, f64> = [("IntAdd", 1.5), ("Cons", 7.0), ("FunApp", 9.0)]
            .iter()
            .map(|(c, i)| (c.to_string(), *i))
            .collect();
        let derived = observations(
            &[point(&[
                ("IntAdd", 10.0),
                ("Cons", 2.0),
                ("FunApp", 3.0),
                ("Unknown", 4.0),
            ])],
            &instructions,
        );
        let counts = &derived[0].counts;
        assert_eq!(counts[INSTRUCTIONS], 10.0 * 1.5 + 2.0 * 7.0);
        assert_eq!(counts["FunApp"], 3.0, "priced apart: its own count");
        assert_eq!(counts["Unknown"], 4.0, "no instruction constant: kept");
        assert!(!counts.contains_key("IntAdd") && !counts.contains_key("Cons"));
        assert_eq!(derived[0].ns_per_run, 100.0);
    }

    #[test]
    fn shadowed_instructions_come_off_the_ordinary_ones_and_keep_a_column() {
        let instructions: BTreeMap<String, f64> = [("IntAdd", 1.5), (SHADOWED, -1.0)]
            .iter()
            .map(|(c, i)| (c.to_string(), *i))
            .collect();
        let derived = observations(
            &[point(&[("IntAdd", 10.0), (SHADOWED, 6.0)])],
            &instructions,
        );
        assert_eq!(derived[0].counts[INSTRUCTIONS], 10.0 * 1.5 - 6.0);
        assert_eq!(
            derived[0].counts[SHADOWED], 6.0,
            "what the shadow keeps, priced apart"
        );
    }

    #[test]
    fn the_fit_learns_what_a_shadowed_instruction_gives_back() {
        // α 0.5 ns, a call 2 ns, a shadowed instruction gives back 0.3 ns (not α's 0.5):
        // iterations with a call and 0, 5, 10 or 30 instructions (shadowed up to 18), others
        // without a call.
        let per_iteration: [(&str, f64, f64, f64); 6] = [
            ("call_bare", 0.0, 1.0, 0.0),
            ("call_5", 5.0, 1.0, 5.0),
            ("call_10", 10.0, 1.0, 10.0),
            ("call_30", 30.0, 1.0, 18.0),
            ("adds", 20.0, 0.0, 0.0),
            ("adds_more", 50.0, 0.0, 0.0),
        ];
        let mut points = Vec::new();
        for (program, adds, calls, shadowed) in per_iteration {
            for size in [100.0, 200.0, 400.0] {
                let ns = 10.0 + size * (0.5 * adds + 2.0 * calls - 0.3 * shadowed);
                let counts = [
                    ("Base", 1.0),
                    ("IntAdd", adds * size),
                    ("FunApp", calls * size),
                    (SHADOWED, shadowed * size),
                ];
                let counts: Vec<(&str, f64)> =
                    counts.into_iter().filter(|(_, n)| *n > 0.0).collect();
                points.push(Observation::for_test(program, size as u64, ns, &counts));
            }
        }
        let instructions: BTreeMap<String, f64> =
            [("IntAdd".to_string(), 1.0), (SHADOWED.to_string(), -1.0)].into();
        let context = crate::input::FitContext {
            compiler: serde_json::json!({}),
            machine: serde_json::json!({}),
            word_size_bytes: 8,
            minor_heap_words: 262_144,
        };
        let options = FitOptions {
            methods: [Method::Nnls].into(),
            bootstrap_resamples: 50,
            leave_one_program_out: false,
            ..FitOptions::default()
        };
        let fitted = crate::fit_time(&observations(&points, &instructions), &context, &options)
            .expect("a full-rank synthetic suite fits");
        let expanded = expand(&fitted.methods[&Method::Nnls], &instructions);
        let near = |construct: &str, value: f64| {
            let estimate = expanded.time_ns[construct].estimate;
            assert!(
                (estimate - value).abs() < 1e-6,
                "{construct}: {estimate} against {value}"
            );
        };
        near("IntAdd", 0.5);
        near("FunApp", 2.0);
        near(SHADOWED, -0.3);
    }

    #[test]
    fn expansion_prices_ordinary_constructs_by_their_instructions() {
        let estimate = |estimate, low, high| ConstantEstimate {
            estimate,
            ci_low: low,
            ci_high: high,
            std_error: None,
        };
        let structured = MethodFit {
            time_ns: [
                (INSTRUCTIONS.to_string(), estimate(0.1, 0.08, 0.12)),
                ("FunApp".to_string(), estimate(1.0, 0.9, 1.1)),
            ]
            .into(),
            training_error_pct: 5.0,
            bootstrap_resamples: 100,
        };
        let instructions: BTreeMap<String, f64> =
            [("IntAdd", 2.0), ("FunApp", 9.0), (SHADOWED, -1.0)]
                .iter()
                .map(|(c, i)| (c.to_string(), *i))
                .collect();
        let mut structured = structured;
        structured
            .time_ns
            .insert(SHADOWED.to_string(), estimate(0.06, 0.04, 0.09));
        let expanded = expand(&structured, &instructions);
        let add = expanded.time_ns["IntAdd"];
        assert!((add.estimate - 0.2).abs() < 1e-12);
        assert!((add.ci_low - 0.16).abs() < 1e-12 && (add.ci_high - 0.24).abs() < 1e-12);
        // A shadowed instruction gives back α (0.1) less what the fit keeps (0.06): −0.04,
        // within the sum of the two intervals, the right way round.
        let shadow = expanded.time_ns[SHADOWED];
        assert!((shadow.estimate + 0.04).abs() < 1e-12);
        assert!((shadow.ci_low + 0.08).abs() < 1e-12 && (shadow.ci_high - 0.01).abs() < 1e-12);
        assert_eq!(expanded.time_ns["FunApp"].estimate, 1.0, "its own constant");
        assert!(!expanded.time_ns.contains_key(INSTRUCTIONS));
        assert_eq!(expanded.training_error_pct, 5.0);
    }

    #[test]
    fn a_construct_whose_programs_its_instructions_miss_is_priced_apart() {
        let per_occurrence: BTreeMap<String, f64> = [("A", 2.0), ("B", 3.0), ("Cheap", 1.0)]
            .iter()
            .map(|(c, i)| (c.to_string(), *i))
            .collect();
        let nnls = fitted(&[(INSTRUCTIONS, 0.5), ("FunApp", 1.0)]);
        // A's programs are priced right; B's three run three times what α · 3 instructions
        // says (its share of their instructions 1, 0.94 and 0.75); Cheap is missed as badly
        // but weighs a quarter of one program and is stressed by one, too little to judge.
        let observations = [
            at("a1", 100.0, &[("A", 100.0)]),
            at("a2", 60.0, &[("A", 50.0), ("FunApp", 10.0)]),
            at("b1", 450.0, &[("B", 100.0)]),
            at("b2", 460.0, &[("B", 100.0), ("A", 10.0)]),
            at("b3", 250.0, &[("B", 50.0), ("Cheap", 50.0)]),
        ];
        assert_eq!(misfit(&observations, &per_occurrence, &nnls), vec!["B"]);
        // Missed by 10% only: kept.
        let close = [
            at("a1", 100.0, &[("A", 100.0)]),
            at("b1", 165.0, &[("B", 100.0)]),
            at("b2", 176.0, &[("B", 100.0), ("A", 10.0)]),
            at("b3", 110.0, &[("B", 50.0), ("Cheap", 50.0)]),
        ];
        assert!(misfit(&close, &per_occurrence, &nnls).is_empty());
    }

    #[test]
    fn a_construct_stressed_by_three_programs_is_judged_though_it_weighs_less_than_two() {
        let per_occurrence: BTreeMap<String, f64> = [("A", 1.0), ("Cond", 1.0)]
            .iter()
            .map(|(c, i)| (c.to_string(), *i))
            .collect();
        let nnls = fitted(&[(INSTRUCTIONS, 1.0)]);
        // Cond is a third of each of its programs' instructions (weight 1 in three) and each
        // runs 1.5 times what the instructions say: missed by −33% a program. A, priced
        // right in three programs of its own, dilutes its share of the miss below the
        // threshold.
        let stressed = |programs: usize| -> Vec<Observation> {
            (0..programs)
                .map(|i| at(&format!("c{i}"), 225.0, &[("A", 100.0), ("Cond", 50.0)]))
                .chain((0..3).map(|i| at(&format!("a{i}"), 100.0, &[("A", 100.0)])))
                .collect()
        };
        assert_eq!(misfit(&stressed(3), &per_occurrence, &nnls), vec!["Cond"]);
        // Two programs: not judged.
        assert!(misfit(&stressed(2), &per_occurrence, &nnls).is_empty());
    }
}
