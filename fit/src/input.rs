//! What a fit reads: measured observations, the machine/compiler context, and the options.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::FitError;

/// One (program, size) point: what the harness measured and what the interpreter counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// Training program name (all sizes of one program share its normaliser S_j).
    pub program: String,
    /// Input size the program ran at.
    pub size: u64,
    /// Layout-averaged nanoseconds per run. Where the harness separated GC time (its
    /// multivariate fit), this should be the time without GC: the GC model adds it back.
    pub ns_per_run: f64,
    /// Nanoseconds per run of each code-layout variant of the program's build. Their spread at
    /// each point sizes the layout term of the intervals; with a single value (or none) the
    /// intervals have no layout term.
    pub ns_per_run_layouts: Vec<f64>,
    /// 95% interval of `ns_per_run` from the harness.
    pub ns_ci: (f64, f64),
    /// Words allocated directly (minor + major, not promoted) per run.
    pub words_per_run: f64,
    /// Minor collections per run.
    pub minor_collections_per_run: f64,
    /// Words promoted to the major heap per run (what survived a minor collection).
    #[serde(default)]
    pub promoted_words_per_run: f64,
    /// Time of one minor collection, from the harness's multivariate fit, when this point
    /// collected.
    pub ns_per_minor_collection: Option<f64>,
    /// Construct name -> how often it runs per run (from the interpreter).
    pub counts: BTreeMap<String, f64>,
}

#[cfg(test)]
impl Observation {
    /// A point of one layout measured at `ns_per_run` (±1%), collecting nothing: what the
    /// fit's unit tests build.
    pub(crate) fn for_test(
        program: &str,
        size: u64,
        ns_per_run: f64,
        counts: &[(&str, f64)],
    ) -> Self {
        Observation {
            program: program.into(),
            size,
            ns_per_run,
            ns_per_run_layouts: vec![ns_per_run],
            ns_ci: (0.99 * ns_per_run, 1.01 * ns_per_run),
            words_per_run: 0.0,
            minor_collections_per_run: 0.0,
            promoted_words_per_run: 0.0,
            ns_per_minor_collection: None,
            counts: counts.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
        }
    }
}

/// The machine and compiler the observations come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitContext {
    /// Compiler description (`ocamlopt -version`, `-config`, flags), copied into the model.
    pub compiler: serde_json::Value,
    /// Machine description, copied into the model.
    pub machine: serde_json::Value,
    /// Bytes per word of the target (8 on x86-64), from `ocamlopt -config`.
    pub word_size_bytes: u32,
    /// Minor heap size in words, from the runtime (`Gc.get ()`).
    pub minor_heap_words: u64,
}

/// A regression method. Serialised as `ls`, `l1`, `nnls` (the keys of `model.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Least squares on the paper's normalised rows (each program's rows divided by S_j).
    Ls,
    /// Least absolute deviations on the same normalised rows (robust regression).
    L1,
    /// Non-negative least squares on the same normalised rows.
    Nnls,
}

impl Method {
    /// Every method, in the order reports show them.
    pub const ALL: [Method; 3] = [Method::Ls, Method::L1, Method::Nnls];

    /// The name used in `model.json` and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Method::Ls => "ls",
            Method::L1 => "l1",
            Method::Nnls => "nnls",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Method {
    type Err = FitError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Method::ALL
            .into_iter()
            .find(|method| method.name().eq_ignore_ascii_case(text))
            .ok_or_else(|| {
                FitError::InvalidOptions(format!("unknown method {text:?} (use ls, l1 or nnls)"))
            })
    }
}

/// How to fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitOptions {
    /// Which methods to fit (default: all three).
    pub methods: BTreeSet<Method>,
    /// Bootstrap resamples for the intervals (default 1000; at least 50).
    pub bootstrap_resamples: usize,
    /// Seed of the bootstrap: the same seed gives the same model, whatever `threads` is.
    pub seed: u64,
    /// Coverage of the intervals (default 0.95).
    pub confidence: f64,
    /// Worker threads for the bootstrap; 0 = one per available core.
    pub threads: usize,
    /// Compute leave-one-program-out prediction errors (default true).
    pub leave_one_program_out: bool,
    /// Price ordinary constructs by their instructions where an instruction model exists
    /// ([`crate::structure`]; default true). Read by whoever fits a whole run, not by
    /// [`crate::fit`] itself.
    pub structured: bool,
}

/// The fewest resamples that still put a few draws beyond each end of a 95% interval.
pub const MIN_BOOTSTRAP_RESAMPLES: usize = 50;

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            methods: Method::ALL.into_iter().collect(),
            bootstrap_resamples: 1000,
            seed: 0x6d6c_636f_7374, // "mlcost"
            confidence: 0.95,
            threads: 0,
            leave_one_program_out: true,
            structured: true,
        }
    }
}

/// Rejects inputs that would otherwise turn into NaNs or panics deep inside the numerics.
pub(crate) fn validate(
    observations: &[Observation],
    context: &FitContext,
    options: &FitOptions,
) -> Result<(), FitError> {
    if context.word_size_bytes == 0 {
        return Err(FitError::InvalidContext("word size is 0 bytes".into()));
    }
    if context.minor_heap_words == 0 {
        return Err(FitError::InvalidContext(
            "minor heap size is 0 words".into(),
        ));
    }
    if options.methods.is_empty() {
        return Err(FitError::InvalidOptions("no method selected".into()));
    }
    if !(options.confidence > 0.0 && options.confidence < 1.0) {
        return Err(FitError::InvalidOptions(format!(
            "confidence {} is not between 0 and 1",
            options.confidence
        )));
    }
    if options.bootstrap_resamples < MIN_BOOTSTRAP_RESAMPLES {
        return Err(FitError::InvalidOptions(format!(
            "{} bootstrap resamples are too few for an interval (use at least {})",
            options.bootstrap_resamples, MIN_BOOTSTRAP_RESAMPLES
        )));
    }
    if observations.is_empty() {
        return Err(FitError::NoObservations);
    }
    let mut seen = HashSet::new();
    for observation in observations {
        validate_observation(observation)?;
        if !seen.insert((observation.program.as_str(), observation.size)) {
            return Err(invalid(observation, "appears twice".into()));
        }
    }
    Ok(())
}

fn validate_observation(observation: &Observation) -> Result<(), FitError> {
    if observation.program.is_empty() {
        return Err(invalid(observation, "has an empty program name".into()));
    }
    if !(observation.ns_per_run.is_finite() && observation.ns_per_run > 0.0) {
        return Err(invalid(
            observation,
            format!(
                "ns_per_run is {} (must be a positive number)",
                observation.ns_per_run
            ),
        ));
    }
    if let Some(bad) = observation
        .ns_per_run_layouts
        .iter()
        .find(|ns| !(ns.is_finite() && **ns > 0.0))
    {
        return Err(invalid(
            observation,
            format!("a code-layout estimate is {bad} (must be a positive number)"),
        ));
    }
    let (low, high) = observation.ns_ci;
    if !(low.is_finite() && high.is_finite() && low <= high) {
        return Err(invalid(
            observation,
            format!("ns_ci ({low}, {high}) is not an interval"),
        ));
    }
    for (what, value) in [
        ("words_per_run", observation.words_per_run),
        (
            "minor_collections_per_run",
            observation.minor_collections_per_run,
        ),
    ] {
        if !value.is_finite() {
            return Err(invalid(observation, format!("{what} is {value}")));
        }
    }
    if let Some(ns) = observation.ns_per_minor_collection {
        if !(ns.is_finite() && ns > 0.0) {
            return Err(invalid(
                observation,
                format!("ns_per_minor_collection is {ns} (must be a positive number)"),
            ));
        }
    }
    for (construct, count) in &observation.counts {
        if !(count.is_finite() && *count >= 0.0) {
            return Err(invalid(
                observation,
                format!("count of {construct} is {count} (must be a non-negative number)"),
            ));
        }
    }
    Ok(())
}

fn invalid(observation: &Observation, reason: String) -> FitError {
    FitError::InvalidObservation {
        program: observation.program.clone(),
        size: observation.size,
        reason,
    }
}
