//! Running a benchmark binary under callgrind and reading the instructions of each batch.

use crate::{InstructionError, PointCount};
use ocaml_runtime::{parse_reply, Reply, Request};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// The prefix of the driver's batch function; `ocamlopt` appends a stamp that differs between
/// compilers, so the exact name is read from the binary's symbols.
const BATCH_SYMBOL: &str = "camlMlcost_driver__batch_";
/// The prefix of the program's `run` (the program is compiled as the module `Bench_program`).
const RUN_SYMBOL: &str = "camlBench_program__run_";

/// Runtime functions whose instructions depend on the heap's state rather than on the work of
/// a run: the minor and major collectors and their entry points, and the major-heap allocator
/// (a free-list search). Their instructions are counted apart ([`PointCount::gc_per_run`]).
/// The set must be closed under calls between its members (no member reaches another through
/// a function outside the set), or a collection would be counted twice; the names cover the
/// 4.10–4.14 runtimes, and a name a runtime lacks is simply never seen.
pub const GC_FUNCTIONS: &[&str] = &[
    "caml_call_gc",
    "caml_garbage_collection",
    "caml_alloc_small_dispatch",
    "caml_gc_dispatch",
    "caml_minor_collection",
    "caml_empty_minor_heap",
    "caml_major_collection_slice",
    "caml_check_urgent_gc",
    "caml_process_pending_actions",
    "caml_process_pending_actions_exn",
    "caml_do_pending_actions_exn",
    "caml_alloc_shr",
    "caml_alloc_shr_no_track_noexc",
];

/// Instructions the `K` runs of a point's lower batch should execute: with collections
/// counted apart a run's count is exact to a few instructions, so a batch of ~10⁶ makes that
/// jitter 10⁻⁵ of the slope while keeping a point to a fraction of a second under callgrind.
pub const TARGET_INSTRUCTIONS: u64 = 1 << 20;

/// Most runs in one batch (a `run` of a few instructions).
const MAX_RUNS: u64 = 1 << 20;

/// The valgrind found on `PATH`, with its version for the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Valgrind {
    pub path: PathBuf,
    pub version: String,
}

/// valgrind as found on `PATH`, or `None` when it is not installed (the metric is then
/// skipped, and the caller says so).
pub fn available() -> Option<Valgrind> {
    let out = Command::new("valgrind").arg("--version").output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(Valgrind {
        path: PathBuf::from("valgrind"),
        version: String::from_utf8_lossy(&out.stdout).trim().to_string(),
    })
}

fn run_error(binary: &Path) -> impl Fn(String) -> InstructionError + '_ {
    move |message| InstructionError::Run {
        binary: binary.display().to_string(),
        message,
    }
}

/// The text symbol of `binary` starting with `prefix` with the highest stamp: `ocamlopt`
/// numbers definitions in order, and a later definition of `run` shadows an earlier one.
fn symbol(binary: &Path, prefix: &str) -> Result<String, InstructionError> {
    let error = run_error(binary);
    let out = Command::new("nm")
        .arg(binary)
        .output()
        .map_err(|e| error(format!("cannot run nm: {e}")))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut fields = l.split_whitespace().skip(1);
            let (kind, name) = (fields.next()?, fields.next()?);
            let stamp: u64 = name.strip_prefix(prefix)?.parse().ok()?;
            matches!(kind, "T" | "t").then(|| (stamp, name.to_string()))
        })
        .max()
        .map(|(_, name)| name)
        .ok_or_else(|| error(format!("no {prefix}* function in the binary")))
}

/// The driver's batch function in `binary`, e.g. `camlMlcost_driver__batch_463`.
pub fn batch_symbol(binary: &Path) -> Result<String, InstructionError> {
    symbol(binary, BATCH_SYMBOL)
        .map_err(|e| run_error(binary)(format!("{e}: built with an older driver? (rebuild)")))
}

/// What one callgrind dump says: every instruction collected, those inside
/// [`GC_FUNCTIONS`], and each other function's own instructions (its self cost, callees
/// excluded), by symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    pub total: u64,
    pub gc: u64,
    /// Self costs of the functions outside the collector (of a function the collector also
    /// calls, what the collector's calls did not cost).
    pub functions: BTreeMap<String, u64>,
}

/// Reads a dump written with `--compress-strings=no --compress-pos=no`. The collections'
/// instructions are the inclusive costs of the calls into [`GC_FUNCTIONS`] from functions the
/// collector itself never calls: a call between members, or from a helper a member calls
/// (`caml_compact_heap_maybe` calling `caml_empty_minor_heap` inside a major slice), is
/// already inside an outer call. Callgrind names the recursion levels of a function `f'2`,
/// `f'3`: the suffix is dropped.
pub fn parse_profile(text: &str) -> Option<Profile> {
    let plain = |name: &str| name.split('\'').next().unwrap_or(name).to_string();
    let (mut caller, mut callee) = (String::new(), String::new());
    let (mut total, mut call_cost_next) = (None, false);
    let mut arcs: Vec<(String, String, u64)> = Vec::new();
    let mut own: BTreeMap<String, u64> = BTreeMap::new();
    for line in text.lines() {
        if call_cost_next {
            // The line after `calls=` is the call's position and inclusive cost.
            call_cost_next = false;
            let cost: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            arcs.push((caller.clone(), callee.clone(), cost));
        } else if line.starts_with(|c: char| c.is_ascii_digit() || "+-*".contains(c)) {
            // A cost line of the function itself: position, then instructions.
            let cost: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            *own.entry(caller.clone()).or_default() += cost;
        } else if let Some(name) = line.strip_prefix("fn=") {
            caller = plain(name);
        } else if let Some(name) = line.strip_prefix("cfn=") {
            callee = plain(name);
        } else if line.starts_with("calls=") {
            call_cost_next = true;
        } else if let Some(rest) = line.strip_prefix("summary:") {
            total = rest.split_whitespace().next()?.parse().ok();
        }
    }
    // Everything the collector calls, directly or not.
    let mut inside: BTreeSet<&str> = GC_FUNCTIONS.iter().copied().collect();
    loop {
        let before = inside.len();
        for (from, to, _) in &arcs {
            if inside.contains(from.as_str()) {
                inside.insert(to.as_str());
            }
        }
        if inside.len() == before {
            break;
        }
    }
    let gc = arcs
        .iter()
        .filter(|(from, to, _)| {
            GC_FUNCTIONS.contains(&to.as_str()) && !inside.contains(from.as_str())
        })
        .map(|(_, _, cost)| cost)
        .sum();
    // A function both sides call (`memcpy`: a string's copy, and the compactor's) keeps the
    // mutator's share: its self cost less what the collector's calls into it cost.
    for (from, to, cost) in &arcs {
        if inside.contains(from.as_str()) && !GC_FUNCTIONS.contains(&to.as_str()) {
            if let Some(own) = own.get_mut(to) {
                *own = own.saturating_sub(*cost);
            }
        }
    }
    own.retain(|name, cost| !GC_FUNCTIONS.contains(&name.as_str()) && *cost > 0);
    Some(Profile {
        total: total?,
        gc,
        functions: own,
    })
}

/// One valgrind process serving a binary's requests, with its numbered dumps.
struct Session<'a> {
    binary: &'a Path,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    out_file: PathBuf,
    log: PathBuf,
    dumps: usize,
}

impl Session<'_> {
    fn fail(&mut self, message: String) -> InstructionError {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(4).collect();
        run_error(self.binary)(format!("{message}\n{}", tail.join("\n")))
    }

    /// Sends one request and reads its reply (an `error` reply is a failure of the point).
    fn ask(&mut self, request: Request) -> Result<Reply, InstructionError> {
        if let Err(e) = writeln!(self.stdin, "{request}").and_then(|_| self.stdin.flush()) {
            return Err(self.fail(format!("writing `{request}` to the driver: {e}")));
        }
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) | Err(_) => return Err(self.fail(format!("no reply to `{request}`"))),
            Ok(_) => {}
        }
        match parse_reply(line.trim_end()) {
            Ok(Reply::Error { kind, message }) => Err(self.fail(format!(
                "the driver under valgrind answered `{request}` with {kind}: {message}"
            ))),
            Ok(reply) => Ok(reply),
            Err(e) => Err(self.fail(format!("reply to `{request}`: {e}"))),
        }
    }

    /// Runs a batch; returns the number of its dump. The dump is written as the batch
    /// returns, after its reply, so it is complete only once a later request is answered.
    fn batch(&mut self, runs: u64) -> Result<usize, InstructionError> {
        match self.ask(Request::Batch(runs))? {
            Reply::Sample(_) => {
                self.dumps += 1;
                Ok(self.dumps)
            }
            other => Err(self.fail(format!("unexpected reply to a batch: {other:?}"))),
        }
    }

    fn profile(&mut self, dump: usize) -> Result<Profile, InstructionError> {
        let path = PathBuf::from(format!("{}.{dump}", self.out_file.display()));
        let text = std::fs::read_to_string(&path)
            .map_err(|e| run_error(self.binary)(format!("{}: {e}", path.display())))?;
        parse_profile(&text)
            .ok_or_else(|| run_error(self.binary)(format!("{}: not a profile", path.display())))
    }
}

/// The batch size for a run of `probe` instructions: the power of two whose runs execute about
/// [`TARGET_INSTRUCTIONS`]. A power of two so that a run whose count moves by a few
/// instructions keeps its batch; from an instruction count, never a timing, so that two runs
/// of the suite choose the same batches.
pub fn runs_for(probe: u64) -> u64 {
    TARGET_INSTRUCTIONS
        .div_ceil(probe.max(1))
        .next_power_of_two()
        .clamp(1, MAX_RUNS)
}

/// Counts, in one valgrind process, each `(size, runs)` of `plan`; `runs` is chosen by
/// [`runs_for`] when `None`. Callgrind collects only inside the program's `run`
/// (`--toggle-collect`), so neither start-up, the input, nor the driver's own clock reads and
/// replies are counted, and writes one profile as each batch returns (`--dump-after`). Per
/// size the session is `size N`; `batch 1` (a probe: the first run, with whatever it does
/// once, and the count `K` is chosen from); `batch 0` (so that the probe's dump is complete);
/// `batch K`; `batch 2K`. Instructions per run is the slope between the last two, without the
/// collections' instructions (see [`PointCount`]).
pub fn count_batches(
    valgrind: &Valgrind,
    binary: &Path,
    plan: &[(u64, Option<u64>)],
) -> Result<Vec<PointCount>, InstructionError> {
    let (mut session, run, _out_dir) = Session::start(valgrind, binary)?;
    let mut pending = Vec::with_capacity(plan.len());
    for &(size, runs) in plan {
        let (runs, probe, low, high) = session.point(size, runs, &run)?;
        pending.push((runs, probe, low, high));
    }
    let _ = session.ask(Request::Quit);
    let _ = session.child.wait();
    pending
        .into_iter()
        .map(|(runs, probe, low, high)| {
            let (low, high) = (session.profile(low)?, session.profile(high)?);
            Ok(PointCount {
                runs_low: runs,
                runs_high: 2 * runs,
                total_low: low.total,
                total_high: high.total,
                gc_low: low.gc,
                gc_high: high.gc,
                probe: probe.total - probe.gc,
            })
        })
        .collect()
}

/// Instructions per run of each function of `binary` at `size`, outside the collector, by
/// symbol: the self costs of the same two batches as [`count_batches`], their difference over
/// the runs between them. Symbols of the program and the Stdlib keep their stamps
/// (`camlBench_program__loop_81`); the runtime's C functions and the generated `caml_applyN`
/// and `caml_curryN` appear under their own names.
pub fn count_functions(
    valgrind: &Valgrind,
    binary: &Path,
    size: u64,
) -> Result<BTreeMap<String, f64>, InstructionError> {
    let (mut session, run, _out_dir) = Session::start(valgrind, binary)?;
    let (runs, _, low, high) = session.point(size, None, &run)?;
    let _ = session.ask(Request::Quit);
    let _ = session.child.wait();
    let (low, high) = (session.profile(low)?, session.profile(high)?);
    let own = |profile: &Profile, name: &str| profile.functions.get(name).copied().unwrap_or(0);
    let names: BTreeSet<&String> = high.functions.keys().chain(low.functions.keys()).collect();
    let per_run: BTreeMap<String, f64> = names
        .into_iter()
        .map(|name| {
            let difference = own(&high, name) as f64 - own(&low, name) as f64;
            (name.clone(), difference / runs as f64)
        })
        .filter(|(_, n)| n.abs() >= 0.5 / runs as f64)
        .collect();
    Ok(per_run)
}

impl<'a> Session<'a> {
    /// valgrind started on `binary`, its driver ready; with the symbol of the program's `run`
    /// and the directory of the dumps (kept while the session is).
    fn start(
        valgrind: &Valgrind,
        binary: &'a Path,
    ) -> Result<(Session<'a>, String, tempfile::TempDir), InstructionError> {
        let error = run_error(binary);
        let batch = batch_symbol(binary)?;
        let run = symbol(binary, RUN_SYMBOL).map_err(|e| {
            error(format!(
                "{e}: `run` must be a function of its own (`let run x = …`) to be counted"
            ))
        })?;
        let out_dir =
            tempfile::tempdir().map_err(|e| error(format!("temporary directory: {e}")))?;
        let out_file = out_dir.path().join("callgrind.out");
        let log = out_dir.path().join("valgrind.log");
        let mut child = Command::new(&valgrind.path)
            // valgrind gives the program a main stack of its own, of this size whatever the
            // limit: the stack the measured binaries get.
            .arg(format!(
                "--main-stacksize={}",
                ocaml_runtime::NATIVE_STACK_BYTES
            ))
            .args([
                "--tool=callgrind",
                "--collect-atstart=no",
                &format!("--toggle-collect={run}"),
                &format!("--dump-after={batch}"),
                "--compress-strings=no",
                "--compress-pos=no",
            ])
            .arg(format!("--callgrind-out-file={}", out_file.display()))
            .arg(format!("--log-file={}", log.display()))
            .arg(binary)
            // Resolve every dynamic symbol at start-up: a lazy binding inside a run would be
            // counted in the first batch that calls the function, not in every run.
            .env("LD_BIND_NOW", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| error(format!("cannot start valgrind: {e}")))?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let mut session = Session {
            binary,
            child,
            stdin,
            stdout,
            out_file,
            log,
            dumps: 0,
        };
        let mut hello = String::new();
        if session.stdout.read_line(&mut hello).unwrap_or(0) == 0 {
            return Err(session.fail("the driver under valgrind did not start".into()));
        }
        Ok((session, run, out_dir))
    }

    /// One size: `size N`, the probe, then the two batches; returns the runs of the lower
    /// batch, the probe's profile and the numbers of the two batches' dumps.
    fn point(
        &mut self,
        size: u64,
        runs: Option<u64>,
        run: &str,
    ) -> Result<(u64, Profile, usize, usize), InstructionError> {
        match self.ask(Request::Size(size))? {
            Reply::Ready { .. } => {}
            other => return Err(self.fail(format!("unexpected reply to a size: {other:?}"))),
        }
        let probe_dump = self.batch(1)?;
        self.batch(0)?;
        let probe = self.profile(probe_dump)?;
        if probe.total == 0 {
            return Err(self.fail(format!(
                "no instruction counted inside {run}: is `run` inlined or recursive?"
            )));
        }
        let runs = runs.unwrap_or_else(|| runs_for(probe.total - probe.gc));
        let low = self.batch(runs)?;
        let high = self.batch(2 * runs)?;
        Ok((runs, probe, low, high))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_total_and_the_collections_of_a_callgrind_profile() {
        // As callgrind writes it: a recursive `build` calls the collector from its second
        // level; the collector's calls between members, direct or through a helper, are
        // inside the outer call and not counted again.
        let profile = "\
events: Ir
summary: 1000

fn=camlBench_program__build_81'2
0 600
cfn=caml_call_gc
calls=2 0
0 300
cfn=camlBench_program__build_81'2
calls=9 0
0 99999

fn=caml_call_gc
0 10
cfn=caml_garbage_collection
calls=2 0
0 290

fn=caml_major_collection_slice
cfn=caml_compact_heap_maybe
calls=1 0
0 80

fn=caml_compact_heap_maybe
cfn=caml_empty_minor_heap'2
calls=1 0
0 70
cfn=memcpy
calls=1 0
0 5

fn=memcpy
0 45
totals: 1000
";
        // `build` copies 40 instructions' worth with memcpy, the compactor 5: memcpy's self
        // cost is both.
        let profile = profile.replace(
            "calls=9 0\n0 99999\n",
            "calls=9 0\n0 99999\ncfn=memcpy\ncalls=1 0\n0 40\n",
        );
        assert_eq!(
            parse_profile(&profile),
            Some(Profile {
                total: 1000,
                gc: 300,
                // The collector's own instructions are its share, not a function's; of
                // memcpy's, the mutator's 40.
                functions: [
                    ("camlBench_program__build_81".to_string(), 600),
                    ("memcpy".to_string(), 40)
                ]
                .into(),
            })
        );
        assert_eq!(parse_profile("events: Ir\n"), None);
    }

    #[test]
    fn batches_grow_with_cheaper_runs_in_powers_of_two() {
        assert_eq!(runs_for(TARGET_INSTRUCTIONS * 3), 1);
        assert_eq!(runs_for(TARGET_INSTRUCTIONS / 3), 4);
        assert_eq!(runs_for(16), 1 << 16);
        assert_eq!(runs_for(0), MAX_RUNS);
    }
}
