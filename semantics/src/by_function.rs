//! Counts per function: which function ran each counted construct, keyed as native code names
//! it ([`crate::ir::FunCode::symbol`]). Set beside callgrind's instructions per function, a
//! program the instruction model misses shows *where* its count goes wrong — the function, and
//! the constructs counted there — rather than only by how much.
//!
//! A construct belongs to the function whose code runs it, as a profiler sees it: a call's
//! `FunApp` and `ApplyN` to the caller, its `Frame` to the callee, a tail call's jump to the
//! function that makes it. What is counted while no function of the program runs (`Base`,
//! and the misses and collections reckoned after the run) goes to [`OUTSIDE`].

use crate::catalogue::{catalogue, COUNTER_COUNT};
use crate::ir::FunId;
use crate::machine::Machine;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where counts go while no function of the program runs.
pub const OUTSIDE: &str = "(outside any function)";

/// One function's share of a run's counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCounts {
    /// As native code names it, without the stamp: `loop`, `fun` (anonymous), `List.map`.
    /// Functions of the same name are one entry, as a profile by symbol name merges them.
    pub function: String,
    /// Constructs counted in its code, by catalogue name (those that ran at least once).
    pub counts: BTreeMap<String, u64>,
}

/// The running tally: counts are read from the machine's array at each switch of function,
/// so counting itself costs nothing more while attribution is on.
pub(crate) struct Attribution {
    running: Option<FunId>,
    snapshot: [u64; COUNTER_COUNT],
    by_fun: Vec<[u64; COUNTER_COUNT]>,
    outside: [u64; COUNTER_COUNT],
}

impl Attribution {
    fn switch(&mut self, counts: &[u64; COUNTER_COUNT], to: Option<FunId>) {
        let into = match self.running {
            Some(f) => &mut self.by_fun[f as usize],
            None => &mut self.outside,
        };
        for ((total, now), before) in into.iter_mut().zip(counts).zip(&self.snapshot) {
            *total += now - before;
        }
        self.snapshot = *counts;
        self.running = to;
    }
}

impl Machine<'_> {
    /// Starts attributing counts to functions: every count since the last reset, those made
    /// so far (the driver's `Base`) outside any function.
    pub(crate) fn attribute_by_function(&mut self) {
        self.attribution = Some(Box::new(Attribution {
            running: None,
            snapshot: [0; COUNTER_COUNT],
            by_fun: vec![[0; COUNTER_COUNT]; self.prog.funs.len()],
            outside: [0; COUNTER_COUNT],
        }));
    }

    /// The function running now, when counts are attributed.
    #[inline(always)]
    pub(crate) fn attributed_function(&self) -> Option<Option<FunId>> {
        self.attribution.as_ref().map(|a| a.running)
    }

    /// From now on counts go to `fid` (`None`: outside any function).
    #[inline(always)]
    pub(crate) fn attribute_to(&mut self, fid: Option<FunId>) {
        if let Some(a) = self.attribution.as_deref_mut() {
            a.switch(&self.counts, fid);
        }
    }

    /// Ends attribution: every count so far, by function, in the order of first definition.
    pub(crate) fn counts_by_function(&mut self) -> Vec<FunctionCounts> {
        self.attribute_to(None);
        let Some(a) = self.attribution.take() else {
            return Vec::new();
        };
        let mut merged: Vec<(String, [u64; COUNTER_COUNT])> = Vec::new();
        let named = self
            .prog
            .funs
            .iter()
            .map(|f| f.symbol.as_str())
            .zip(&a.by_fun)
            .chain(std::iter::once((OUTSIDE, &a.outside)));
        for (symbol, counts) in named {
            if counts.iter().all(|&n| n == 0) {
                continue;
            }
            let slot = match merged.iter().position(|(s, _)| s == symbol) {
                Some(i) => i,
                None => {
                    merged.push((symbol.to_string(), [0; COUNTER_COUNT]));
                    merged.len() - 1
                }
            };
            for (total, n) in merged[slot].1.iter_mut().zip(counts) {
                *total += n;
            }
        }
        for (_, counts) in merged.iter_mut() {
            crate::issue::split_chain_kinds(counts);
        }
        merged
            .into_iter()
            .map(|(function, counts)| FunctionCounts {
                function,
                counts: catalogue()
                    .iter()
                    .zip(&counts)
                    .filter(|(_, &n)| n > 0)
                    .map(|(c, &n)| (c.name.to_string(), n))
                    .collect(),
            })
            .collect()
    }
}
