//! The canary: a fixed calibration program measured between visits, about once a second, on
//! the same CPU. Its time per run cannot change within a run, so its timeline is the
//! machine's own speed: a reading well above its typical level means a neighbour was slowing
//! everything down, and the visits taken around it are flagged (left out of the estimates,
//! and counted). Program-specific slow phases that the canary does not feel are the robust
//! estimator's job ([`crate::robust`]).

use crate::error::BenchError;
use crate::plan::BenchPlan;
use crate::robust::{fit_visit, VisitData};
use crate::samples::CanaryRecord;
use crate::sampling::{sample_visit, Driver, SamplingConfig, SamplingError};
use crate::schedule::now_ms;
use ocaml_runtime::process::{DriverFault, DriverProcess};
use ocaml_runtime::{build_layout, Placement, RuntimeObjects, CANARY_ML};
use serde::{Deserialize, Serialize};
use std::convert::Infallible;
use std::time::{Duration, Instant};

/// Input size of the canary: a run of a few microseconds.
const CANARY_SIZE: u64 = 2000;
/// Sampling time of one reading.
const READING_SLICE: Duration = Duration::from_millis(10);
/// Time between readings.
const READING_EVERY: Duration = Duration::from_secs(1);
/// A reading this much above the run's typical level marks the machine disturbed. On a
/// shared core the canary's readings sit in two bands about 12% apart (the sibling
/// hyperthread busy or idle) for most of a run; what moves benchmarks by 2× shows as
/// readings 50–90% above the median. 20% keeps the first out and catches the second.
pub const DISTURBED_ABOVE: f64 = 0.20;
/// The typical level: the first quartile of a run's readings, the machine's quiet speed as
/// long as a quarter of the run was quiet. The median is not: in some runs of this machine a
/// neighbour slowed the canary 1.8× for 60% of a stage (docs/measuring.md, "The canary"), and a
/// median taken then is the slow level, which flags nothing.
const TYPICAL_QUANTILE: f64 = 0.25;

/// The canary's running process.
pub struct Canary {
    driver: Driver,
    sampling: SamplingConfig,
    last: Option<Instant>,
}

impl Canary {
    /// Builds the canary with the plan's first compiler into `build/canary/` and starts it.
    pub fn start(plan: &BenchPlan) -> Result<Canary, BenchError> {
        let setup = &plan.compilers[0];
        let dir = plan.out_dir.join("build").join("canary");
        let fail = |source| BenchError::Build {
            program: "mlcost canary".into(),
            compiler: setup.compiler.name.clone(),
            source,
        };
        let runtime =
            RuntimeObjects::prepare(&setup.compiler, &setup.flags, &dir, 1).map_err(fail)?;
        let source = dir.join("mlcost_canary.ml");
        std::fs::write(&source, CANARY_ML).map_err(crate::bench::io_err(&source))?;
        let binary = build_layout(&source, setup, &runtime, &dir, 0).map_err(fail)?;
        let measure_fault = |source| BenchError::Measure {
            benchmark: "mlcost canary".into(),
            compiler: setup.compiler.name.clone(),
            size: CANARY_SIZE,
            layout: 0,
            source,
        };
        let driver = DriverProcess::spawn(
            &binary.path,
            plan.cpu,
            Placement::default(),
            plan.sampling.reply_timeout,
        )
        .map(Driver::from)
        .map_err(measure_fault)?;
        Ok(Canary {
            driver,
            sampling: plan.sampling.clone(),
            last: None,
        })
    }

    /// Whether a reading is due (one a second).
    pub fn due(&self) -> bool {
        self.last.is_none_or(|t| t.elapsed() >= READING_EVERY)
    }

    /// One reading: time per run over a short slice.
    pub fn read(&mut self) -> Result<CanaryRecord, DriverFault> {
        self.last = Some(Instant::now());
        let visit = sample_visit::<Infallible>(
            &mut self.driver,
            CANARY_SIZE,
            READING_SLICE,
            &self.sampling,
            false,
            &mut |_| Ok(()),
        )
        .map_err(|e| match e {
            SamplingError::Driver(fault) => fault,
            SamplingError::Sink(never) => match never {},
        })?;
        let reading = fit_visit(&VisitData {
            round: 0,
            samples: visit.samples,
            slow_machine: false,
        });
        Ok(CanaryRecord {
            at_ms: now_ms(),
            ns_per_run: reading.map_or(f64::NAN, |f| f.line.slope),
        })
    }
}

/// A run's canary readings, read against their typical level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CanaryTimeline {
    /// Readings in time order.
    pub readings: Vec<CanaryRecord>,
    /// The typical level: the first quartile of the readings, or a reference level from
    /// earlier in the run when that is lower ([`CanaryTimeline::with_reference`]).
    pub typical_ns_per_run: f64,
    /// Readings above this are disturbed.
    pub threshold_ns_per_run: f64,
}

impl CanaryTimeline {
    /// The timeline of a run's canary file; `None` when the file does not exist (runs from
    /// before the canary) or holds no readings.
    pub fn read(
        path: &std::path::Path,
    ) -> Result<Option<CanaryTimeline>, crate::samples::SampleIoError> {
        if !path.exists() {
            return Ok(None);
        }
        Ok(CanaryTimeline::new(crate::samples::CanaryLog::read_all(
            path,
        )?))
    }

    /// `None` without readings.
    pub fn new(mut readings: Vec<CanaryRecord>) -> Option<CanaryTimeline> {
        readings.retain(|r| r.ns_per_run.is_finite() && r.ns_per_run > 0.0);
        readings.sort_by_key(|r| r.at_ms);
        let mut values: Vec<f64> = readings.iter().map(|r| r.ns_per_run).collect();
        values.sort_by(f64::total_cmp);
        let typical = quantile(&values, TYPICAL_QUANTILE)?;
        Some(CanaryTimeline {
            readings,
            typical_ns_per_run: typical,
            threshold_ns_per_run: typical * (1.0 + DISTURBED_ABOVE),
        })
    }

    /// The same readings judged against `reference` (ns per run) when it is below their own
    /// typical level: a control stage measured after the training stage uses the training's
    /// quiet level, so that a stage disturbed for most of its length is still seen as such.
    pub fn with_reference(mut self, reference: Option<f64>) -> CanaryTimeline {
        if let Some(reference) = reference.filter(|r| r.is_finite() && *r > 0.0) {
            if reference < self.typical_ns_per_run {
                self.typical_ns_per_run = reference;
                self.threshold_ns_per_run = reference * (1.0 + DISTURBED_ABOVE);
            }
        }
        self
    }

    pub fn disturbed(&self, reading: &CanaryRecord) -> bool {
        reading.ns_per_run > self.threshold_ns_per_run
    }

    /// Share of the readings that found the machine disturbed: with readings once a second,
    /// the share of the run's time.
    pub fn disturbed_fraction(&self) -> f64 {
        let n = self.readings.iter().filter(|r| self.disturbed(r)).count();
        n as f64 / self.readings.len() as f64
    }

    /// Whether the machine was disturbed around a visit from `start_ms` to `end_ms`: the last
    /// reading before it or the first after it was.
    pub fn disturbed_during(&self, start_ms: u64, end_ms: u64) -> bool {
        let after = self.readings.partition_point(|r| r.at_ms < end_ms);
        let before = self.readings.partition_point(|r| r.at_ms <= start_ms);
        let neighbours = [
            before.checked_sub(1).map(|i| &self.readings[i]),
            self.readings.get(after),
        ];
        neighbours.into_iter().flatten().any(|r| self.disturbed(r))
    }
}

/// Above this share of disturbed time, a measurement's estimates run slow even after the
/// disturbed visits are left out and caught up: the canary reads once a second, so visits
/// between two quiet readings can still be disturbed, and when most of the time is, they fill
/// the fastest half of a point's visits. On this project's host, the training points of a run
/// disturbed 25% of the time matched a quiet run's to a median 1.000; one disturbed 54% of the
/// time ran a median 1.053 of them, and controls validated alone while 72% was disturbed ran
/// 1.02–1.35 times their training run's times (docs/measuring.md, "The canary").
pub const BIASED_ABOVE: f64 = 0.4;

/// How the machine was while a measurement ran, from its canary and its estimates: said beside
/// the figures that came from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineCondition {
    /// Share of the canary's readings that found the machine disturbed, percent.
    pub disturbed_pct: f64,
    pub canary_readings: usize,
    /// The canary's quiet level, ns per run.
    pub quiet_ns_per_run: f64,
    /// Visits left out as disturbed (and caught up), of all visits of the estimates.
    pub visits_left_out: usize,
    pub visits: usize,
}

impl MachineCondition {
    pub fn of(canary: &CanaryTimeline, estimates: &[crate::Estimate]) -> MachineCondition {
        MachineCondition::new(
            canary,
            estimates.iter().map(|e| e.visits).sum(),
            estimates.iter().map(|e| e.slow_machine_visits).sum(),
        )
    }

    pub fn new(canary: &CanaryTimeline, visits: usize, visits_left_out: usize) -> Self {
        MachineCondition {
            disturbed_pct: 100.0 * canary.disturbed_fraction(),
            canary_readings: canary.readings.len(),
            quiet_ns_per_run: canary.typical_ns_per_run,
            visits_left_out,
            visits,
        }
    }

    /// Whether the estimates are likely slow for the machine, not for the code.
    pub fn biased(&self) -> bool {
        self.disturbed_pct > 100.0 * BIASED_ABOVE
    }
}

fn quantile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let mut data = statrs::statistics::Data::new(sorted.to_vec());
    Some(statrs::statistics::OrderStatistics::quantile(&mut data, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(at_ms: u64, ns_per_run: f64) -> CanaryRecord {
        CanaryRecord { at_ms, ns_per_run }
    }

    #[test]
    fn visits_next_to_a_slow_reading_are_disturbed() {
        let mut readings: Vec<CanaryRecord> = (0..20)
            .map(|i| reading(i * 1000, 5000.0 + (i % 3) as f64 * 20.0))
            .collect();
        readings[7].ns_per_run = 9000.0;
        readings[8].ns_per_run = 8800.0;
        let timeline = CanaryTimeline::new(readings).unwrap();
        assert!((timeline.typical_ns_per_run - 5020.0).abs() < 25.0);
        assert!((timeline.disturbed_fraction() - 0.1).abs() < 1e-9);
        assert!(
            timeline.disturbed_during(6100, 6200),
            "the reading after it is slow"
        );
        assert!(
            timeline.disturbed_during(8100, 8200),
            "the reading before it is slow"
        );
        assert!(!timeline.disturbed_during(2100, 2200));
        assert!(!timeline.disturbed_during(9100, 9200));
        assert!(CanaryTimeline::new(Vec::new()).is_none());
    }

    #[test]
    fn a_measurement_disturbed_most_of_the_time_is_called_biased() {
        // One reading in three slow: disturbed a third of the time, not biased.
        let third: Vec<CanaryRecord> = (0..30)
            .map(|i| reading(i * 1000, if i % 3 == 0 { 9000.0 } else { 7000.0 }))
            .collect();
        let condition = MachineCondition::new(&CanaryTimeline::new(third).unwrap(), 64, 12);
        assert!((condition.disturbed_pct - 100.0 / 3.0).abs() < 1e-9);
        assert_eq!(
            (
                condition.canary_readings,
                condition.visits_left_out,
                condition.visits
            ),
            (30, 12, 64)
        );
        assert_eq!(condition.quiet_ns_per_run, 7000.0);
        assert!(!condition.biased());
        // Three readings in five slow against the training run's quiet level.
        let most: Vec<CanaryRecord> = (0..30)
            .map(|i| reading(i * 1000, if i % 5 < 3 { 9500.0 } else { 7000.0 }))
            .collect();
        let timeline = CanaryTimeline::new(most)
            .unwrap()
            .with_reference(Some(7000.0));
        assert!(MachineCondition::new(&timeline, 64, 12).biased());
    }

    #[test]
    fn a_stage_slow_most_of_the_time_is_flagged_against_the_quiet_level() {
        // Two readings in three slow, as in a control stage beside a busy neighbour: the
        // median is the slow level, the first quartile the quiet one.
        let readings: Vec<CanaryRecord> = (0..30)
            .map(|i| reading(i * 1000, if i % 3 == 0 { 7000.0 } else { 13500.0 }))
            .collect();
        let timeline = CanaryTimeline::new(readings.clone()).unwrap();
        assert_eq!(timeline.typical_ns_per_run, 7000.0);
        assert!((timeline.disturbed_fraction() - 2.0 / 3.0).abs() < 1e-9);

        // All slow: only the training's level says so.
        let slow: Vec<CanaryRecord> = (0..30).map(|i| reading(i * 1000, 13500.0)).collect();
        assert_eq!(
            CanaryTimeline::new(slow.clone())
                .unwrap()
                .disturbed_fraction(),
            0.0
        );
        let judged = CanaryTimeline::new(slow)
            .unwrap()
            .with_reference(Some(7000.0));
        assert_eq!(judged.disturbed_fraction(), 1.0);
        // A reference above the stage's own level changes nothing.
        let quiet = CanaryTimeline::new(readings)
            .unwrap()
            .with_reference(Some(9000.0));
        assert_eq!(quiet.typical_ns_per_run, 7000.0);
    }
}
