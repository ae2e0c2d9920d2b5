//! Cost-semantics interpreter (skeleton; see issue 3).
