//! The instruction model against the control programs: each control point's instructions per
//! run, counted under valgrind, beside `Σ n_c I_c` from its interpreter counts. Instructions
//! are exact, so a control the model misses by more than [`MISCOUNT_PCT`] is not noise: the
//! interpreter counts a construct the binary does not run as counted, or the program runs
//! something no training template isolates.

use crate::recorded::{recorded_compilers, require_run_dir};
use anyhow::Result;
use fit::Method;
use instructions::InstructionSummary;
use rundir::{read_optional, write_json, RunDir};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Error beyond which a control is listed as "miscounted or unmodelled construct".
pub const MISCOUNT_PCT: f64 = 3.0;

/// Minor collections per run above which a point "collects": its instructions then include
/// promotion and major-heap work that no construct's constant carries, so its error is not
/// evidence of a miscount.
const COLLECTS: f64 = 0.01;

/// One control point: measured and predicted instructions per run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstructionPoint {
    pub program: String,
    pub size: u64,
    pub measured: f64,
    /// Minor collections happened during runs (from the control's timing estimates).
    #[serde(default)]
    pub collects: bool,
    pub predicted: BTreeMap<Method, f64>,
    /// 100 · |predicted − measured| / measured.
    pub error_pct: BTreeMap<Method, f64>,
}

/// One compiler's instruction validation (`instructions-validation-<compiler>.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstructionValidation {
    pub compiler: String,
    pub points: Vec<InstructionPoint>,
    /// Method -> mean over programs of each program's mean error, percent, at the points
    /// that do not collect.
    pub mean_error_pct: BTreeMap<Method, f64>,
    /// The same at the points that collect (promotion and major GC are not modelled).
    #[serde(default)]
    pub mean_error_pct_collecting: BTreeMap<Method, f64>,
    /// Programs with a point that does not collect missed by more than [`MISCOUNT_PCT`] by
    /// every method: a miscounted or unmodelled construct.
    pub miscounted: Vec<String>,
    /// Where each miscounted program's miss lies: at its worst point, the function whose
    /// measured and predicted instructions part most ([`crate::explain`]).
    #[serde(default)]
    pub located: Vec<LocatedMiss>,
}

/// A miscounted control's largest miss by function, at its worst point (NNLS constants).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LocatedMiss {
    pub program: String,
    pub size: u64,
    /// The point's error, signed: predicted over measured, less one, in percent.
    pub error_pct: f64,
    /// The function and its figures; its constructs by predicted instructions, largest first.
    pub at: crate::explain::FunctionRow,
}

/// Scores the points of one compiler. `counts[(program, size)]` are the interpreter's counts;
/// `collecting` the points whose runs collect.
pub fn score(
    compiler: &str,
    model: &fit::CostModel,
    measured: &[InstructionSummary],
    counts: &BTreeMap<(String, u64), BTreeMap<String, f64>>,
    collecting: &std::collections::BTreeSet<(String, u64)>,
) -> InstructionValidation {
    let mut points = Vec::new();
    for m in measured.iter().filter(|m| m.compiler == compiler) {
        let Some(c) = counts.get(&(m.program.clone(), m.size)) else {
            continue;
        };
        let predicted: BTreeMap<Method, f64> = model
            .instructions
            .keys()
            .filter_map(|&method| Some((method, model.predict_instructions(method, c)?)))
            .collect();
        let error_pct = predicted
            .iter()
            .map(|(&method, p)| {
                (
                    method,
                    100.0 * (p - m.instructions_per_run).abs() / m.instructions_per_run,
                )
            })
            .collect();
        points.push(InstructionPoint {
            program: m.program.clone(),
            size: m.size,
            measured: m.instructions_per_run,
            collects: collecting.contains(&(m.program.clone(), m.size)),
            predicted,
            error_pct,
        });
    }
    let mean = |collects: bool| -> BTreeMap<Method, f64> {
        let mut by_program: BTreeMap<&str, Vec<&InstructionPoint>> = BTreeMap::new();
        for p in points.iter().filter(|p| p.collects == collects) {
            by_program.entry(&p.program).or_default().push(p);
        }
        if by_program.is_empty() {
            return BTreeMap::new();
        }
        model
            .instructions
            .keys()
            .map(|&method| {
                let per_program: Vec<f64> = by_program
                    .values()
                    .map(|ps| {
                        ps.iter().map(|p| p.error_pct[&method]).sum::<f64>() / ps.len() as f64
                    })
                    .collect();
                (
                    method,
                    per_program.iter().sum::<f64>() / per_program.len() as f64,
                )
            })
            .collect()
    };
    let mean_error_pct = mean(false);
    let mean_error_pct_collecting = mean(true);
    let mut miscounted: Vec<String> = points
        .iter()
        .filter(|p| {
            !p.collects
                && !p.error_pct.is_empty()
                && p.error_pct.values().all(|e| *e > MISCOUNT_PCT)
        })
        .map(|p| p.program.clone())
        .collect();
    miscounted.dedup();
    InstructionValidation {
        compiler: compiler.to_string(),
        points,
        mean_error_pct,
        mean_error_pct_collecting,
        miscounted,
        located: Vec::new(),
    }
}

/// Locates each miscounted program's miss: its worst point that does not collect, explained
/// function by function (callgrind and the interpreter, two at a time, one per core), and the
/// function that misses most kept. A program that cannot be explained is left out, and said.
fn locate(
    v: &InstructionValidation,
    model: &fit::CostModel,
    controls: &Path,
    work: &RunDir,
) -> Vec<LocatedMiss> {
    let (Some(valgrind), Some(nnls)) = (
        instructions::available(),
        model.instructions.get(&Method::Nnls),
    ) else {
        return Vec::new();
    };
    let constants: BTreeMap<String, f64> = nnls
        .time_ns
        .iter()
        .map(|(c, e)| (c.clone(), e.estimate))
        .collect();
    let worst: Vec<&InstructionPoint> = v
        .miscounted
        .iter()
        .filter_map(|program| {
            v.points
                .iter()
                .filter(|p| &p.program == program && !p.collects)
                .filter(|p| p.error_pct.contains_key(&Method::Nnls))
                .max_by(|a, b| a.error_pct[&Method::Nnls].total_cmp(&b.error_pct[&Method::Nnls]))
        })
        .collect();
    let one = |p: &InstructionPoint| -> Option<LocatedMiss> {
        let source = controls.join(format!("{}.ml", p.program));
        let binary = validation::control_binary(work.as_ref(), &p.program, 0);
        match crate::explain::explain_files(&valgrind, &source, &binary, p.size, &constants) {
            Ok(rows) => Some(LocatedMiss {
                program: p.program.clone(),
                size: p.size,
                error_pct: 100.0 * (p.predicted[&Method::Nnls] / p.measured - 1.0),
                at: rows.into_iter().next()?,
            }),
            Err(e) => {
                eprintln!("mlcost: {} at {}: not located: {e:#}", p.program, p.size);
                None
            }
        }
    };
    let (first, second) = worst.split_at(worst.len() / 2);
    std::thread::scope(|s| {
        let other = s.spawn(|| second.iter().filter_map(|p| one(p)).collect::<Vec<_>>());
        let mut located: Vec<LocatedMiss> = first.iter().filter_map(|p| one(p)).collect();
        located.extend(other.join().unwrap_or_default());
        located
    })
}

/// Validates every compiler's instruction model on the built-in controls its validation
/// measured (and whose instructions were counted); writes one file per compiler. Compilers
/// without instruction model or counts are left out.
pub fn validate_instructions(
    run_dir: &Path,
    controls: Option<&Path>,
) -> Result<Vec<InstructionValidation>> {
    let run = require_run_dir(run_dir)?;
    let dir = RunDir::new(run_dir);
    let controls = match controls {
        Some(c) => c.to_path_buf(),
        None => dir.builtin_controls_dir(),
    };
    let mut out = Vec::new();
    for setup in recorded_compilers(&run) {
        let name = &setup.compiler.name;
        let Some(model) = read_optional::<fit::CostModel>(&dir.model_file(name))? else {
            continue;
        };
        let work = dir.controls_work_dir(None, name);
        let measured: Vec<InstructionSummary> =
            read_optional(&work.instructions_file())?.unwrap_or_default();
        if model.instructions.is_empty() || measured.is_empty() {
            continue;
        }
        let counts = control_counts(&controls, &measured)?;
        let estimates: Vec<harness::Estimate> =
            read_optional(&work.estimates_file())?.unwrap_or_default();
        let collecting = estimates
            .iter()
            .filter(|e| e.minor_collections_per_run > COLLECTS)
            .map(|e| (e.benchmark.clone(), e.size))
            .collect();
        let mut v = score(name, &model, &measured, &counts, &collecting);
        v.located = locate(&v, &model, &controls, &work);
        write_json(&dir.instructions_validation_file(name), &v)?;
        out.push(v);
    }
    Ok(out)
}

/// The interpreter's counts at the measured sizes of each measured control.
fn control_counts(
    controls: &Path,
    measured: &[InstructionSummary],
) -> Result<BTreeMap<(String, u64), BTreeMap<String, f64>>> {
    let (programs, _) = validation::control::discover(controls).map_err(|e| anyhow::anyhow!(e))?;
    let mut sizes: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for m in measured {
        let s = sizes.entry(&m.program).or_default();
        if !s.contains(&m.size) {
            s.push(m.size);
        }
    }
    let mut counts = BTreeMap::new();
    for p in &programs {
        let Some(s) = sizes.get(p.name.as_str()) else {
            continue;
        };
        // A control the interpreter cannot count was skipped by validation already.
        let Ok(results) = semantics::Program::count_at_sizes(&p.path, s) else {
            continue;
        };
        for r in results {
            counts.insert(
                (p.name.clone(), r.size as u64),
                r.counts.into_iter().map(|(k, v)| (k, v as f64)).collect(),
            );
        }
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fit::synthetic::{generate, SyntheticSpec};

    /// Instruction counts are exact: a suite without noise, fitted as the instruction model is.
    #[test]
    fn the_fit_recovers_exact_instruction_constants_and_flags_a_miscounted_control() {
        let suite = generate(&SyntheticSpec {
            sizes: vec![1000, 2000, 4000, 8000],
            layouts: 2,
            point_noise: 0.0,
            layout_noise: 0.0,
            ..SyntheticSpec::default()
        });
        let options = fit::FitOptions {
            bootstrap_resamples: 50,
            ..fit::FitOptions::default()
        };
        let mut model = fit::fit(&suite.observations, &suite.context, &options).unwrap();
        model.instructions = model.methods.clone();
        for (method, f) in &model.instructions {
            if *method == Method::L1 {
                continue; // exact too, but solved to the LP's tolerance
            }
            for (construct, truth) in &suite.true_ns {
                let got = f.time_ns[construct].estimate;
                assert!(
                    (got - truth).abs() <= 1e-6 * truth.max(1.0),
                    "{method:?} {construct}: {got} vs {truth}"
                );
            }
        }

        // Two control points: one the model predicts exactly, one that runs 10% more than
        // counted.
        let points = &suite.observations[..2];
        let counts: BTreeMap<(String, u64), BTreeMap<String, f64>> = points
            .iter()
            .map(|o| ((o.program.clone(), o.size), o.counts.clone()))
            .collect();
        let measured: Vec<InstructionSummary> = points
            .iter()
            .enumerate()
            .map(|(i, o)| InstructionSummary {
                program: o.program.clone(),
                compiler: "c".into(),
                size: o.size,
                instructions_per_run: o.ns_per_run * if i == 1 { 1.1 } else { 1.0 },
                layouts: BTreeMap::new(),
                gc_instructions_per_run: 0.0,
            })
            .collect();
        let v = score("c", &model, &measured, &counts, &Default::default());
        assert_eq!(v.points.len(), 2);
        assert!(v.points[0].error_pct[&Method::Ls] < 1e-6);
        assert!((v.points[1].error_pct[&Method::Ls] - 100.0 / 11.0).abs() < 0.01);
        assert_eq!(v.miscounted, vec![points[1].program.clone()]);
    }
}
