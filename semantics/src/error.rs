//! The crate's error: one clear line, `file:line:col: message` wherever a position exists.

use crate::ast::Pos;

#[derive(Debug, thiserror::Error)]
pub enum SemanticsError {
    #[error("{path}: cannot read the program: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}:{pos}: syntax error: {message}")]
    Syntax {
        file: String,
        pos: Pos,
        message: String,
    },
    #[error("{file}:{pos}: unsupported: {construct} (not in the supported OCaml subset)")]
    Unsupported {
        file: String,
        pos: Pos,
        construct: String,
    },
    #[error("{file}:{pos}: type error: {message}")]
    Type {
        file: String,
        pos: Pos,
        message: String,
    },
    /// The program does not have the benchmark shape (`input : int -> 'a`, `run : 'a -> 'b`).
    #[error("{file}:{pos}: {message}")]
    Shape {
        file: String,
        pos: Pos,
        message: String,
    },
    /// An OCaml exception escaped (`Match_failure` and `Division_by_zero` included).
    #[error("{file}:{pos}: {message}{context}")]
    Uncaught {
        file: String,
        pos: Pos,
        message: String,
        context: String,
    },
    /// The interpreter's own limit: recursion too deep for its stack.
    #[error("{file}:{pos}: {message}{context}")]
    Limit {
        file: String,
        pos: Pos,
        message: String,
        context: String,
    },
    #[error("{file}: internal error in the interpreter: {message}")]
    Internal { file: String, message: String },
}

impl SemanticsError {
    /// Line and column the error refers to, if any.
    pub fn position(&self) -> Option<Pos> {
        match self {
            SemanticsError::Syntax { pos, .. }
            | SemanticsError::Unsupported { pos, .. }
            | SemanticsError::Type { pos, .. }
            | SemanticsError::Shape { pos, .. }
            | SemanticsError::Uncaught { pos, .. }
            | SemanticsError::Limit { pos, .. } => Some(*pos),
            SemanticsError::Io { .. } | SemanticsError::Internal { .. } => None,
        }
    }
}
