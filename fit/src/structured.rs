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
/// `FarStackWord`, `ChainCycle` and its kinds, `DividerCycle`, `AllocWriteCycle`, and
/// `DivisionRampCycle` and `RampCycle`, the chain of a short loop where the next may overlap
/// it), and the collector's work is outside
/// the instruction count (`PromotedWord`, `ScannedFrame`, `MajorWord`). The structured model
/// prices them apart; the instruction model leaves them out, or it would give
/// them whatever share of other constructs' instructions they correlate with (`BranchMiss`
/// came out at 2.1 instructions a miss, `ReturnMiss` at 0.7).
pub const NO_INSTRUCTIONS: [&str; 19] = [
    "DividerCycle",
    "AllocWriteCycle",
    "DivisionRampCycle",
    "RampCycle",
    "JumpMiss",
    "BranchMiss",
    "ReturnMiss",
    "FarLoad",
    "MemoryLoad",
    "FarStreamWord",
    "FarStackWord",
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
/// The write barrier (apart by the block's age: into a young block `caml_modify` returns
/// after its first test, 15 instructions a call under valgrind against 71 into an old one),
/// polymorphic comparison, `caml_make_vect`, the string externals, the
/// array copies and fills (`caml_array_gather`, `caml_initialize`, `caml_array_fill`),
/// `caml_format_int` (`string_of_int`), and the C library's float functions (`floor`, `exp`,
/// `pow`, `fmod`, `sin`, …: their instructions are the C library's, not the caller's).
pub const RUNTIME_CODE: [&str; 21] = [
    "CamlModify",
    "CamlModifyYoung",
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
    "FormatInt",
    "FormatIntChar",
    "FloatRoundCall",
    "FloatExpLogCall",
    "FloatPowCall",
    "FloatFmodCall",
    "FloatFmodBit",
    "FloatTrigCall",
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

/// The share of a program's ordinary instructions from which the program is the construct's
/// own: a template of it, where the other constructs are the loop around it.
pub const DOMINANT_SHARE: f64 = 0.5;

/// How far a construct's programs may be missed, as [`MISFIT_SHARE`] measures it, before the
/// construct is priced apart though a single program ([`DOMINANT_SHARE`]) is its own. One
/// program's layout accident moves its time by the layout spread (under 10% at the median),
/// not by a quarter in one direction at every size; and a construct that only its own
/// template stresses, as each string access is (`stringget`, `stringset`,
/// `stringunsafe_swap`, `stringunsafe_reverse`), can otherwise never be judged. On the AMD
/// host of session 46 (Zen 5) `stringget` and `stringset` ran 23–27% faster than `α · I` says
/// at every size, and the controls that scan strings were overpredicted by 30–117%
/// (`str_search`, `str_palindrome`, `str_scan`). A construct that is a minor part of a program
/// another misfit explains is not judged this way, nor one whose own programs disagree:
/// `intcompare` missed by −56% and `intcompare_list` by +3% on that host say the miss is not
/// `IntCompare`'s.
pub const STRONG_MISFIT_SHARE: f64 = 0.25;

/// Constructs the misfit rule never prices apart: the integer comparisons, each a `cmp` and a
/// conditional jump that the processor fuses into one micro-operation. Their templates test
/// four thresholds in a row (the only way to make a comparison a third of a program's
/// instructions), and code that dense in branches runs at the branch units' pace, not at what
/// a comparison costs in the code people write: on the AMD host the five templates and their
/// list walks ran 30–55% slower than `α · I`, the rule priced `IntCondLT`, `IntCondGT` and
/// `IntCondGE` at 0.41–0.59 ns against 0.18 for the same instructions elsewhere, and the
/// controls that compare in a loop (`minmax`, `array_isort`) were overpredicted by 25–40%.
/// Kept at `α · I`, measured on four runs' measurements (X, Y, Z recounted, A28; 1 run each;
/// NNLS, controls without / with GC): 14.6 / 16.9 → 12.4 / 16.3, 15.9 / 14.8 → 14.7 / 14.3,
/// 14.4 / 15.5 → 12.0 / 14.9, 14.4 / 14.9 → 13.3 / 14.2; the training programs left out one at
/// a time by 0.5–0.9 points more (the comparison templates are now missed by 30–55%: 14.2 →
/// 14.7, 14.0 → 14.8, 14.0 → 14.9, 13.9 → 14.5). The float comparisons stay judged: a
/// `ucomisd` waits on its operands' latency, and keeping them too moved the controls by 0.1–0.3
/// and the programs left out by 1.1 more.
pub const NEVER_MISFIT: [&str; 5] = [
    "IntCondEq",
    "IntCondLT",
    "IntCondLE",
    "IntCondGT",
    "IntCondGE",
];

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
/// comparisons, weigh one program's worth and are as telling), or, missed by more than
/// [`STRONG_MISFIT_SHARE`] in every program it makes half of, when there is one. Never one of
/// [`NEVER_MISFIT`].
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
    let mut judged: BTreeMap<&str, Judged> = BTreeMap::new();
    for (error, shares, points) in programs.values() {
        let n = *points as f64;
        for (construct, share) in shares {
            let j = judged.entry(construct).or_default();
            let (share, error) = (share / n, error / n);
            j.weighted_error += share * error;
            j.weight += share;
            if share >= STRESS_SHARE {
                j.stressed_by += 1;
            }
            if share >= DOMINANT_SHARE {
                j.own_errors = Some(match j.own_errors {
                    None => (error, error),
                    Some((least, most)) => (least.min(error), most.max(error)),
                });
            }
        }
    }
    judged
        .into_iter()
        .filter(|(construct, _)| !NEVER_MISFIT.contains(construct))
        .filter(|(_, j)| j.misfits())
        .map(|(construct, _)| construct.to_string())
        .collect()
}

/// Takes `misfits` out of the ordinary constructs of `per_occurrence` and fits again with
/// `refit`; `None` when there is nothing to price apart or no fit succeeds. A misfit that the
/// suite cannot separate from another construct once it has a constant of its own (the fit
/// names it among the aliased) stays ordinary, and the others are priced apart still: giving
/// up on all of them for one would leave constructs such as `Frame` at their instructions,
/// which misses `fib` by half.
fn price_apart<T>(
    per_occurrence: &BTreeMap<String, f64>,
    mut misfits: Vec<String>,
    mut refit: impl FnMut(&BTreeMap<String, f64>) -> Result<T, FitError>,
) -> Option<(BTreeMap<String, f64>, T)> {
    while !misfits.is_empty() {
        let mut narrower = per_occurrence.clone();
        for construct in &misfits {
            narrower.remove(construct);
        }
        match refit(&narrower) {
            Ok(refitted) => return Some((narrower, refitted)),
            Err(FitError::RankDeficient { aliased, .. }) => {
                let before = misfits.len();
                misfits.retain(|construct| !aliased.iter().flatten().any(|a| a == construct));
                // The aliasing is not the misfits' doing.
                if misfits.len() == before {
                    return None;
                }
            }
            Err(_) => return None,
        }
    }
    None
}

/// What the programs an ordinary construct weighs in say of it ([`misfit`]).
#[derive(Default)]
struct Judged {
    /// Their relative errors, each weighted by the construct's share of the program.
    weighted_error: f64,
    /// The construct's shares summed: how many programs' worth it weighs.
    weight: f64,
    /// The programs that give it [`STRESS_SHARE`] of their instructions.
    stressed_by: usize,
    /// The least and the greatest error of the programs it makes [`DOMINANT_SHARE`] of, its
    /// own templates, if any.
    own_errors: Option<(f64, f64)>,
}

impl Judged {
    fn misfits(&self) -> bool {
        let supported = self.weight >= 2.0 || self.stressed_by >= STRESSED_BY;
        // Programs of its own that disagree say the miss is not the construct's price.
        let own_missed = self.own_errors.is_some_and(|(least, most)| {
            least > STRONG_MISFIT_SHARE || most < -STRONG_MISFIT_SHARE
        });
        (supported && (self.weighted_error / self.weight).abs() > MISFIT_SHARE) || own_missed
    }
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
        // A method that breaks down on the narrower design is left out of it, as the whole
        // fit leaves it out: without it, one L1 failure kept `Frame` and eight other misfits
        // at their instructions in a rescore of run R18 (`fib` −50%, the controls 13.5%
        // against 10.6%). The model then has the other methods.
        let refit = |narrower: &BTreeMap<String, f64>| {
            let derived = self::observations(observations, narrower);
            crate::without_failed_methods(
                options,
                |options| crate::fit_time(&derived, context, options),
                |_, _| {},
            )
        };
        match price_apart(&per_occurrence, misfits, refit) {
            Some((narrower, refitted)) => {
                per_occurrence = narrower;
                fitted = refitted;
            }
            None => break,
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
#[path = "structured_tests.rs"]
mod tests;
