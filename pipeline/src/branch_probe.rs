//! The branch probe: how many coin-toss branches this machine's predictor keeps, measured
//! before a suite counts anything, since the counts of branch misses depend on it
//! ([`semantics::branch_memory`]).
//!
//! Two programs walk a list of booleans with an `if` on each: one over pseudo-random ones, one
//! over alternating ones that any predictor learns. Timed the usual way (Core_bench slopes,
//! two layouts, the canary watching) at walk lengths from 2000 to 128 000, the walk of tosses
//! costs more only by the outcomes the predictor lost; the length at which half are lost is
//! the figure. It takes about ten seconds, and it is kept in the run (`branch-memory.json`,
//! the timings beside it in `branch-probe/`), so that everything that counts the run later
//! counts as its machine did.

use anyhow::{Context, Result};
use harness::{run_bench, BenchPlan, BenchProgram, SamplingConfig};
use ocaml_runtime::CompilerSetup;
use rundir::RunDir;
use semantics::branch_memory::{half_loss_point, probe_sizes, set_kept_tosses};
use serde::{Deserialize, Serialize};
use std::time::Duration;

const TOSS_ML: &str = include_str!("../ocaml/branch_probe_toss.ml");
const LEARNT_ML: &str = include_str!("../ocaml/branch_probe_learnt.ml");
const TOSS: &str = "branch_probe_toss";
const LEARNT: &str = "branch_probe_learnt";

/// Sampling per (walk, length, layout): 26 points in 2 layouts take about ten seconds.
const QUOTA: Duration = Duration::from_millis(160);
const ROUNDS: u32 = 4;
const LAYOUTS: u32 = 2;

/// Below this extra time per toss at the longest walk the predictor lost nothing measurable
/// (a miss costs 4–8 ns on the hosts measured, and half the tosses of a lost walk miss).
const MIN_EXTRA_NS_PER_TOSS: f64 = 0.5;

/// One walk length: the time per run of both walks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbePoint {
    pub tosses: u64,
    pub toss_ns: f64,
    pub learnt_ns: f64,
}

/// What the probe found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BranchMemory {
    /// The walk length at which half the tosses are lost; `None` when the probe could not
    /// tell (the longest walk lost nothing measurable), and counting keeps the model's own.
    pub kept_tosses: Option<f64>,
    pub points: Vec<ProbePoint>,
    /// Visits the canary saw disturbed, of all the probe's visits.
    pub disturbed_visits: usize,
    pub visits: usize,
}

impl BranchMemory {
    /// The figure from the points, as [`half_loss_point`] reads them.
    pub fn from_points(points: Vec<ProbePoint>, disturbed_visits: usize, visits: usize) -> Self {
        let extras: Vec<(u64, f64)> = points
            .iter()
            .map(|p| (p.tosses, p.toss_ns - p.learnt_ns))
            .collect();
        BranchMemory {
            kept_tosses: half_loss_point(&extras, MIN_EXTRA_NS_PER_TOSS),
            points,
            disturbed_visits,
            visits,
        }
    }

    /// One line for the terminal.
    pub fn summary(&self) -> String {
        let disturbed = if self.disturbed_visits > 0 {
            format!(
                " ({} of {} visits disturbed)",
                self.disturbed_visits, self.visits
            )
        } else {
            String::new()
        };
        match self.kept_tosses {
            Some(kept) => format!(
                "branch predictor: keeps about {kept:.0} coin tosses (the model's tables: {:.0}; \
                 long table ×{:.2}){disturbed}",
                semantics::branch_memory::MODEL_KEPT_TOSSES,
                kept / semantics::branch_memory::MODEL_KEPT_TOSSES
            ),
            None => format!(
                "branch predictor: the probe saw no lost tosses up to {} (counting with the \
                 model's own {:.0}){disturbed}",
                self.points.last().map_or(0, |p| p.tosses),
                semantics::branch_memory::MODEL_KEPT_TOSSES
            ),
        }
    }
}

/// Measures the machine's branch memory with `compiler` on `cpu`, saves it in `run` and makes
/// the interpreter count with it.
pub fn probe_branch_memory(
    run: &RunDir,
    compiler: &CompilerSetup,
    cpu: Option<usize>,
    progress: &mut dyn harness::Progress,
) -> Result<BranchMemory> {
    let dir = std::path::absolute(run.branch_probe_dir())?;
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let sizes = probe_sizes();
    let mut programs = Vec::new();
    for (name, source) in [(TOSS, TOSS_ML), (LEARNT, LEARNT_ML)] {
        let path = dir.join(format!("{name}.ml"));
        std::fs::write(&path, source).with_context(|| format!("writing {}", path.display()))?;
        programs.push(BenchProgram {
            name: name.into(),
            path,
            sizes: sizes.clone(),
        });
    }
    let plan = BenchPlan {
        programs,
        compilers: vec![compiler.clone()],
        layouts: LAYOUTS,
        sampling: SamplingConfig {
            quota: QUOTA,
            rounds: ROUNDS,
            catch_up_rounds: ROUNDS,
            ..SamplingConfig::default()
        },
        cpu,
        out_dir: dir,
        canary_reference: None,
    };
    progress.stage("measure the branch predictor");
    let outcome = run_bench(&plan, progress)?;
    let time = |name: &str, size: u64| {
        outcome
            .estimates
            .iter()
            .find(|e| e.benchmark == name && e.size == size)
            .map(|e| e.ns_per_run.estimate)
    };
    let points = sizes
        .iter()
        .filter_map(|&n| {
            Some(ProbePoint {
                tosses: n,
                toss_ns: time(TOSS, n)?,
                learnt_ns: time(LEARNT, n)?,
            })
        })
        .collect();
    let memory = BranchMemory::from_points(
        points,
        outcome
            .estimates
            .iter()
            .map(|e| e.slow_machine_visits)
            .sum(),
        outcome.estimates.iter().map(|e| e.visits).sum(),
    );
    rundir::write_json(&run.branch_memory_file(), &memory)?;
    if let Some(kept) = memory.kept_tosses {
        set_kept_tosses(kept);
    }
    Ok(memory)
}

/// The branch memory `run` measured, if it did, made the one the interpreter counts with.
/// Runs from before the probe count with the model's own.
pub fn use_recorded_branch_memory(run: &RunDir) -> Result<Option<BranchMemory>> {
    let memory: Option<BranchMemory> = rundir::read_optional(&run.branch_memory_file())?;
    if let Some(kept) = memory.as_ref().and_then(|m| m.kept_tosses) {
        set_kept_tosses(kept);
    }
    Ok(memory)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(tosses: u64, extra_per_toss: f64) -> ProbePoint {
        ProbePoint {
            tosses,
            toss_ns: tosses as f64 * (1.3 + extra_per_toss),
            learnt_ns: tosses as f64 * 1.3,
        }
    }

    #[test]
    fn the_figure_is_where_the_walk_loses_half_its_tosses() {
        // The Intel host's walk (session 47): 9% lost at 8000, 41% at 10 000, 61% at 12 000.
        let memory = BranchMemory::from_points(
            vec![
                point(4000, 0.0),
                point(8000, 0.27),
                point(10_000, 1.23),
                point(12_000, 1.84),
                point(64_000, 3.0),
            ],
            0,
            40,
        );
        let kept = memory.kept_tosses.unwrap();
        assert!((10_500.0..11_500.0).contains(&kept), "{kept}");
        assert!(
            memory.summary().contains("keeps about"),
            "{}",
            memory.summary()
        );
    }

    #[test]
    fn a_probe_that_saw_no_loss_keeps_the_models_figure_and_says_so() {
        let memory = BranchMemory::from_points(vec![point(4000, 0.0), point(128_000, 0.1)], 3, 40);
        assert_eq!(memory.kept_tosses, None);
        assert!(
            memory.summary().contains("no lost tosses up to 128000")
                && memory.summary().contains("3 of 40 visits disturbed"),
            "{}",
            memory.summary()
        );
    }
}
