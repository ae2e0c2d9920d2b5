//! Which returns the processor mispredicts (`ReturnMiss`). A return is predicted from a small
//! ring of return addresses the processor writes at each call; a non-tail recursion deeper
//! than the ring overwrites its oldest entries on the way down, and what the returns beyond
//! the ring find on the way back is what the deeper levels, and any call made on the way
//! back, left there. Measured on the Intel host (`mlcost bench`, 2 layouts, 1 run), per level
//! of a recursion over a list, with `f` a one-comparison function:
//!
//! | depth | `f x :: map f t` (call on the way back) | `let y = f x in y :: map f t` |
//! |---|---|---|
//! | 16 | 3.2 ns | 3.2 ns |
//! | 64 | 5.2 ns | 3.3 ns |
//! | 1000 | 6.8 ns | 3.5 ns |
//!
//! and on the AMD host (Zen 3; one `ocamlopt -inline 0` program, best of 15 rounds, 2 runs),
//! per level of `1 + go (d - 1)` or `2 + go (d - 1)` 1000 deep, the site chosen by a table:
//!
//! | sites by depth | one site | alternating | blocks of 32 | halves | a call on the way back |
//! |---|---|---|---|---|---|
//! | ns per level | 2.2–3.1 | 2.1–3.1 | 5.5–6.8 | 5.5–6.5 | +3.8 over depth 16 |
//!
//! A ring explains every column: a call on the way back overwrites the entry a return 32
//! levels up will read (each level beyond the 32nd misses once); with one call site every
//! stale entry is the right one; alternating sites repeat every 2 levels, and the ring's 32
//! is a multiple of 2, so each stale entry again holds the right site; blocks of 32 and halves
//! read the other site's entries half the time. A stack that stopped predicting once empty
//! (the model before this one) misses none of the last three. What a miss costs varies with
//! the code around it (0.5–3.4 ns per level on the Intel host, 3.5 ns fitted here), so the
//! fit prices it, from templates with a call on the way back and with two call sites.

use crate::catalogue::Counter;

/// Entries of the return-address stack: 32 on the AMD and Intel cores of this decade, and
/// what the measurements above show (no extra cost at depth 16, the full cost per level
/// beyond 32 at 64).
pub const DEPTH: usize = 32;

/// Where a call returns to: one number per call in the program's code (see
/// [`crate::lower::Lower`]), and a few for the code outside it.
pub(crate) type CallSite = u32;

/// The driver's call of `run`.
pub(crate) const DRIVER_SITE: CallSite = u32::MAX;
/// An entry no call has written since the run began; also the site a tail call passes on,
/// which writes no entry.
pub(crate) const NO_SITE: CallSite = u32::MAX - 1;
/// A call of the runtime (`caml_modify`, `caml_compare`, …), returned from at once.
pub(crate) const RUNTIME_SITE: CallSite = u32::MAX - 2;

/// Whether counting `c` is a call into the runtime's C code, which writes an entry of the
/// ring above the top like any call (and returns to it at once).
#[inline(always)]
pub(crate) const fn calls_the_runtime(c: Counter) -> bool {
    matches!(
        c,
        Counter::PolyCompare
            | Counter::CamlModify
            | Counter::CamlModifyYoung
            | Counter::ArrayMake
            | Counter::ArrayCopy
            | Counter::BytesCreate
            | Counter::FormatInt
            | Counter::BytesCopy
    )
}

/// The call `caml_applyN` makes when a function gets more arguments than it takes: it returns
/// into `caml_applyN`, one site per `N`.
pub(crate) fn over_application_site(arity: usize) -> CallSite {
    u32::MAX - 3 - arity.min(1 << 16) as u32
}

/// The processor's stack of return addresses, as a ring: a call writes the entry above the
/// top and moves the top up, a return predicts the top entry and moves it down, whatever
/// the entry holds. A recursion deeper than the ring overwrites its oldest entries on the
/// way down; on the way back the returns beyond the ring read what the deeper levels left.
#[derive(Debug, Clone)]
pub(crate) struct ReturnStack {
    entries: [CallSite; DEPTH],
    top: usize,
}

impl Default for ReturnStack {
    fn default() -> Self {
        ReturnStack {
            entries: [NO_SITE; DEPTH],
            top: 0,
        }
    }
}

impl ReturnStack {
    /// A call from `site`.
    #[inline(always)]
    pub(crate) fn call(&mut self, site: CallSite) {
        self.top = (self.top + 1) % DEPTH;
        self.entries[self.top] = site;
    }

    /// A call that returns before anything else is called (a runtime function): it predicts
    /// its own return, and leaves its site in the entry above the top.
    #[inline(always)]
    pub(crate) fn leaf_call(&mut self) {
        self.entries[(self.top + 1) % DEPTH] = RUNTIME_SITE;
    }

    /// The driver's call of `run`: the ring starts afresh, so that every run counts the same
    /// misses whatever the one before left.
    #[inline(always)]
    pub(crate) fn call_from_driver(&mut self) {
        *self = ReturnStack::default();
        self.call(DRIVER_SITE);
    }

    /// A return to `site`: whether the processor mispredicted it.
    #[inline(always)]
    pub(crate) fn ret(&mut self, site: CallSite) -> bool {
        let predicted = self.entries[self.top];
        self.top = (self.top + DEPTH - 1) % DEPTH;
        predicted != site
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECURSIVE: CallSite = 1;
    const OTHER: CallSite = 2;
    const LEAF: CallSite = 3;

    /// Misses of a recursion `depth` deep, called by the driver, whose level `d` calls itself
    /// from `site(d)` and calls a leaf before or after (`leaf_after`) its recursive call.
    fn recursion(
        stack: &mut ReturnStack,
        depth: u32,
        leaf_after: bool,
        site: impl Fn(u32) -> CallSite,
    ) -> u32 {
        stack.call_from_driver();
        let mut misses = 0;
        for d in 0..depth {
            if !leaf_after {
                stack.call(LEAF);
                misses += u32::from(stack.ret(LEAF));
            }
            stack.call(site(d));
        }
        for d in (0..depth).rev() {
            misses += u32::from(stack.ret(site(d)));
            if leaf_after {
                stack.call(LEAF);
                misses += u32::from(stack.ret(LEAF));
            }
        }
        // The return to the driver is the driver's cost.
        stack.ret(DRIVER_SITE);
        misses
    }

    #[test]
    fn a_call_on_the_way_back_beyond_the_ring_misses_once_per_level() {
        let one_site = |_| RECURSIVE;
        assert_eq!(
            recursion(&mut ReturnStack::default(), 20, true, one_site),
            0
        );
        assert_eq!(
            recursion(&mut ReturnStack::default(), 1000, false, one_site),
            0
        );
        assert_eq!(
            recursion(&mut ReturnStack::default(), 1000, true, one_site),
            1000 - DEPTH as u32
        );
        // Run after run, the same.
        let mut stack = ReturnStack::default();
        for _ in 0..3 {
            assert_eq!(
                recursion(&mut stack, 100, true, one_site),
                100 - DEPTH as u32
            );
        }
    }

    #[test]
    fn two_call_sites_miss_where_the_stale_entry_holds_the_other() {
        let run = |site: &dyn Fn(u32) -> CallSite| {
            recursion(&mut ReturnStack::default(), 1000, false, site)
        };
        // Alternating sites: the entry 32 levels down holds the same site.
        assert_eq!(run(&|d| if d % 2 == 0 { RECURSIVE } else { OTHER }), 0);
        // Halves: the deepest 32 levels are all `OTHER`, read by every level of the first half.
        assert_eq!(run(&|d| if d < 500 { RECURSIVE } else { OTHER }), 500);
        // Blocks of 32: a stale entry is 32·k levels down, the other site when k is odd.
        let blocks = run(&|d| if d % 64 < 32 { RECURSIVE } else { OTHER });
        assert!((480..=500).contains(&blocks), "{blocks}");
        // Within the ring, nothing is stale.
        let shallow = recursion(&mut ReturnStack::default(), 31, false, |d| d % 3);
        assert_eq!(shallow, 0);
    }

    #[test]
    fn a_runtime_call_overwrites_the_entry_above_the_top() {
        let mut stack = ReturnStack::default();
        stack.call_from_driver();
        for _ in 0..40 {
            stack.call(RECURSIVE);
        }
        let mut misses = 0;
        for _ in 0..40 {
            misses += u32::from(stack.ret(RECURSIVE));
            stack.leaf_call();
        }
        assert_eq!(misses, 40 - DEPTH as u32);
    }
}
