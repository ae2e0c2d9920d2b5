//! Harness (skeleton).
