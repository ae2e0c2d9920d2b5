//! Measuring built binaries in rounds. Every (program, compiler, size, layout) point is
//! visited once per round for a short slice, each round in a fresh seeded random order
//! ([`crate::schedule`]), with every benchmark process kept alive between its visits; the
//! canary is read about once a second in between ([`crate::canary`]). Every batch goes to
//! `samples.jsonl` as it arrives and every completed visit to `visits.jsonl`, so a resumed
//! run re-measures only the visits that never completed. A program whose binary fails is
//! dropped from the rest of the run and reported; the others are still estimated.

use crate::bench::{io_err, write_estimates, BenchOutcome};
use crate::canary::CanaryTimeline;
use crate::catch_up::points_needing_visits_in_round;
use crate::error::BenchError;
use crate::estimate::{combine_layouts, layout_estimate, LayoutEstimate};
use crate::lock::MeasurementLock;
use crate::machine::RunInfo;
use crate::plan::BenchPlan;
use crate::progress::Progress;
use crate::robust::VisitData;
use crate::samples::{
    CanaryLog, PointKey, SampleLog, VisitLog, CANARY_FILE, SAMPLES_FILE, VISITS_FILE,
};
use crate::schedule::{round_order, stable_seed, visit_order, Visit};
use crate::visiting::{Measured, Slot, VisitSession};
use ocaml_runtime::BuiltBinary;
use rundir::RunDir;
use std::collections::BTreeMap;
use std::path::Path;

fn write_run_info(path: &Path, info: &RunInfo) -> Result<(), BenchError> {
    rundir::write_json(path, info).map_err(|e| {
        BenchError::Io(crate::samples::SampleIoError {
            path: path.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })
    })
}

/// What earlier sessions of the same run left on disk.
fn load_saved(out_dir: &Path) -> Result<Measured, BenchError> {
    let mut saved = Measured::default();
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
    saved.completed = saved
        .visits
        .iter()
        .map(|v| (v.key.clone(), v.round))
        .collect();
    saved.digests = saved
        .visits
        .iter()
        .filter_map(|v| Some((v.key.clone(), v.digest.clone()?)))
        .collect();
    Ok(saved)
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

/// The layouts program `p` is measured in: those every compiler built, at most the plan's.
fn layouts_built(plan: &BenchPlan, binaries: &[Vec<Vec<BuiltBinary>>], p: usize) -> u32 {
    binaries
        .iter()
        .map(|per_program| per_program.get(p).map_or(0, Vec::len) as u32)
        .min()
        .unwrap_or(0)
        .min(plan.layouts)
}

/// The run's canary readings, judged against the plan's reference level if it has one.
fn timeline(plan: &BenchPlan, measured: &Measured) -> Option<CanaryTimeline> {
    CanaryTimeline::new(measured.canary.clone()).map(|t| t.with_reference(plan.canary_reference))
}

/// Measures `binaries[c][p][layout]` (as built for `plan`) at every size of every program:
/// the planned rounds, then catch-up rounds ([`crate::catch_up`]) for the points the canary
/// saw disturbed too often. A program is measured in the layouts it was built in, at most the
/// plan's: a suite builds its controls, which are validated rather than fitted, in fewer.
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
    let mut measured = if resume {
        load_saved(&plan.out_dir)?
    } else {
        Measured::default()
    };
    let info_path = run_dir.run_file();
    let mut info = match rundir::read_optional::<RunInfo>(&info_path) {
        Ok(Some(info)) if resume => info,
        _ => RunInfo::new(plan),
    };
    write_run_info(&info_path, &info)?;
    let samples_path = run_dir.samples_file();
    let estimates_path = run_dir.estimates_file();
    let _lock = MeasurementLock::acquire(|| {
        progress.stage("waiting for another mlcost measurement on this machine to finish")
    })
    .map_err(io_err(Path::new("measurement lock")))?;
    raise_open_file_limit();

    let mut slots: BTreeMap<PointKey, Slot> = BTreeMap::new();
    let mut points: Vec<PointKey> = Vec::new();
    for (p, program) in plan.programs.iter().enumerate() {
        let program_layouts = layouts_built(plan, binaries, p);
        for &size in &program.sizes {
            for (c, setup) in plan.compilers.iter().enumerate() {
                for layout in 0..program_layouts {
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
    let mut total = order.len();
    let mut done = order
        .iter()
        .filter(|v| measured.has_visit(&v.key, v.round))
        .count();
    let todo: Vec<Visit> = order
        .into_iter()
        .filter(|v| !measured.has_visit(&v.key, v.round))
        .collect();

    // Started at the first visit to take: a resumed run with nothing left starts no process.
    let mut session: Option<VisitSession> = None;
    let mut take_all = |visits: &[Visit],
                        measured: &mut Measured,
                        info: &mut RunInfo,
                        done: &mut usize,
                        total: usize,
                        progress: &mut dyn Progress|
     -> Result<(), BenchError> {
        if visits.is_empty() {
            return Ok(());
        }
        if session.is_none() {
            progress.stage(if info.fixed_addresses {
                "measure"
            } else {
                "measure (address randomisation could not be turned off here, as a container's \
                 seccomp profile may forbid: estimates will vary more between runs)"
            });
            session = Some(VisitSession::start(plan, binaries, &slots, measured)?);
        }
        let session = session.as_mut().expect("started above");
        let mut current_round = visits[0].round;
        for visit in visits {
            if visit.round != current_round {
                progress.round_finished(current_round, rounds);
                current_round = visit.round;
            }
            if !measured.failed_programs.contains(&visit.key.benchmark) {
                session.take(visit, info, measured, progress)?;
            }
            *done += 1;
            progress.point_finished(*done, total);
        }
        progress.round_finished(current_round, rounds);
        Ok(())
    };
    take_all(&todo, &mut measured, &mut info, &mut done, total, progress)?;

    // Catch-up rounds, numbered after the planned ones; a resumed run decides each begun round
    // again from what was on disk when the run began it, and skips the visits already taken.
    for round in rounds..rounds + plan.sampling.catch_up_rounds {
        let live: Vec<PointKey> = points
            .iter()
            .filter(|k| !measured.failed_programs.contains(&k.benchmark))
            .cloned()
            .collect();
        let needing = points_needing_visits_in_round(
            &live,
            &measured.visits,
            &measured.canary,
            plan.canary_reference,
            rounds,
            round,
        );
        if needing.is_empty() {
            break;
        }
        let visits: Vec<Visit> = round_order(&needing, round, plan.sampling.seed)
            .into_iter()
            .filter(|v| !measured.has_visit(&v.key, v.round))
            .collect();
        if round == rounds {
            progress.stage(&format!(
                "catch-up: {} points were measured mostly while the machine was disturbed",
                needing.len()
            ));
        }
        total += visits.len();
        take_all(
            &visits,
            &mut measured,
            &mut info,
            &mut done,
            total,
            progress,
        )?;
    }
    if session.is_some_and(|s| s.info_changed) {
        write_run_info(&info_path, &info)?;
    }

    let timeline = timeline(plan, &measured);
    let Measured {
        samples,
        visits,
        digests,
        mut failures,
        failed_programs,
        ..
    } = measured;
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
    for (p, program) in plan.programs.iter().enumerate() {
        if failed_programs.contains(&program.name) {
            continue;
        }
        let program_layouts = layouts_built(plan, binaries, p);
        'size: for &size in &program.sizes {
            for setup in &plan.compilers {
                let compiler = &setup.compiler.name;
                let mut layouts: Vec<LayoutEstimate> = Vec::new();
                let mut layout_digests: Vec<String> = Vec::new();
                for layout in 0..program_layouts {
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
