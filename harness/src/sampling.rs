//! Core_bench's sampling loop for one (benchmark, size, layout): batches of 1, then each a few
//! percent larger than the last, until the time quota is spent or the slope is known to the
//! requested precision.

use crate::regression::{ols, slope_half_width};
use ocaml_runtime::process::{DriverFault, DriverProcess};
use ocaml_runtime::{BatchSample, Reply, Request};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, PartialEq)]
pub struct SamplingConfig {
    /// Wall time spent sampling one (benchmark, size, layout).
    pub quota: Duration,
    /// Stop early once the slope's 95% half-width is below this fraction of the slope.
    pub target_rel_ci: Option<f64>,
    /// Each batch is `max(k + 1, ceil(k · growth))` runs.
    pub growth: f64,
    /// Never stop on precision before this many samples.
    pub min_samples: usize,
    /// Stop after this many samples whatever the quota.
    pub max_samples: usize,
    /// Longest wait for any one reply before the binary is declared hung.
    pub reply_timeout: Duration,
}

impl Default for SamplingConfig {
    fn default() -> Self {
        SamplingConfig {
            quota: Duration::from_secs(1),
            target_rel_ci: Some(0.01),
            growth: 1.05,
            min_samples: 20,
            max_samples: 10_000,
            reply_timeout: Duration::from_secs(30),
        }
    }
}

impl SamplingConfig {
    pub fn next_batch(&self, runs: u64) -> u64 {
        (runs + 1).max((runs as f64 * self.growth).ceil() as u64)
    }
}

/// Everything one (benchmark, size, layout) produced.
#[derive(Debug, Clone, PartialEq)]
pub struct PointSamples {
    pub samples: Vec<BatchSample>,
    pub digest: String,
    pub input_ns: u64,
}

/// Why sampling stopped short: the driver failed, or a sample could not be saved.
#[derive(Debug)]
pub enum SamplingError<E> {
    Driver(DriverFault),
    Sink(E),
}

fn expect<T>(
    request: Request,
    reply: Reply,
    pick: impl FnOnce(Reply) -> Result<T, Reply>,
) -> Result<T, DriverFault> {
    pick(reply).map_err(|other| DriverFault::Unexpected {
        request: request.to_string(),
        reply: format!("{other:?}"),
    })
}

/// Samples one size on a running driver. Each sample goes to `sink` (the on-disk log) before
/// the next batch is requested.
pub fn sample_point<E>(
    driver: &mut DriverProcess,
    size: u64,
    config: &SamplingConfig,
    sink: &mut dyn FnMut(&BatchSample) -> Result<(), E>,
) -> Result<PointSamples, SamplingError<E>> {
    let limit = config.reply_timeout;
    let request = Request::Size(size);
    let reply = driver
        .request(request, limit)
        .map_err(SamplingError::Driver)?;
    let input_ns = expect(request, reply, |r| match r {
        Reply::Ready { input_ns, .. } => Ok(input_ns),
        other => Err(other),
    })
    .map_err(SamplingError::Driver)?;

    let started = Instant::now();
    let mut samples: Vec<BatchSample> = Vec::new();
    let mut runs = 1;
    loop {
        let request = Request::Batch(runs);
        let reply = driver
            .request(request, limit)
            .map_err(SamplingError::Driver)?;
        let sample = expect(request, reply, |r| match r {
            Reply::Sample(s) if s.runs == runs => Ok(s),
            other => Err(other),
        })
        .map_err(SamplingError::Driver)?;
        sink(&sample).map_err(SamplingError::Sink)?;
        samples.push(sample);
        if started.elapsed() >= config.quota
            || samples.len() >= config.max_samples
            || precise_enough(&samples, config)
        {
            break;
        }
        runs = config.next_batch(runs);
    }

    let reply = driver
        .request(Request::Digest, limit)
        .map_err(SamplingError::Driver)?;
    let digest = expect(Request::Digest, reply, |r| match r {
        Reply::Digest(d) => Ok(d),
        other => Err(other),
    })
    .map_err(SamplingError::Driver)?;
    Ok(PointSamples {
        samples,
        digest,
        input_ns,
    })
}

fn precise_enough(samples: &[BatchSample], config: &SamplingConfig) -> bool {
    let Some(target) = config.target_rel_ci else {
        return false;
    };
    if samples.len() < config.min_samples {
        return false;
    }
    let samples = crate::estimate::undisturbed(samples);
    let runs: Vec<f64> = samples.iter().map(|s| s.runs as f64).collect();
    let ns: Vec<f64> = samples.iter().map(|s| s.ns as f64).collect();
    match (ols(&runs, &ns), slope_half_width(&runs, &ns)) {
        (Some(line), Some(half)) if line.slope > 0.0 => half / line.slope < target,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_grow_geometrically_from_one() {
        let config = SamplingConfig::default();
        let mut runs = vec![1u64];
        while runs.len() < 100 {
            runs.push(config.next_batch(*runs.last().unwrap()));
        }
        assert_eq!(&runs[..5], &[1, 2, 3, 4, 5]);
        assert!(runs.windows(2).all(|w| w[1] > w[0]));
        let ratio = runs[99] as f64 / runs[98] as f64;
        assert!((1.04..1.07).contains(&ratio), "{ratio}");
    }
}
