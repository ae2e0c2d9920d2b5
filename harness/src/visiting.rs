//! Taking visits: the benchmark processes kept alive between visits, the canary read about
//! once a second in between, and the logs every batch and every completed visit go to as they
//! arrive. [`crate::measure`] decides which visits to take; a [`VisitSession`] takes them.

use crate::canary::Canary;
use crate::error::BenchError;
use crate::machine::RunInfo;
use crate::plan::BenchPlan;
use crate::progress::Progress;
use crate::samples::{
    CanaryLog, CanaryRecord, PointKey, SampleLog, SampleRecord, VisitLog, VisitRecord,
};
use crate::sampling::{sample_visit, Driver, SamplingError};
use crate::schedule::{now_ms, Visit};
use ocaml_runtime::{BatchSample, BuiltBinary, DriverProcess, Placement};
use std::collections::{BTreeMap, BTreeSet};

/// Where a point's binary is: `binaries[compiler][program][layout]`.
#[derive(Debug, Clone, Copy)]
pub struct Slot {
    pub compiler: usize,
    pub program: usize,
    pub layout: usize,
}

/// Everything measured so far, this session's and what earlier sessions left on disk.
#[derive(Default)]
pub struct Measured {
    pub samples: BTreeMap<(PointKey, u32), Vec<BatchSample>>,
    pub visits: Vec<VisitRecord>,
    /// The (point, round) of every completed visit.
    pub completed: BTreeSet<(PointKey, u32)>,
    pub canary: Vec<CanaryRecord>,
    pub digests: BTreeMap<PointKey, String>,
    pub failures: Vec<BenchError>,
    pub failed_programs: BTreeSet<String>,
}

impl Measured {
    /// Whether a visit of `key` in `round` has completed.
    pub fn has_visit(&self, key: &PointKey, round: u32) -> bool {
        self.completed.contains(&(key.clone(), round))
    }
}

/// The logs a session appends to, in the plan's output directory.
struct Logs {
    samples: SampleLog,
    visits: VisitLog,
    canary: CanaryLog,
}

/// A measuring session: one canary, the live benchmark processes, the logs.
pub struct VisitSession<'a> {
    plan: &'a BenchPlan,
    binaries: &'a [Vec<Vec<BuiltBinary>>],
    slots: &'a BTreeMap<PointKey, Slot>,
    logs: Logs,
    canary: Canary,
    drivers: BTreeMap<(usize, usize, usize), Driver>,
    sequence: u64,
    /// Set when a driver reported the minor heap size `run.json` did not hold yet.
    pub info_changed: bool,
}

impl Drop for VisitSession<'_> {
    fn drop(&mut self) {
        // All processes asked first, then each reaped as the map drops.
        for driver in self.drivers.values_mut() {
            driver.process.ask_to_quit();
        }
    }
}

impl<'a> VisitSession<'a> {
    pub fn start(
        plan: &'a BenchPlan,
        binaries: &'a [Vec<Vec<BuiltBinary>>],
        slots: &'a BTreeMap<PointKey, Slot>,
        measured: &Measured,
    ) -> Result<VisitSession<'a>, BenchError> {
        let run_dir = rundir::RunDir::new(&plan.out_dir);
        let logs = Logs {
            samples: SampleLog::open(&run_dir.samples_file())?,
            visits: VisitLog::open(&run_dir.visits_file())?,
            canary: CanaryLog::open(&run_dir.canary_file())?,
        };
        Ok(VisitSession {
            plan,
            binaries,
            slots,
            logs,
            canary: Canary::start(plan)?,
            drivers: BTreeMap::new(),
            sequence: measured
                .visits
                .iter()
                .map(|v| v.sequence + 1)
                .max()
                .unwrap_or(0),
            info_changed: false,
        })
    }

    /// Takes one visit (after a canary reading when one is due) and records it in
    /// `measured`. A binary that fails is recorded as the program's failure and its processes
    /// dropped; only a failure to write the logs stops the run.
    pub fn take(
        &mut self,
        visit: &Visit,
        info: &mut RunInfo,
        measured: &mut Measured,
        progress: &mut dyn Progress,
    ) -> Result<(), BenchError> {
        if self.canary.due() {
            let reading = self.canary.read().map_err(|source| BenchError::Measure {
                benchmark: "mlcost canary".into(),
                compiler: self.plan.compilers[0].compiler.name.clone(),
                size: 0,
                layout: 0,
                source,
            })?;
            self.logs.canary.append(&reading)?;
            measured.canary.push(reading);
        }
        let key = &visit.key;
        let slot = self.slots[key];
        progress.point_started(&key.benchmark, &key.compiler, key.size, key.layout);
        let binary = &self.binaries[slot.compiler][slot.program][slot.layout];
        let start_ms = now_ms();
        let mut taken: Vec<BatchSample> = Vec::new();
        let samples_log = &mut self.logs.samples;
        let mut sink = |sample: &BatchSample| {
            taken.push(*sample);
            samples_log.append(&SampleRecord {
                benchmark: key.benchmark.clone(),
                compiler: key.compiler.clone(),
                size: key.size,
                layout: key.layout,
                round: visit.round,
                sample: *sample,
            })
        };
        let (plan, info_changed) = (self.plan, &mut self.info_changed);
        let outcome = match self
            .drivers
            .entry((slot.compiler, slot.program, slot.layout))
        {
            std::collections::btree_map::Entry::Occupied(e) => Ok(e.into_mut()),
            std::collections::btree_map::Entry::Vacant(e) => {
                let layouts = self.binaries[slot.compiler][slot.program].len() as u32;
                let placement = Placement::for_layout(&key.benchmark, slot.layout as u32, layouts);
                DriverProcess::spawn(
                    &binary.path,
                    plan.cpu,
                    placement,
                    plan.sampling.reply_timeout,
                )
                .map(Driver::from)
                .map(|d| {
                    let record = &mut info.compilers[slot.compiler];
                    if record.minor_heap_words.is_none() {
                        record.minor_heap_words = Some(d.process.hello.minor_heap_words);
                        *info_changed = true;
                    }
                    e.insert(d)
                })
            }
        }
        .map_err(SamplingError::Driver)
        .and_then(|driver| {
            sample_visit(
                driver,
                key.size,
                plan.sampling.slice(),
                &plan.sampling,
                !measured.digests.contains_key(key),
                &mut sink,
            )
        });
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(SamplingError::Sink(e)) => return Err(e.into()),
            Err(SamplingError::Driver(fault)) => {
                // A faulted process may be dead or confused: never reuse it, and measure
                // nothing more of this program.
                self.drivers.retain(|&(_, p, _), _| p != slot.program);
                measured.failed_programs.insert(key.benchmark.clone());
                measured.failures.push(BenchError::Measure {
                    benchmark: key.benchmark.clone(),
                    compiler: key.compiler.clone(),
                    size: key.size,
                    layout: key.layout,
                    source: fault,
                });
                return Ok(());
            }
        };
        if let Some(digest) = &outcome.digest {
            measured.digests.insert(key.clone(), digest.clone());
        }
        let record = VisitRecord {
            key: key.clone(),
            round: visit.round,
            sequence: self.sequence,
            start_ms,
            end_ms: now_ms(),
            digest: outcome.digest,
            input_ns: outcome.input_ns,
            samples: outcome.samples.len(),
        };
        self.sequence += 1;
        self.logs.visits.append(&record)?;
        measured.completed.insert((key.clone(), visit.round));
        measured.visits.push(record);
        // A resumed visit starts afresh: batches an interrupted session took are ignored.
        measured.samples.insert((key.clone(), visit.round), taken);
        Ok(())
    }
}
