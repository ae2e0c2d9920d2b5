//! Measuring built binaries in rounds. Every (program, compiler, size, layout) point is
//! visited once per round for a short slice, each round in a fresh seeded random order
//! ([`crate::schedule`]), with every benchmark process kept alive between its visits; the
//! canary is read about once a second in between ([`crate::canary`]). Every batch goes to
//! `samples.jsonl` as it arrives and every completed visit to `visits.jsonl`, so a resumed
//! run re-measures only the visits that never completed. A program whose binary fails is
//! dropped from the rest of the run and reported; the others are still estimated.

use crate::bench::{io_err, write_estimates, BenchOutcome};
use crate::canary::{Canary, CanaryTimeline};
use crate::error::BenchError;
use crate::estimate::{combine_layouts, layout_estimate, LayoutEstimate};
use crate::lock::MeasurementLock;
use crate::machine::RunInfo;
use crate::plan::BenchPlan;
use crate::progress::Progress;
use crate::robust::VisitData;
use crate::samples::{
    CanaryLog, PointKey, SampleLog, SampleRecord, VisitLog, VisitRecord, CANARY_FILE, SAMPLES_FILE,
    VISITS_FILE,
};
use crate::sampling::{sample_visit, Driver, SamplingError};
use crate::schedule::{now_ms, stable_seed, visit_order};
use ocaml_runtime::{BatchSample, BuiltBinary};
use rundir::RunDir;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What earlier sessions of the same run left on disk.
#[derive(Default)]
struct Saved {
    samples: BTreeMap<(PointKey, u32), Vec<BatchSample>>,
    visits: Vec<VisitRecord>,
    canary: Vec<crate::samples::CanaryRecord>,
}

fn write_run_info(path: &Path, info: &RunInfo) -> Result<(), BenchError> {
    rundir::write_json(path, info).map_err(|e| {
        BenchError::Io(crate::samples::SampleIoError {
            path: path.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })
    })
}

fn load_saved(out_dir: &Path) -> Result<Saved, BenchError> {
    let mut saved = Saved::default();
    let samples_path = out_dir.join(SAMPLES_FILE);
    if samples_path.exists() {
        for record in SampleLog::read_all(&samples_path)? {
            saved
                .samples
                .entry((record.key(), record.round))
                .or_default()
                .push(record.sample);
        }
    }
    let visits_path = out_dir.join(VISITS_FILE);
    if visits_path.exists() {
        saved.visits = VisitLog::read_all(&visits_path)?;
    }
    let canary_path = out_dir.join(CANARY_FILE);
    if canary_path.exists() {
        saved.canary = CanaryLog::read_all(&canary_path)?;
    }
    Ok(saved)
}

/// Where a point's binary is: `binaries[compiler][program][layout]`.
#[derive(Debug, Clone, Copy)]
struct Slot {
    compiler: usize,
    program: usize,
    layout: usize,
}

/// Many benchmark processes stay alive at once, three pipes each: lift the soft limit on
/// open files to the hard one.
fn raise_open_file_limit() {
    // SAFETY: getrlimit/setrlimit on a struct we own.
    unsafe {
        let mut limit: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

/// Measures `binaries[c][p][layout]` (as built for `plan`) at every size of every program.
pub fn measure_built(
    plan: &BenchPlan,
    binaries: &[Vec<Vec<BuiltBinary>>],
    resume: bool,
    progress: &mut dyn Progress,
) -> Result<BenchOutcome, BenchError> {
    std::fs::create_dir_all(&plan.out_dir).map_err(io_err(&plan.out_dir))?;
    let run_dir = RunDir::new(&plan.out_dir);
    if !resume && run_dir.samples_file().exists() {
        return Err(BenchError::AlreadyMeasured(run_dir.path().to_path_buf()));
    }
    let saved = if resume {
        load_saved(&plan.out_dir)?
    } else {
        Saved::default()
    };
    let info_path = run_dir.run_file();
    let mut info = match rundir::read_optional::<RunInfo>(&info_path) {
        Ok(Some(info)) if resume => info,
        _ => RunInfo::new(plan),
    };
    write_run_info(&info_path, &info)?;
    let samples_path = run_dir.samples_file();
    let estimates_path = run_dir.estimates_file();
    let mut log = SampleLog::open(&samples_path)?;
    let mut visit_log = VisitLog::open(&run_dir.visits_file())?;
    let mut canary_log = CanaryLog::open(&run_dir.canary_file())?;
    let _lock = MeasurementLock::acquire(|| {
        progress.stage("waiting for another mlcost measurement on this machine to finish")
    })
    .map_err(io_err(Path::new("measurement lock")))?;
    raise_open_file_limit();

    let mut slots: BTreeMap<PointKey, Slot> = BTreeMap::new();
    let mut points: Vec<PointKey> = Vec::new();
    for (p, program) in plan.programs.iter().enumerate() {
        for &size in &program.sizes {
            for (c, setup) in plan.compilers.iter().enumerate() {
                for layout in 0..plan.layouts {
                    let key = PointKey {
                        benchmark: program.name.clone(),
                        compiler: setup.compiler.name.clone(),
                        size,
                        layout,
                    };
                    let slot = Slot {
                        compiler: c,
                        program: p,
                        layout: layout as usize,
                    };
                    slots.insert(key.clone(), slot);
                    points.push(key);
                }
            }
        }
    }
    let rounds = plan.sampling.rounds.max(1);
    let order = visit_order(&points, rounds, plan.sampling.seed);
    let completed: BTreeSet<(PointKey, u32)> = saved
        .visits
        .iter()
        .map(|v| (v.key.clone(), v.round))
        .collect();
    let mut digests: BTreeMap<PointKey, String> = saved
        .visits
        .iter()
        .filter_map(|v| Some((v.key.clone(), v.digest.clone()?)))
        .collect();
    let mut visits = saved.visits.clone();
    let mut samples = saved.samples;
    let mut canary_readings = saved.canary;
    let mut sequence = visits.iter().map(|v| v.sequence + 1).max().unwrap_or(0);
    let total = order.len();
    let mut done = order
        .iter()
        .filter(|v| completed.contains(&(v.key.clone(), v.round)))
        .count();
    let todo: Vec<_> = order
        .into_iter()
        .filter(|v| !completed.contains(&(v.key.clone(), v.round)))
        .collect();

    let mut failures: Vec<BenchError> = Vec::new();
    let mut failed_programs: BTreeSet<String> = BTreeSet::new();
    if !todo.is_empty() {
        progress.stage("measure");
        let mut canary = Canary::start(plan)?;
        let mut drivers: BTreeMap<(usize, usize, usize), Driver> = BTreeMap::new();
        let mut current_round = todo[0].round;
        let mut heap_recorded = false;
        for visit in &todo {
            if failed_programs.contains(&visit.key.benchmark) {
                done += 1;
                continue;
            }
            if visit.round != current_round {
                progress.round_finished(current_round, rounds);
                current_round = visit.round;
            }
            if canary.due() {
                let reading = canary.read().map_err(|source| BenchError::Measure {
                    benchmark: "mlcost canary".into(),
                    compiler: plan.compilers[0].compiler.name.clone(),
                    size: 0,
                    layout: 0,
                    source,
                })?;
                canary_log.append(&reading)?;
                canary_readings.push(reading);
            }
            let key = &visit.key;
            let slot = slots[key];
            progress.point_started(&key.benchmark, &key.compiler, key.size, key.layout);
            let fail = |source| BenchError::Measure {
                benchmark: key.benchmark.clone(),
                compiler: key.compiler.clone(),
                size: key.size,
                layout: key.layout,
                source,
            };
            let binary = &binaries[slot.compiler][slot.program][slot.layout];
            let start_ms = now_ms();
            let mut taken: Vec<BatchSample> = Vec::new();
            let mut sink = |sample: &BatchSample| {
                taken.push(*sample);
                log.append(&SampleRecord {
                    benchmark: key.benchmark.clone(),
                    compiler: key.compiler.clone(),
                    size: key.size,
                    layout: key.layout,
                    round: visit.round,
                    sample: *sample,
                })
            };
            let driver_key = (slot.compiler, slot.program, slot.layout);
            let outcome = match drivers.entry(driver_key) {
                std::collections::btree_map::Entry::Occupied(e) => Ok(e.into_mut()),
                std::collections::btree_map::Entry::Vacant(e) => {
                    Driver::spawn(&binary.path, plan.cpu, plan.sampling.reply_timeout).map(|d| {
                        let record = &mut info.compilers[slot.compiler];
                        if record.minor_heap_words.is_none() {
                            record.minor_heap_words = Some(d.process.hello.minor_heap_words);
                            heap_recorded = true;
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
                    !digests.contains_key(key),
                    &mut sink,
                )
            });
            let outcome = match outcome {
                Ok(outcome) => outcome,
                Err(SamplingError::Sink(e)) => return Err(e.into()),
                Err(SamplingError::Driver(fault)) => {
                    // A faulted process may be dead or confused: never reuse it, and measure
                    // nothing more of this program.
                    drivers.retain(|&(_, p, _), _| p != slot.program);
                    failed_programs.insert(key.benchmark.clone());
                    failures.push(fail(fault));
                    done += 1;
                    continue;
                }
            };
            if let Some(digest) = &outcome.digest {
                digests.insert(key.clone(), digest.clone());
            }
            let record = VisitRecord {
                key: key.clone(),
                round: visit.round,
                sequence,
                start_ms,
                end_ms: now_ms(),
                digest: outcome.digest,
                input_ns: outcome.input_ns,
                samples: outcome.samples.len(),
            };
            sequence += 1;
            visit_log.append(&record)?;
            visits.push(record);
            // A resumed visit starts afresh: batches an interrupted session took are ignored.
            samples.insert((key.clone(), visit.round), taken);
            done += 1;
            progress.point_finished(done, total);
        }
        progress.round_finished(current_round, rounds);
        if heap_recorded {
            write_run_info(&info_path, &info)?;
        }
    }

    let timeline = CanaryTimeline::new(canary_readings);
    let mut by_point: BTreeMap<PointKey, Vec<VisitData>> = BTreeMap::new();
    for v in &visits {
        let Some(batch) = samples.get(&(v.key.clone(), v.round)) else {
            continue;
        };
        by_point.entry(v.key.clone()).or_default().push(VisitData {
            round: v.round,
            samples: batch.clone(),
            slow_machine: timeline
                .as_ref()
                .is_some_and(|t| t.disturbed_during(v.start_ms, v.end_ms)),
        });
    }

    let mut estimates = Vec::new();
    for program in &plan.programs {
        if failed_programs.contains(&program.name) {
            continue;
        }
        'size: for &size in &program.sizes {
            for setup in &plan.compilers {
                let compiler = &setup.compiler.name;
                let mut layouts: Vec<LayoutEstimate> = Vec::new();
                let mut layout_digests: Vec<String> = Vec::new();
                for layout in 0..plan.layouts {
                    let key = PointKey {
                        benchmark: program.name.clone(),
                        compiler: compiler.clone(),
                        size,
                        layout,
                    };
                    let slot = slots[&key];
                    let offset = binaries[slot.compiler][slot.program][slot.layout].layout_offset;
                    let visits = by_point.get(&key).map(Vec::as_slice).unwrap_or_default();
                    let seed = stable_seed(&[
                        program.name.as_bytes(),
                        compiler.as_bytes(),
                        &size.to_le_bytes(),
                        &layout.to_le_bytes(),
                    ]);
                    let Some(estimate) = layout_estimate(layout, offset, visits, seed) else {
                        failures.push(BenchError::TooFewSamples {
                            benchmark: program.name.clone(),
                            size,
                        });
                        continue 'size;
                    };
                    layouts.push(estimate);
                    layout_digests.push(digests.get(&key).cloned().unwrap_or_default());
                }
                if layout_digests.iter().any(|d| d != &layout_digests[0]) {
                    failures.push(BenchError::DigestMismatch {
                        benchmark: program.name.clone(),
                        size,
                        digests: layout_digests,
                    });
                    continue 'size;
                }
                let seed = stable_seed(&[
                    program.name.as_bytes(),
                    compiler.as_bytes(),
                    &size.to_le_bytes(),
                ]);
                let estimate = combine_layouts(
                    &program.name,
                    compiler,
                    size,
                    layout_digests.swap_remove(0),
                    layouts,
                    seed,
                );
                progress.estimate(&estimate);
                estimates.push(estimate);
            }
        }
    }
    write_estimates(&estimates_path, &estimates)?;
    Ok(BenchOutcome {
        estimates,
        samples_path,
        estimates_path,
        canary: timeline,
        failures,
    })
}
