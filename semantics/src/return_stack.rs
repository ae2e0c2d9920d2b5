//! Which returns the processor mispredicts (`ReturnMiss`). A return is predicted from a small
//! stack of return addresses the processor pushes at each call; a non-tail recursion deeper
//! than that stack empties it on the way back, and what happens then depends on what the way
//! back does. Measured here (`mlcost bench`, 2 layouts, 1 run), per level of a recursion over
//! a list, with `f` a one-comparison function:
//!
//! | depth | `f x :: map f t` (call on the way back) | `let y = f x in y :: map f t` |
//! |---|---|---|
//! | 16 | 3.2 ns | 3.2 ns |
//! | 64 | 5.2 ns | 3.3 ns |
//! | 1000 | 6.8 ns | 3.5 ns |
//!
//! A walk back with no call in it (`1 + len t`, `x :: append t l`) pays nothing at any depth,
//! nor does a call made on the way down. Once the stack is empty, a call and its return on the
//! way back leave the next return without a prediction it can use: each level beyond the
//! stack's depth misses once. What a miss costs varies with the code around it — 3.4 ns per
//! level in the `map` above, 0.5 ns with an identity leaf called directly (the `returnmiss`
//! template), and code layouts of one program differed by 26–58% at depth — so the fit prices
//! it, from templates that call a leaf directly and through a closure. The model: a stack of
//! [`DEPTH`] entries, a return that finds it empty misses when a call was made since it last
//! was.

/// Entries of the return-address stack: 32 on the AMD and Intel cores of this decade, and
/// what the measurements above show (no extra cost at depth 16, the full cost per level
/// beyond 32 at 64).
pub const DEPTH: u32 = 32;

#[derive(Debug, Default, Clone)]
pub(crate) struct ReturnStack {
    /// Return addresses the stack holds (at most [`DEPTH`]).
    held: u32,
    /// Whether a call was made while the stack was empty, since the last return that found
    /// it empty.
    called_while_empty: bool,
}

impl ReturnStack {
    #[inline(always)]
    pub(crate) fn call(&mut self) {
        if self.held == 0 {
            self.called_while_empty = true;
        }
        self.held = (self.held + 1).min(DEPTH);
    }

    /// The driver's call of `run`: a push that starts the run afresh, so that every run
    /// counts the same misses whatever the one before left.
    #[inline(always)]
    pub(crate) fn call_from_driver(&mut self) {
        self.called_while_empty = false;
        self.held = (self.held + 1).min(DEPTH);
    }

    /// A return: whether the processor mispredicted it.
    #[inline(always)]
    pub(crate) fn ret(&mut self) -> bool {
        if self.held > 0 {
            self.held -= 1;
            false
        } else {
            std::mem::take(&mut self.called_while_empty)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Misses of a recursion `depth` deep, called by the driver, that calls a leaf before or
    /// after (`leaf_after`) each recursive call returns.
    fn recursion(stack: &mut ReturnStack, depth: u32, leaf_after: bool) -> u32 {
        stack.call_from_driver();
        let mut misses = 0;
        for _ in 0..depth {
            if !leaf_after {
                stack.call();
                misses += u32::from(stack.ret());
            }
            stack.call();
        }
        for _ in 0..depth {
            misses += u32::from(stack.ret());
            if leaf_after {
                stack.call();
                misses += u32::from(stack.ret());
            }
        }
        // The return to the driver is the driver's cost.
        stack.ret();
        misses
    }

    #[test]
    fn only_a_call_on_the_way_back_beyond_the_stack_misses() {
        assert_eq!(recursion(&mut ReturnStack::default(), 20, true), 0);
        assert_eq!(recursion(&mut ReturnStack::default(), 1000, false), 0);
        assert_eq!(
            recursion(&mut ReturnStack::default(), 1000, true),
            1000 - DEPTH
        );
        // Run after run, the same.
        let mut stack = ReturnStack::default();
        for _ in 0..3 {
            assert_eq!(recursion(&mut stack, 100, true), 100 - DEPTH);
        }
    }
}
