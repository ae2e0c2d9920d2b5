//! Comparing two models' instructions per construct. Instruction counts do not move between
//! runs, so the constants fitted from them do not either: any difference larger than a small
//! minimum effect is a real change in the code the compiler emits, and needs no interval.

use fit::{CostModel, Method};
use serde::{Deserialize, Serialize};

/// Differences below this many percent are fit round-off, not a change (two fits of the same
/// counts agree exactly; a different suite of sizes moves constants by less than this).
pub const MIN_EFFECT_PCT: f64 = 0.5;

/// Constants below this many instructions in both models are too small to compare.
pub const FLOOR_INSTRUCTIONS: f64 = 0.1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstructionChange {
    pub construct: String,
    pub a: f64,
    pub b: f64,
    /// 100 · (B − A) / max(|A|, floor).
    pub change_pct: f64,
    /// Beyond [`MIN_EFFECT_PCT`] and not negligible: a real change.
    pub changed: bool,
}

/// Instructions per construct of `b` against `a`, for one method; empty when either model has
/// no instruction fit (valgrind was missing in that run).
pub fn compare_instructions(
    a: &CostModel,
    b: &CostModel,
    method: Method,
) -> Vec<InstructionChange> {
    let (Some(fa), Some(fb)) = (a.instructions.get(&method), b.instructions.get(&method)) else {
        return Vec::new();
    };
    fa.time_ns
        .iter()
        .filter_map(|(construct, ka)| {
            let kb = fb.time_ns.get(construct)?;
            let negligible =
                ka.estimate.abs() < FLOOR_INSTRUCTIONS && kb.estimate.abs() < FLOOR_INSTRUCTIONS;
            let change_pct =
                100.0 * (kb.estimate - ka.estimate) / ka.estimate.abs().max(FLOOR_INSTRUCTIONS);
            Some(InstructionChange {
                construct: construct.clone(),
                a: ka.estimate,
                b: kb.estimate,
                change_pct,
                changed: !negligible && change_pct.abs() > MIN_EFFECT_PCT,
            })
        })
        .collect()
}

/// One line for the end of a comparison: how many constructs changed in instructions.
pub fn instructions_summary(changes: &[InstructionChange]) -> String {
    if changes.is_empty() {
        return "instructions: not compared (a run has no instruction counts: made without --instructions, or without valgrind)"
            .to_string();
    }
    let changed: Vec<String> = changes
        .iter()
        .filter(|c| c.changed)
        .map(|c| format!("{} {:+.1}%", c.construct, c.change_pct))
        .collect();
    if changed.is_empty() {
        format!(
            "instructions: {} constructs compared, none changed by more than {MIN_EFFECT_PCT}%",
            changes.len()
        )
    } else {
        format!(
            "instructions: {} constructs compared, {} changed: {}",
            changes.len(),
            changed.len(),
            changed.join(", ")
        )
    }
}
