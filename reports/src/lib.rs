//! Reports (skeleton).
