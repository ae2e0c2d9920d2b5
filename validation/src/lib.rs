//! # validation
//!
//! A cost model is only as good as its predictions on programs it was not trained on. This
//! crate owns the control corpus's format ([`control`]: real algorithms of the benchmark shape,
//! each with its sizes and an optional qualitative pair), the end-to-end validation
//! ([`run`]: count with the interpreter, build and measure in every code layout — or take the
//! estimates of a measurement that timed the controls with other programs — check native
//! and interpreted results agree, skip and report what cannot be used), and the scoring
//! ([`score`]): each method's predicted vs measured time per (program, size), the mean errors
//! of the paper's Table 1 split by whether collections happened, the layout spread that no
//! model can beat, and which of two equivalent programs the model and the machine say is faster.

pub mod control;
pub mod run;
pub mod score;

pub use control::{extract_builtin, spread_sizes, ControlProgram, Skipped};
pub use run::{
    control_binary, prepare_controls, save, score_controls, skipped_reason, validate,
    PreparedControls, ReadyControl, ValidateOptions, Validation, ValidationError, VALIDATION_FILE,
};
pub use score::{MeasuredPoint, MethodSummary, PairResult, PointResult, Summary};
