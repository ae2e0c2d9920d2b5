//! Measuring built binaries: each (program, size) for each compiler and layout in turn —
//! compilers interleaved per point (A, B, A, B …) so that machine drift hits them alike —
//! appending every sample to `samples.jsonl`, marking each finished point in `points.jsonl`,
//! and rewriting `estimates.json` after each program. With `resume`, points already finished
//! are estimated from their saved samples and not measured again.

use crate::bench::{io_err, seed, write_estimates, BenchError, BenchOutcome, BenchPlan, Progress};
use crate::estimate::{combine_layouts, layout_estimate, LayoutEstimate};
use crate::lock::MeasurementLock;
use crate::machine::RunInfo;
use crate::samples::{
    PointKey, PointLog, PointRecord, SampleLog, SampleRecord, POINTS_FILE, SAMPLES_FILE,
};
use crate::sampling::{sample_point, SamplingError};
use ocaml_runtime::process::DriverProcess;
use ocaml_runtime::{BatchSample, BuiltBinary};
use std::collections::BTreeMap;
use std::path::Path;

/// What a previous, interrupted session of the same run left on disk.
#[derive(Default)]
struct Saved {
    samples: BTreeMap<PointKey, Vec<BatchSample>>,
    finished: BTreeMap<PointKey, PointRecord>,
}

fn load_saved(out_dir: &Path) -> Result<Saved, BenchError> {
    let mut saved = Saved::default();
    let samples_path = out_dir.join(SAMPLES_FILE);
    if samples_path.exists() {
        for record in SampleLog::read_all(&samples_path)? {
            saved
                .samples
                .entry(record.key())
                .or_default()
                .push(record.sample);
        }
    }
    let points_path = out_dir.join(POINTS_FILE);
    if points_path.exists() {
        for point in PointLog::read_all(&points_path)? {
            saved.finished.insert(point.key.clone(), point);
        }
    }
    Ok(saved)
}

/// Measures `binaries[c][p][layout]` (as built for `plan`) at every size of every program.
pub fn measure_built(
    plan: &BenchPlan,
    binaries: &[Vec<Vec<BuiltBinary>>],
    resume: bool,
    progress: &mut dyn Progress,
) -> Result<BenchOutcome, BenchError> {
    std::fs::create_dir_all(&plan.out_dir).map_err(io_err(&plan.out_dir))?;
    let mut saved = if resume {
        load_saved(&plan.out_dir)?
    } else {
        Saved::default()
    };
    let info_path = plan.out_dir.join("run.json");
    if !(resume && info_path.exists()) {
        let info = serde_json::to_string_pretty(&RunInfo::new(plan)).expect("run info serialises");
        std::fs::write(&info_path, info).map_err(io_err(&info_path))?;
    }
    let samples_path = plan.out_dir.join(SAMPLES_FILE);
    let estimates_path = plan.out_dir.join("estimates.json");
    let mut log = SampleLog::open(&samples_path)?;
    let mut points = PointLog::open(&plan.out_dir.join(POINTS_FILE))?;
    let _lock = MeasurementLock::acquire(|| {
        progress.stage("waiting for another mlcost measurement on this machine to finish")
    })
    .map_err(io_err(Path::new("measurement lock")))?;
    progress.stage("measure");

    let total: usize = plan.programs.iter().map(|p| p.sizes.len()).sum::<usize>()
        * plan.compilers.len()
        * plan.layouts as usize;
    let mut done = 0;
    let mut estimates = Vec::new();
    for (p, program) in plan.programs.iter().enumerate() {
        // One process per (compiler, layout), started on first need and alive across sizes.
        let mut drivers: Vec<Vec<Option<DriverProcess>>> = plan
            .compilers
            .iter()
            .map(|_| (0..plan.layouts).map(|_| None).collect())
            .collect();
        for &size in &program.sizes {
            for (c, setup) in plan.compilers.iter().enumerate() {
                let compiler = &setup.compiler.name;
                let mut layouts: Vec<LayoutEstimate> = Vec::new();
                let mut digests: Vec<String> = Vec::new();
                for layout in 0..plan.layouts {
                    let key = PointKey {
                        benchmark: program.name.clone(),
                        compiler: compiler.clone(),
                        size,
                        layout,
                    };
                    let binary = &binaries[c][p][layout as usize];
                    let (samples, digest) = match saved.finished.remove(&key) {
                        Some(point) => {
                            (saved.samples.remove(&key).unwrap_or_default(), point.digest)
                        }
                        None => {
                            progress.point_started(&program.name, compiler, size, layout);
                            let fail = |source| BenchError::Measure {
                                benchmark: program.name.clone(),
                                compiler: compiler.clone(),
                                size,
                                layout,
                                source,
                            };
                            let slot = &mut drivers[c][layout as usize];
                            if slot.is_none() {
                                *slot = Some(
                                    DriverProcess::spawn(
                                        &binary.path,
                                        plan.cpu,
                                        plan.sampling.reply_timeout,
                                    )
                                    .map_err(fail)?,
                                );
                            }
                            let driver = slot.as_mut().expect("driver just started");
                            let mut sink = |sample: &BatchSample| {
                                log.append(&SampleRecord {
                                    benchmark: key.benchmark.clone(),
                                    compiler: key.compiler.clone(),
                                    size,
                                    layout,
                                    sample: *sample,
                                })
                            };
                            let point = match sample_point(driver, size, &plan.sampling, &mut sink)
                            {
                                Ok(point) => point,
                                Err(SamplingError::Driver(fault)) => {
                                    // A faulted driver may be dead or confused: never reuse it.
                                    *slot = None;
                                    return Err(fail(fault));
                                }
                                Err(SamplingError::Sink(e)) => return Err(e.into()),
                            };
                            // Samples an interrupted session took for this point join the new ones.
                            let mut samples = saved.samples.remove(&key).unwrap_or_default();
                            samples.extend(point.samples);
                            points.append(&PointRecord {
                                key: key.clone(),
                                digest: point.digest.clone(),
                                input_ns: point.input_ns,
                                samples: samples.len(),
                            })?;
                            (samples, point.digest)
                        }
                    };
                    let estimate = layout_estimate(
                        layout,
                        binary.layout_offset,
                        &samples,
                        seed((&program.name, compiler, size, layout)),
                    )
                    .ok_or_else(|| BenchError::TooFewSamples {
                        benchmark: program.name.clone(),
                        size,
                    })?;
                    layouts.push(estimate);
                    digests.push(digest);
                    done += 1;
                    progress.point_finished(done, total);
                }
                if digests.iter().any(|d| d != &digests[0]) {
                    return Err(BenchError::DigestMismatch {
                        benchmark: program.name.clone(),
                        size,
                        digests,
                    });
                }
                let estimate = combine_layouts(
                    &program.name,
                    compiler,
                    size,
                    digests.swap_remove(0),
                    layouts,
                    seed((&program.name, compiler, size)),
                );
                progress.estimate(&estimate);
                estimates.push(estimate);
            }
        }
        write_estimates(&estimates_path, &estimates)?;
    }
    Ok(BenchOutcome {
        estimates,
        samples_path,
        estimates_path,
    })
}
