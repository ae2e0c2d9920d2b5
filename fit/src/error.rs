//! Everything that can stop a fit, each with a message that names what to fix.

use crate::input::Method;

/// Why a fit (or a prediction from a fitted model) could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    /// No observation was given at all.
    #[error("no observations to fit: the suite produced no (program, size) estimates")]
    NoObservations,

    /// One observation carries a value that cannot be a measurement or a count.
    #[error("observation {program} at size {size}: {reason}")]
    InvalidObservation {
        program: String,
        size: u64,
        reason: String,
    },

    /// The machine/compiler context cannot be used (zero word size, zero minor heap, ...).
    #[error("invalid fit context: {0}")]
    InvalidContext(String),

    /// The options ask for something that cannot be done.
    #[error("invalid fit options: {0}")]
    InvalidOptions(String),

    /// No construct was counted in any observation, so there is nothing to fit.
    #[error("no construct occurs in any observation: the interpreter counted nothing")]
    NoConstructs,

    /// Fewer (program, size) points than constants: the fit would interpolate, with no
    /// residual left to judge it by.
    #[error(
        "{points} (program, size) points for {constructs} constructs: \
         need more points than constructs (add sizes or programs)"
    )]
    TooFewPoints { points: usize, constructs: usize },

    /// The suite cannot separate some constructs: each group's columns are linearly dependent,
    /// so any split of their cost between them fits the data equally well.
    #[error(
        "the training suite cannot separate {}: the design has rank {rank} for {constructs} \
         constructs (add a program that runs these constructs in different proportions)",
        describe_groups(aliased)
    )]
    RankDeficient {
        rank: usize,
        constructs: usize,
        aliased: Vec<Vec<String>>,
    },

    /// A numerical routine failed on data that passed every check above.
    #[error("numerical failure in {method}: {reason}")]
    Numerical { method: String, reason: String },

    /// A prediction asked for a method that this model was not fitted with.
    #[error("the cost model has no {0} fit (fit it with that method)")]
    MethodNotFitted(Method),
}

fn describe_groups(groups: &[Vec<String>]) -> String {
    if groups.is_empty() {
        return "some constructs".to_string();
    }
    groups
        .iter()
        .map(|group| format!("{{{}}}", group.join(", ")))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// `fit(options)`, and again without each method whose solver fails numerically (`dropped`
/// hears which and why): one method's breakdown — the L1 simplex on a degenerate vertex of
/// exact instruction counts — must not cost a model what the other methods can give it. Fails
/// when every method has failed, or with any other error.
pub fn without_failed_methods<T>(
    options: &crate::FitOptions,
    mut fit: impl FnMut(&crate::FitOptions) -> Result<T, FitError>,
    mut dropped: impl FnMut(&str, &str),
) -> Result<T, FitError> {
    let mut options = options.clone();
    loop {
        match fit(&options) {
            Err(FitError::Numerical { method, reason }) if options.methods.len() > 1 => {
                dropped(&method, &reason);
                options.methods.retain(|m| m.name() != method);
            }
            other => return other,
        }
    }
}
