//! # fit — per-construct costs from measured training programs
//!
//! This crate owns the *fit* stage of mlcost: it turns per-(program, size) measurements
//! (nanoseconds, words allocated and minor collections per run, from the harness) and construct
//! counts (from the cost-semantics interpreter) into the cost model that `model.json` holds —
//! nanoseconds per construct under three regression methods, each with an interval; bytes per
//! construct; the minor-GC model; and diagnostics that say when the suite cannot support a
//! constant. It reads plain [`Observation`]s and a [`FitContext`], and knows nothing of files,
//! templates or the harness's types.
//!
//! ```no_run
//! # fn example(observations: Vec<fit::Observation>, context: fit::FitContext)
//! #     -> Result<(), fit::FitError> {
//! let model = fit::fit(&observations, &context, &fit::FitOptions::default())?;
//! std::fs::write("costs.json", serde_json::to_string_pretty(&model).unwrap()).unwrap();
//! let counts = observations[0].counts.clone();
//! let nanoseconds = model.predict_ns(fit::Method::L1, &counts, true);
//! # Ok(()) }
//! ```
//!
//! ## The model
//! Time per run is `T = Σ_c n_c T_c` (paper §2), with GC `T = Σ n_c T_c + (Σ n_c M_c / H0) ·
//! T_gc` (§6). Constructs never counted in any observation are absent from the model. The GC
//! term is for times measured without collections; given plain times with collections inside
//! and counts that price what makes a collection dear (mlcost's `PromotedWord` and
//! `ScannedFrame`), predict with `with_gc = false`: the empty collection's share is then part
//! of each allocating construct's cost.
//!
//! [`structure`] re-fits a model that has an instruction model as the *structured* model:
//! ordinary constructs at one fitted cost per instruction times their instructions, the
//! constructs of [`structured::PRICED_APART`], [`structured::NO_INSTRUCTIONS`] and
//! [`structured::RUNTIME_CODE`] at constants of their own; the free fit is kept
//! in [`CostModel::free`]. Fewer constants, each resting on the whole suite, predict programs
//! outside it better (see [`structured`]).
//!
//! ## Methods
//! All three fit the paper's *normalised* rows: each row of program j divided by S_j, the sum
//! of that program's measured times, so that a multiplicative error weighs every program alike.
//! The columns are then scaled to unit norm for the numerics (undone in the results).
//! * [`Method::Ls`] — least squares by Householder QR, with classical standard errors.
//! * [`Method::L1`] — least absolute deviations, solved *exactly* as a linear program by
//!   direct descent over vertices (the simplex method specialised to L1, Barrodale–Roberts
//!   style, with a weighted-median line search). It stops at a vertex certified optimal by its
//!   dual values, not at an IRLS approximation; see `least_absolute.rs`.
//! * [`Method::Nnls`] — least squares with every cost ≥ 0, by the `nnls` crate (Lawson–Hanson),
//!   given the equivalent p x p triangular problem, and Huber-weighted: rows beyond 1.345
//!   robust deviations weigh in inverse proportion to their residual, by iteratively
//!   reweighted NNLS; resamples keep the full data's weights. A few training programs whose
//!   time the constructs cannot express would otherwise set every price (see `methods.rs`).
//!
//! ## Intervals
//! Bootstrap percentile intervals (default 1000 resamples, 95%) per constant and method. Each
//! resample draws sizes with replacement within each program, and draws each program's code
//! layout effect: a layout variant is one build measured at every size, so its placement
//! accident (up to 4x on call-heavy code, docs/measuring.md) is one random effect shared by the
//! program's points, known from only L builds. The draw is Student-t with L − 1 degrees of
//! freedom scaled by each point's layout spread, which gives a constant resting on one program
//! the t-interval of its layout mean. On six synthetic suites with four layouts, resampling the
//! four layout values themselves put 79% of the true constants inside their 95% intervals; this
//! draw puts 98% there.
//! LS also reports closed-form standard errors (which know nothing of layouts).
//!
//! Reweighted fits reuse the full fit: LS and NNLS share one Cholesky factor per resample;
//! NNLS first tries the full fit's active set and keeps it when the KKT conditions certify it
//! (the `nnls` crate runs otherwise); L1 starts from the full data's optimal vertex and its
//! basis inverse. Resamples run on all cores, each with its own random stream, so the model
//! depends on the seed only. 720 points x 40 constructs x 3 methods x 1000 resamples take
//! about 1 s on the project's 2-core machine (`cargo bench -p fit`).
//!
//! ## Diagnostics
//! Rank and condition number of the normalised, column-scaled design; a rank-deficient suite is
//! [`FitError::RankDeficient`] naming the groups of constructs it cannot separate (exact linear
//! dependence between count columns). Uncentred variance inflation per construct. Leave-one-
//! program-out prediction error per method, in the paper's §7 form; a program without which some
//! construct would be unidentifiable, or barely (condition number above max(1000, 10x the
//! suite's)), is listed with those constructs instead of being predicted from noise. In-sample
//! error per method; the layout spread and the harness's measurement precision, the floors
//! under any model's error.
//!
//! ## Memory and GC
//! Bytes per construct are fitted on the same rows with bytes per run (words x word size) as
//! the response and reported rounded to whole bytes with the rounding residuals ([`MemoryFit`]).
//! H0 is the runtime's minor heap size in bytes, checked against the bytes allocated per
//! collection; T_gc is the median of the harness's per-collection times, with a distribution-free
//! interval ([`GcModel`]).
//!
//! With the `synthetic` feature (tests and benchmarks only, not part of the fitting API),
//! `fit::synthetic` makes suites shaped like the real training programs.

mod bootstrap;
mod design;
mod diagnostics;
mod error;
mod gc;
mod input;
mod least_absolute;
mod least_squares;
mod memory;
mod methods;
mod model;
mod nonnegative;
mod separability;
pub mod structured;
#[cfg(any(test, feature = "synthetic"))]
pub mod synthetic;

use std::collections::BTreeMap;

pub use crate::diagnostics::LeaveOneProgramOut;
pub use crate::error::{without_failed_methods, FitError};
pub use crate::gc::GcModel;
pub use crate::input::{FitContext, FitOptions, Method, Observation, MIN_BOOTSTRAP_RESAMPLES};
pub use crate::memory::MemoryFit;
pub use crate::model::{
    BootstrapSettings, ConstantEstimate, CostModel, Counting, Diagnostics, FreeFit, MethodFit,
    TimeModel, WELL_SUPPORTED, WORD_BYTES,
};
pub use crate::separability::{separability, Separability};
pub use crate::structured::structure;

use crate::design::Design;
use crate::diagnostics::RankAnalysis;
use crate::least_squares::FullFactorisation;

/// Fits the cost model to `observations`.
///
/// Fails with a message naming the problem on invalid input, on a suite that cannot separate
/// some constructs ([`FitError::RankDeficient`]), or on a numerical failure; it never returns
/// NaN constants.
pub fn fit(
    observations: &[Observation],
    context: &FitContext,
    options: &FitOptions,
) -> Result<CostModel, FitError> {
    let time = fit_time(observations, context, options)?;
    let (memory_bytes, memory_fit) = memory::fit_memory(
        &time.design,
        &time.factorisation,
        observations,
        context.word_size_bytes,
    )?;
    let gc = gc::fit_gc(observations, context, options.confidence);
    Ok(CostModel {
        compiler: context.compiler.clone(),
        machine: context.machine.clone(),
        methods: time.methods,
        memory_bytes,
        memory_fit,
        gc,
        diagnostics: time.diagnostics,
        bootstrap: BootstrapSettings {
            resamples: options.bootstrap_resamples,
            seed: options.seed,
            confidence: options.confidence,
        },
        instructions: BTreeMap::new(),
        time_model: TimeModel::Free,
        free: None,
        counting: None,
    })
}

/// The time part of a fit: each method's constants with their intervals, and the diagnostics
/// of the design they come from (kept for the memory fit, which shares its factorisation).
pub(crate) struct TimeFit {
    pub design: Design,
    pub factorisation: FullFactorisation,
    pub methods: BTreeMap<Method, MethodFit>,
    pub diagnostics: Diagnostics,
}

/// Every method's time constants, bootstrap intervals and diagnostics, on `observations`.
pub(crate) fn fit_time(
    observations: &[Observation],
    context: &FitContext,
    options: &FitOptions,
) -> Result<TimeFit, FitError> {
    input::validate(observations, context, options)?;
    let design = Design::build(observations)?;
    let factorisation = FullFactorisation::new(&design.scaled);
    let rank = RankAnalysis::of_triangular(&factorisation.r, diagnostics::RANK_TOLERANCE);
    if rank.rank < design.columns() {
        return Err(FitError::RankDeficient {
            rank: rank.rank,
            constructs: design.columns(),
            aliased: rank.aliased_names(&design.constructs),
        });
    }

    let full = methods::fit_full(&design, &factorisation, &options.methods)?;
    let draws = bootstrap::run(
        &design,
        &options.methods,
        &full.warm_start,
        options.bootstrap_resamples,
        options.seed,
        options.threads,
    );

    let mut method_fits = BTreeMap::new();
    for (method, solution) in &full.solutions {
        let costs = design.to_costs(solution);
        let standard_errors = (*method == Method::Ls)
            .then(|| full.ls_standard_errors.as_ref().map(|e| design.to_costs(e)))
            .flatten();
        let resampled = draws.costs.get(method).map_or(&[][..], Vec::as_slice);
        if resampled.is_empty() {
            return Err(FitError::Numerical {
                method: method.name().into(),
                reason: "every bootstrap resample failed".into(),
            });
        }
        let mut time_ns = BTreeMap::new();
        for (column, construct) in design.constructs.iter().enumerate() {
            let mut samples: Vec<f64> = resampled.iter().map(|costs| costs[column]).collect();
            let (ci_low, ci_high) =
                bootstrap::percentile_interval(&mut samples, options.confidence)
                    .unwrap_or((costs[column], costs[column]));
            time_ns.insert(
                construct.clone(),
                ConstantEstimate {
                    estimate: costs[column],
                    ci_low,
                    ci_high,
                    std_error: standard_errors.as_ref().map(|errors| errors[column]),
                },
            );
        }
        method_fits.insert(
            *method,
            MethodFit {
                time_ns,
                training_error_pct: diagnostics::training_error_pct(&design, observations, &costs),
                bootstrap_resamples: resampled.len(),
            },
        );
    }

    let mut diagnostics = Diagnostics {
        points: design.rows(),
        programs: design.programs.len(),
        constructs: design.columns(),
        rank: rank.rank,
        condition_number: rank.condition_number(),
        aliased: Vec::new(),
        vif: design
            .constructs
            .iter()
            .cloned()
            .zip(rank.variance_inflation.clone().unwrap_or_default())
            .collect(),
        lopo_error_pct: BTreeMap::new(),
        lopo_error_pct_by_program: BTreeMap::new(),
        lopo_skipped: BTreeMap::new(),
        support: full
            .solutions
            .get(&Method::Nnls)
            .or_else(|| full.solutions.values().next())
            .map(|solution| diagnostics::support(&design, &design.to_costs(solution)))
            .unwrap_or_default(),
        bootstrap_failures: draws.failed.clone(),
        layout_spread_pct: diagnostics::layout_spread_pct(observations),
        measurement_ci_pct: diagnostics::measurement_ci_pct(observations),
    };
    if options.leave_one_program_out {
        diagnostics.set_leave_one_program_out(diagnostics::leave_one_program_out(
            &design,
            observations,
            &options.methods,
            &full.warm_start,
            rank.condition_number(),
        ));
    }

    Ok(TimeFit {
        design,
        factorisation,
        methods: method_fits,
        diagnostics,
    })
}
