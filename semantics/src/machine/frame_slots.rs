//! The running frame's slots: reads, writes, and the stores native code makes of the values a
//! call must keep (`Spill`).

use super::Machine;
use crate::catalogue::Counter;
use crate::ir::Slot;
use crate::value::{Value, UNIT};

impl Machine<'_> {
    #[inline(always)]
    pub(crate) fn set_local(&mut self, slot: Slot, v: Value) {
        let i = self.base + slot as usize;
        std::mem::replace(&mut self.stack[i], v).release();
        // A new value: stored again at the next call it crosses.
        if slot < 64 {
            self.stored &= !(1 << slot);
        }
    }

    /// Makes room on the stack for the running frame's slots up to `frame_end`, the new ones
    /// `UNIT`.
    #[inline(always)]
    pub(super) fn grow_frame(&mut self, frame_end: usize) {
        if self.stack.len() < frame_end {
            self.push_slots(frame_end);
        }
    }

    /// [`Machine::grow_frame`]'s growing, out of line to keep the calls that need none short.
    /// `Vec::resize` took some 70 instructions for the two or three slots a call of a deep
    /// recursion adds.
    #[inline(never)]
    fn push_slots(&mut self, frame_end: usize) {
        self.stack.reserve(frame_end - self.stack.len());
        while self.stack.len() < frame_end {
            self.stack.push(UNIT);
        }
    }

    /// Counts the `Spill`s of a non-tail call: `loads` (and operand stores) the liveness pass
    /// placed there, and a store of each of `kept` not stored in the frame since it was last
    /// written, as native code stores a variable once, before the first call it must survive.
    /// Slots past the 64 a mask holds are stored every time.
    #[inline(always)]
    pub(crate) fn spill_around_call(&mut self, loads: u32, kept: &[Slot]) {
        self.count_n(Counter::Spill, loads as usize);
        for &slot in kept {
            if slot >= 64 || self.stored & (1 << slot) == 0 {
                self.count(Counter::Spill);
                if slot < 64 {
                    self.stored |= 1 << slot;
                }
            }
        }
    }

    /// Moves the `nargs` values on top of the stack to `argbase`, in place of the frame there
    /// (a tail call's arguments).
    #[inline(always)]
    pub(super) fn move_arguments(&mut self, argbase: usize, nargs: usize) {
        let src = self.stack.len() - nargs;
        for i in 0..nargs {
            self.stack.swap(argbase + i, src + i);
        }
        self.pop_to(argbase + nargs);
    }

    #[inline(always)]
    pub(crate) fn local(&self, slot: Slot) -> Value {
        self.stack[self.base + slot as usize].clone()
    }

    /// The last read of a local: the frame lets go of the value (see `liveness`).
    #[inline(always)]
    pub(crate) fn take_local(&mut self, slot: Slot) -> Value {
        std::mem::replace(&mut self.stack[self.base + slot as usize], UNIT)
    }

    /// A local read in place (no reference count taken), for immediates.
    #[inline(always)]
    pub(crate) fn local_ref(&self, slot: Slot) -> &Value {
        &self.stack[self.base + slot as usize]
    }
}
