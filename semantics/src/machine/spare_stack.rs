//! The value stack, kept on the evaluation thread from one count to the next.
//!
//! A deep recursion grows the value stack to megabytes (`fintadd` 200 000 deep, a slot a
//! level), and a fresh machine per count grew it again by doubling, copying it each time: 4% of
//! such a count's time. The evaluation threads are reused ([`crate::worker`]), so the stack
//! a count leaves is taken by the next one, its values released and its room kept.

use super::Machine;
use crate::value::Value;
use std::cell::Cell;

/// The room a new machine's stack starts with at least.
const INITIAL: usize = 1 << 16;

thread_local! {
    static SPARE: Cell<Vec<Value>> = const { Cell::new(Vec::new()) };
}

/// An empty value stack, with the room the thread's last machine left if any.
pub(super) fn take() -> Vec<Value> {
    let mut stack = SPARE.take();
    stack.reserve(INITIAL);
    stack
}

impl Drop for Machine<'_> {
    fn drop(&mut self) {
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        SPARE.set(stack);
    }
}
