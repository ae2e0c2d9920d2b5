//! The fitted cost model: what `model.json` holds, and predictions from it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::diagnostics::LeaveOneProgramOut;
use crate::error::FitError;
use crate::gc::GcModel;
use crate::input::Method;
use crate::memory::MemoryFit;

/// One constant with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ConstantEstimate {
    pub estimate: f64,
    /// Lower end of the interval (bootstrap percentile for the regression constants).
    pub ci_low: f64,
    /// Upper end of the interval.
    pub ci_high: f64,
    /// Closed-form standard error, where one exists (LS: `σ² (AᵀA)⁻¹` on the normalised rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub std_error: Option<f64>,
}

impl ConstantEstimate {
    pub fn contains(&self, value: f64) -> bool {
        self.ci_low <= value && value <= self.ci_high
    }
}

/// One method's fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodFit {
    /// Construct -> nanoseconds per occurrence.
    pub time_ns: BTreeMap<String, ConstantEstimate>,
    /// In-sample error of the paper's §7 form, averaged over programs, in percent.
    pub training_error_pct: f64,
    /// Resamples the intervals are made of (the others failed; see diagnostics).
    pub bootstrap_resamples: usize,
}

/// How well the suite supports the constants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagnostics {
    pub points: usize,
    pub programs: usize,
    pub constructs: usize,
    /// Rank of the normalised design (equal to `constructs`: a deficient design is an error).
    pub rank: usize,
    /// Largest over smallest singular value of the normalised, column-scaled design.
    pub condition_number: f64,
    /// Groups of constructs that cannot be separated (always empty in a fitted model: the fit
    /// fails naming them instead).
    pub aliased: Vec<Vec<String>>,
    /// Construct -> uncentred variance inflation factor on the column-scaled design
    /// (1 = orthogonal to the others; 10^3 and more = barely separable).
    pub vif: BTreeMap<String, f64>,
    /// Method -> mean leave-one-program-out prediction error in percent.
    pub lopo_error_pct: BTreeMap<Method, Option<f64>>,
    /// Method -> program -> its leave-one-out error.
    pub lopo_error_pct_by_program: BTreeMap<Method, BTreeMap<String, f64>>,
    /// Programs not left out: without them these constructs are not identifiable (or barely:
    /// the remaining suite's condition number would exceed max(1000, 10 x this one's)).
    pub lopo_skipped: BTreeMap<String, Vec<String>>,
    /// Construct with a constant of its own -> the training programs that stress it (at least
    /// a fifth of their predicted time, NNLS or the first method fitted; see
    /// `diagnostics::support`). Empty in models written before it was kept.
    #[serde(default)]
    pub support: BTreeMap<String, Vec<String>>,
    /// Method -> bootstrap resamples on which it failed.
    pub bootstrap_failures: BTreeMap<Method, usize>,
    /// Median over points of (max − min) / mean across code layouts, percent.
    pub layout_spread_pct: Option<f64>,
    /// Median over points of the harness interval's relative half-width, percent.
    pub measurement_ci_pct: Option<f64>,
}

/// How many training programs must stress a construct for its constant to count as well
/// supported (`Diagnostics::support`), and for the misfit rule to judge it.
pub const WELL_SUPPORTED: usize = 3;

impl Diagnostics {
    /// Whether `construct` has a constant of its own that fewer than [`WELL_SUPPORTED`]
    /// programs stress.
    pub fn is_thinly_supported(&self, construct: &str) -> bool {
        self.support
            .get(construct)
            .is_some_and(|programs| programs.len() < WELL_SUPPORTED)
    }

    pub(crate) fn set_leave_one_program_out(&mut self, lopo: LeaveOneProgramOut) {
        self.lopo_error_pct = lopo.error_pct;
        self.lopo_error_pct_by_program = lopo.error_pct_by_program;
        self.lopo_skipped = lopo.skipped;
    }
}

/// The bootstrap settings a model was made with, so a report can say so.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BootstrapSettings {
    pub resamples: usize,
    pub seed: u64,
    pub confidence: f64,
}

/// Bytes per word on the 64-bit targets mlcost measures.
pub const WORD_BYTES: u32 = 8;

/// The cost model: `model.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostModel {
    pub compiler: serde_json::Value,
    pub machine: serde_json::Value,
    /// Method -> its fit (`ls`, `l1`, `nnls`).
    pub methods: BTreeMap<Method, MethodFit>,
    /// Construct -> bytes allocated per occurrence, rounded to whole bytes.
    pub memory_bytes: BTreeMap<String, i64>,
    /// The unrounded memory fit and its rounding residuals.
    pub memory_fit: MemoryFit,
    pub gc: GcModel,
    pub diagnostics: Diagnostics,
    pub bootstrap: BootstrapSettings,
    /// Method -> instructions per occurrence, fitted the same way on instructions per run
    /// counted under valgrind (`time_ns` then holds instructions, not nanoseconds). Empty when
    /// instructions were not counted, and in models written before they were.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub instructions: BTreeMap<Method, MethodFit>,
    /// How `methods` was fitted: free per-construct constants, or the structured model
    /// (ordinary constructs priced by their instructions; see [`crate::structure`]).
    #[serde(default)]
    pub time_model: TimeModel,
    /// With the structured model, the free fit of the same points, kept for reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free: Option<FreeFit>,
    /// Which counting rules the counts came from (none in models written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counting: Option<Counting>,
}

/// The counting rules a model's counts came from: two models whose constructs are counted
/// differently price different things under the same names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counting {
    /// The catalogue's fingerprint (`semantics::catalogue_fingerprint`).
    pub fingerprint: String,
    /// The constructs the catalogue had.
    pub constructs: Vec<String>,
}

/// How a model's time constants were fitted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TimeModel {
    /// One constant per construct (the paper's model).
    #[default]
    Free,
    /// Ordinary constructs at `ns_per_instruction` times their instructions, the others
    /// (`priced_apart`) at constants of their own.
    Structured {
        /// Method -> nanoseconds per instruction of ordinary code, with its interval.
        ns_per_instruction: BTreeMap<Method, ConstantEstimate>,
        /// The constructs fitted a constant of their own.
        priced_apart: Vec<String>,
        /// The instruction model's method whose constants price the ordinary constructs.
        instructions_method: Method,
    },
}

/// The free fit of a structured model's points: its constants and its diagnostics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FreeFit {
    pub methods: BTreeMap<Method, MethodFit>,
    pub diagnostics: Diagnostics,
}

impl CostModel {
    /// Predicted nanoseconds per run for construct counts `counts`:
    /// `Σ n_c T_c`, plus `(Σ n_c M_c / H0) · T_gc` when `with_gc`.
    ///
    /// Constructs the model does not know (never counted in training) contribute nothing; list
    /// them with [`CostModel::unknown_constructs`]. Without a T_gc estimate (no training point
    /// collected) the GC term is 0. Panics if `method` was not fitted: check
    /// [`CostModel::methods`] or use [`CostModel::try_predict_ns`].
    pub fn predict_ns(&self, method: Method, counts: &BTreeMap<String, f64>, with_gc: bool) -> f64 {
        match self.try_predict_ns(method, counts, with_gc) {
            Ok(prediction) => prediction,
            Err(error) => panic!("{error}"),
        }
    }

    /// [`CostModel::predict_ns`], with an error instead of a panic for an unfitted method.
    pub fn try_predict_ns(
        &self,
        method: Method,
        counts: &BTreeMap<String, f64>,
        with_gc: bool,
    ) -> Result<f64, FitError> {
        let fit = self
            .methods
            .get(&method)
            .ok_or(FitError::MethodNotFitted(method))?;
        let execution: f64 = counts
            .iter()
            .filter_map(|(construct, count)| {
                fit.time_ns.get(construct).map(|cost| count * cost.estimate)
            })
            .sum();
        let collection = if with_gc {
            self.predict_minor_collections(counts)
                * self.gc.ns_per_minor_collection.map_or(0.0, |t| t.estimate)
        } else {
            0.0
        };
        Ok(execution + collection)
    }

    /// Predicted instructions per run, `Σ n_c I_c` with the instruction model of `method`; `None`
    /// when the model has no instruction fit for it. Collections are inside the constants:
    /// their instructions are counted with the runs that allocate.
    pub fn predict_instructions(
        &self,
        method: Method,
        counts: &BTreeMap<String, f64>,
    ) -> Option<f64> {
        let fit = self.instructions.get(&method)?;
        Some(
            counts
                .iter()
                .filter_map(|(c, n)| fit.time_ns.get(c).map(|i| n * i.estimate))
                .sum(),
        )
    }

    /// Predicted bytes allocated per run: `Σ n_c M_c` with the rounded memory constants.
    pub fn predict_bytes(&self, counts: &BTreeMap<String, f64>) -> f64 {
        counts
            .iter()
            .filter_map(|(construct, count)| {
                self.memory_bytes
                    .get(construct)
                    .map(|bytes| count * *bytes as f64)
            })
            .sum()
    }

    /// Predicted minor collections per run: bytes / H0.
    pub fn predict_minor_collections(&self, counts: &BTreeMap<String, f64>) -> f64 {
        self.predict_bytes(counts) / self.gc.minor_heap_bytes as f64
    }

    /// Constructs counted (> 0) in `counts` that the model has no cost for.
    pub fn unknown_constructs(&self, counts: &BTreeMap<String, f64>) -> Vec<String> {
        counts
            .iter()
            .filter(|(construct, count)| {
                **count > 0.0 && !self.memory_bytes.contains_key(*construct)
            })
            .map(|(construct, _)| construct.clone())
            .collect()
    }
}
