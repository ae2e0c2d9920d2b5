//! The branch probe: how many coin-toss branches this machine's predictor keeps, measured
//! before a suite counts anything, since the counts of branch misses depend on it
//! ([`semantics::branch_memory`]).
//!
//! Two programs walk a list of booleans with an `if` on each: one over pseudo-random ones, one
//! over alternating ones that any predictor learns. Timed the usual way (Core_bench slopes,
//! two layouts, the canary watching) at walk lengths from 2000 to 128 000, the walk of tosses
//! costs more only by the outcomes the predictor lost; the length at which half are lost is
//! the figure. It takes 12–20 s (session 47), and it is kept in the run (`branch-memory.json`,
//! the timings beside it in `branch-probe/`), so that everything that counts the run later
//! counts as its machine did.

use anyhow::{Context, Result};
use harness::{run_bench, BenchPlan, BenchProgram, SamplingConfig};
use ocaml_runtime::CompilerSetup;
use rundir::RunDir;
use semantics::branch_memory::probe_sizes;
pub use semantics::branch_memory::{BranchMemory, ProbePoint};
use std::time::Duration;

const TOSS_ML: &str = include_str!("../ocaml/branch_probe_toss.ml");
const LEARNT_ML: &str = include_str!("../ocaml/branch_probe_learnt.ml");
const TOSS: &str = "branch_probe_toss";
const LEARNT: &str = "branch_probe_learnt";

/// Sampling per (walk, length, layout): 26 points in 2 layouts take 12–20 s.
const QUOTA: Duration = Duration::from_millis(160);
const ROUNDS: u32 = 4;
const LAYOUTS: u32 = 2;

/// Measures the machine's branch memory with `compiler` on `cpu`, saves it in `run` and makes
/// the interpreter count with it.
pub fn probe_branch_memory(
    run: &RunDir,
    compiler: &CompilerSetup,
    cpu: Option<usize>,
    progress: &mut dyn harness::Progress,
) -> Result<BranchMemory> {
    let dir = std::path::absolute(run.branch_probe_dir())?;
    // A probe left by a suite killed before its measurement began is taken again whole: the
    // harness would refuse a directory that already holds samples.
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
    }
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
    let estimate = |name: &str, size: u64| {
        outcome
            .estimates
            .iter()
            .find(|e| e.benchmark == name && e.size == size)
    };
    let by_layout = |e: &harness::Estimate| -> Vec<f64> {
        e.layouts.iter().map(|l| l.ns_per_run.estimate).collect()
    };
    let points = sizes
        .iter()
        .filter_map(|&n| {
            let (toss, learnt) = (estimate(TOSS, n)?, estimate(LEARNT, n)?);
            Some(ProbePoint {
                tosses: n,
                toss_ns: toss.ns_per_run.estimate,
                learnt_ns: learnt.ns_per_run.estimate,
                toss_ns_by_layout: by_layout(toss),
                learnt_ns_by_layout: by_layout(learnt),
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
    memory.make_current();
    Ok(memory)
}

/// The branch memory `run` measured, if it did, made the one the interpreter counts with.
/// Runs from before the probe count with the model's own.
pub fn use_recorded_branch_memory(run: &RunDir) -> Result<Option<BranchMemory>> {
    let memory: Option<BranchMemory> = rundir::read_optional(&run.branch_memory_file())?;
    if let Some(memory) = &memory {
        memory.make_current();
    }
    Ok(memory)
}
