//! A loop's iterations and a linear recursion's levels as [`Machine::invoke`] enters and
//! leaves them: the bookkeeping [`crate::issue`] prices, kept out of `invoke`, whose frame
//! every level of a deep recursion pushes.

use super::Machine;
use crate::ir::FunId;
use crate::issue::Iteration;

impl Machine<'_> {
    /// Function `fid`, a loop, is entered or entered again (see [`Machine::invoke`]): ends
    /// the iteration its self call ended, or begins its first. Kept out of `invoke`, whose
    /// frame every level of a deep recursion pushes.
    /// Whether a loop instance began.
    #[inline(never)]
    pub(super) fn loop_head(
        &mut self,
        fid: FunId,
        fresh: bool,
        way_back: &mut Option<FunId>,
    ) -> bool {
        match self.self_call {
            // Entered again by its own call (a jump back, or one level deeper).
            Some(call) if call.fid == fid => {
                self.self_call = None;
                let mut kind = Iteration::Loop;
                if call.descends {
                    // One level down a linear recursion: its return ends a level of the way
                    // back. Its way down has a window of its own, in levels.
                    let callers_arm = self.way_back_arm.take();
                    match way_back {
                        Some(_) => *self.callers_arms.last_mut().expect("pushed") = callers_arm,
                        None => self.callers_arms.push(callers_arm),
                    }
                    *way_back = Some(fid);
                    kind = if self.recursion_descends(fid) {
                        Iteration::DeepLevel
                    } else {
                        Iteration::ShallowLevel
                    };
                }
                self.loop_iteration_ended(fid, call.chain, kind);
                false
            }
            _ if fresh => {
                self.loop_entered(fid);
                true
            }
            _ => false,
        }
    }

    /// A level of a linear recursion of `fid` returned (or raised: `returned` false).
    #[inline(never)]
    pub(super) fn level_returned(&mut self, fid: FunId, returned: bool) {
        // The arm this level took, where an `if` on its way back says; the caller's own
        // `if`s, run before it called, speak for the caller's level.
        let callers_arm = self.callers_arms.pop().expect("pushed when descending");
        let arm = std::mem::replace(&mut self.way_back_arm, callers_arm);
        // Read where it lies, not copied (a chain is 36 bytes).
        let prog = self.prog;
        let chain = match &arm {
            Some((arm_of, cycles)) if *arm_of == fid => cycles,
            _ => &prog.funs[fid as usize].return_chain,
        };
        self.recursion_ascends(fid);
        if returned {
            self.loop_returned(fid, chain);
        }
    }
}
