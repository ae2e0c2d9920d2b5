//! Cost-model fitting (skeleton; see issue 5).
