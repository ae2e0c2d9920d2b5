//! Options shared by the subcommands that build and measure.

use anyhow::{bail, Context, Result};
use clap::Args;
use harness::{CompilerSetup, SamplingConfig};
use ocaml_runtime::Compiler;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug, Clone)]
pub struct MeasureArgs {
    /// Compiler under test, as PATH or NAME=PATH (repeatable; default: `ocamlopt` on PATH).
    #[arg(long = "compiler", value_name = "[NAME=]PATH")]
    pub compilers: Vec<String>,
    /// Flags passed to every compiler.
    #[arg(long, default_value = "-inline 0", allow_hyphen_values = true)]
    pub flags: String,
    /// Flags of one compiler instead of --flags, as NAME=FLAGS (repeatable), e.g.
    /// --compiler-flags "afl=-inline 0 -afl-instrument".
    #[arg(
        long = "compiler-flags",
        value_name = "NAME=FLAGS",
        allow_hyphen_values = true
    )]
    pub compiler_flags: Vec<String>,
    /// Sampling time per (program, size, layout) over all its visits, e.g. 1s, 500ms
    /// [default: 1s for bench, 72ms for suite, 40ms for suite --quick].
    #[arg(long, value_parser = humantime::parse_duration)]
    pub quota: Option<Duration>,
    /// Rounds: each visits every point once, in a fresh random order, for quota/rounds; the
    /// estimate is the mean of a point's fastest half of visits [default: 8 for bench, 6 for
    /// suite, 4 for suite --quick].
    #[arg(long)]
    pub rounds: Option<u32>,
    /// At most this many extra rounds for the points the canary saw disturbed during more
    /// than half their visits; none are taken on a quiet machine [default: as many as
    /// --rounds].
    #[arg(long)]
    pub catch_up_rounds: Option<u32>,
    /// Seed of the visit order (default: drawn from the clock; recorded in run.json).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Growth factor of successive batch sizes (Core_bench: a few percent).
    #[arg(long, default_value_t = 1.05)]
    pub growth: f64,
    /// Code-layout variants built and measured per program (docs/measuring.md) [default: 4 for
    /// bench and build (a run's own when rebuilding a run), 8 for suite, 2 for suite --quick].
    #[arg(long)]
    pub layouts: Option<u32>,
    /// Kill a binary that does not answer within this time.
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    pub timeout: Duration,
    /// CPU to pin measurements to (default: the last one available).
    #[arg(long)]
    pub cpu: Option<usize>,
}

impl MeasureArgs {
    pub fn sampling(&self, default_quota: Duration, default_rounds: u32) -> Result<SamplingConfig> {
        let rounds = self.rounds.unwrap_or(default_rounds);
        if rounds == 0 {
            bail!("--rounds must be at least 1");
        }
        if self.growth <= 1.0 {
            bail!("--growth must be above 1 (got {})", self.growth);
        }
        if self.layouts == Some(0) {
            bail!("--layouts must be at least 1");
        }
        let seed = self.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
        });
        Ok(SamplingConfig {
            quota: self.quota.unwrap_or(default_quota),
            rounds,
            catch_up_rounds: self.catch_up_rounds.unwrap_or(rounds),
            seed,
            growth: self.growth,
            reply_timeout: self.timeout,
            ..SamplingConfig::default()
        })
    }

    /// Layout variants: the user's, or this command's default.
    pub fn layouts_or(&self, default: u32) -> u32 {
        self.layouts.unwrap_or(default)
    }

    pub fn compilers(&self) -> Result<Vec<CompilerSetup>> {
        let flags: Vec<String> = self.flags.split_whitespace().map(str::to_string).collect();
        let mut own_flags = std::collections::BTreeMap::new();
        for spec in &self.compiler_flags {
            let Some((name, f)) = spec.split_once('=') else {
                bail!("--compiler-flags takes NAME=FLAGS, got {spec:?}");
            };
            own_flags.insert(
                name.to_string(),
                f.split_whitespace().map(str::to_string).collect::<Vec<_>>(),
            );
        }
        let specs: Vec<(Option<&str>, Option<PathBuf>)> = if self.compilers.is_empty() {
            vec![(None, None)]
        } else {
            self.compilers
                .iter()
                .map(|spec| match spec.split_once('=') {
                    Some((name, path)) => (Some(name), Some(PathBuf::from(path))),
                    None => (None, Some(PathBuf::from(spec))),
                })
                .collect()
        };
        let mut setups: Vec<CompilerSetup> = Vec::new();
        for (name, path) in specs {
            let compiler = Compiler::discover(name, path.as_deref())?;
            if setups.iter().any(|s| s.compiler.name == compiler.name) {
                bail!(
                    "two compilers are named {:?}: name them, e.g. --compiler a={}",
                    compiler.name,
                    compiler.path.display()
                );
            }
            let flags = own_flags
                .remove(&compiler.name)
                .unwrap_or_else(|| flags.clone());
            setups.push(CompilerSetup { compiler, flags });
        }
        if let Some(name) = own_flags.keys().next() {
            bail!("--compiler-flags names {name:?}, which is not one of the --compiler names");
        }
        Ok(setups)
    }
}

/// A fresh output directory under `mlcost-out/` named by kind and time.
pub fn default_out_dir(kind: &str) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    PathBuf::from("mlcost-out").join(format!("{kind}-{secs}"))
}

/// The benchmark name of a program file: its stem.
pub fn benchmark_name(path: &std::path::Path) -> Result<String> {
    path.file_stem()
        .and_then(|s| s.to_str())
        .map(str::to_string)
        .with_context(|| format!("{}: not a file name", path.display()))
}
