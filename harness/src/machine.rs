//! What a run was measured on and with: recorded beside the samples (`run.json`) so that any
//! figure can be traced to its machine, compilers, flags and settings.

use crate::plan::BenchPlan;
use ocaml_runtime::Compiler;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub cpu_model: String,
    pub cpus: usize,
    pub kernel: String,
    pub hostname: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompilerRecord {
    #[serde(flatten)]
    pub compiler: Compiler,
    pub flags: Vec<String>,
    /// The minor heap of its binaries, in words, as their driver reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minor_heap_words: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub mlcost_version: String,
    /// Seconds since the Unix epoch when the run started.
    pub started_unix: u64,
    pub machine: Machine,
    pub compilers: Vec<CompilerRecord>,
    pub layouts: u32,
    /// Sampling time per point over all its visits.
    pub quota_ms: u64,
    /// Visits per point (1 in runs from before rounds).
    #[serde(default = "one")]
    pub rounds: u32,
    /// Seed of the visit order.
    #[serde(default)]
    pub seed: u64,
    /// At most this many catch-up rounds (0 in runs from before them).
    #[serde(default)]
    pub catch_up_rounds: u32,
    pub growth: f64,
    pub pinned_cpu: Option<usize>,
    /// Whether benchmark processes started with address randomisation off, each layout's
    /// stack at its own fixed offset (`ocaml_runtime::placement`); false in runs from before
    /// fixed placement, and where the system denies it.
    #[serde(default)]
    pub fixed_addresses: bool,
}

fn one() -> u32 {
    1
}

fn first_line(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.lines().next().unwrap_or("").trim().to_string())
}

impl Machine {
    pub fn this() -> Machine {
        let cpu_model = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|text| {
                text.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| std::env::consts::ARCH.to_string());
        let kernel = first_line("/proc/sys/kernel/osrelease")
            .map(|r| format!("{} {r}", std::env::consts::OS))
            .unwrap_or_else(|| std::env::consts::OS.to_string());
        Machine {
            cpu_model,
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            kernel,
            hostname: first_line("/proc/sys/kernel/hostname").unwrap_or_default(),
        }
    }
}

impl RunInfo {
    pub fn new(plan: &BenchPlan) -> RunInfo {
        RunInfo {
            mlcost_version: env!("CARGO_PKG_VERSION").to_string(),
            started_unix: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            machine: Machine::this(),
            compilers: plan
                .compilers
                .iter()
                .map(|s| CompilerRecord {
                    compiler: s.compiler.clone(),
                    flags: s.flags.clone(),
                    minor_heap_words: None,
                })
                .collect(),
            layouts: plan.layouts,
            quota_ms: plan.sampling.quota.as_millis() as u64,
            rounds: plan.sampling.rounds,
            seed: plan.sampling.seed,
            catch_up_rounds: plan.sampling.catch_up_rounds,
            growth: plan.sampling.growth,
            pinned_cpu: plan.cpu,
            fixed_addresses: ocaml_runtime::fixed_addresses_available(),
        }
    }
}
