//! What a measurement reports as it goes: the CLI draws progress bars from it, tests use it to
//! act at a given moment (a competitor started when measuring starts, stopped after a round).

use crate::estimate::Estimate;

/// What a measurement reports as it goes; the CLI draws progress bars from it.
pub trait Progress {
    fn stage(&mut self, _message: &str) {}
    fn built(&mut self, _program: &str, _done: usize, _total: usize) {}
    fn point_started(&mut self, _benchmark: &str, _compiler: &str, _size: u64, _layout: u32) {}
    fn point_finished(&mut self, _done: usize, _total: usize) {}
    /// Round `round` (0-based) of `rounds` has visited every point.
    fn round_finished(&mut self, _round: u32, _rounds: u32) {}
    fn estimate(&mut self, _estimate: &Estimate) {}
}

/// Progress that says nothing.
pub struct Silent;
impl Progress for Silent {}
