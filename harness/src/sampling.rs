//! One visit to one (benchmark, size, layout): Core_bench's sampling loop over a short slice of
//! time — batches of 1, then each a few percent larger than the last, until the slice is
//! spent. A point is visited once per round; its estimate comes from all its visits
//! ([`crate::robust`]).

use ocaml_runtime::process::{DriverFault, DriverProcess};
use ocaml_runtime::{BatchSample, Reply, Request};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, PartialEq)]
pub struct SamplingConfig {
    /// Wall time spent sampling one (benchmark, size, layout), over all its visits.
    pub quota: Duration,
    /// Visits per point, each in its own round; the quota is split evenly between them.
    pub rounds: u32,
    /// At most this many extra rounds for the points the canary saw disturbed in most of
    /// their visits ([`crate::catch_up`]); they take no time on a quiet machine.
    pub catch_up_rounds: u32,
    /// Each batch is `max(k + 1, ceil(k · growth))` runs.
    pub growth: f64,
    /// Batches a visit takes at least, whatever its slice: a slope needs a few sizes.
    pub min_batches: usize,
    /// Stop a visit after this many batches whatever its slice.
    pub max_batches: usize,
    /// Longest wait for any one reply before the binary is declared hung.
    pub reply_timeout: Duration,
    /// Seed of the visit order (recorded in `run.json`).
    pub seed: u64,
}

impl Default for SamplingConfig {
    fn default() -> Self {
        SamplingConfig {
            quota: Duration::from_secs(1),
            rounds: 8,
            catch_up_rounds: 0,
            growth: 1.05,
            min_batches: 4,
            max_batches: 5_000,
            reply_timeout: Duration::from_secs(30),
            seed: 1,
        }
    }
}

impl SamplingConfig {
    pub fn next_batch(&self, runs: u64) -> u64 {
        (runs + 1).max((runs as f64 * self.growth).ceil() as u64)
    }

    /// Sampling time of one visit.
    pub fn slice(&self) -> Duration {
        self.quota / self.rounds.max(1)
    }
}

/// A benchmark process kept alive across visits, with the size whose input it holds.
pub struct Driver {
    pub process: DriverProcess,
    size: Option<u64>,
}

impl From<DriverProcess> for Driver {
    /// A freshly started process, which holds no input yet.
    fn from(process: DriverProcess) -> Self {
        Driver {
            process,
            size: None,
        }
    }
}

/// Everything one visit produced.
#[derive(Debug, Clone, PartialEq)]
pub struct VisitSamples {
    pub samples: Vec<BatchSample>,
    pub digest: Option<String>,
    /// Set when the visit had to build the input (the process held another size).
    pub input_ns: Option<u64>,
}

/// Why sampling stopped short: the driver failed, or a sample could not be saved.
#[derive(Debug)]
pub enum SamplingError<E> {
    Driver(DriverFault),
    Sink(E),
}

fn ask<T>(
    driver: &mut DriverProcess,
    request: Request,
    limit: Duration,
    pick: impl FnOnce(Reply) -> Result<T, Reply>,
) -> Result<T, DriverFault> {
    let reply = driver.request(request, limit)?;
    pick(reply).map_err(|other| DriverFault::Unexpected {
        request: request.to_string(),
        reply: format!("{other:?}"),
    })
}

/// Samples one visit of `size` on a running driver for `slice`. Each sample goes to `sink`
/// (the on-disk log) before the next batch is requested.
pub fn sample_visit<E>(
    driver: &mut Driver,
    size: u64,
    slice: Duration,
    config: &SamplingConfig,
    want_digest: bool,
    sink: &mut dyn FnMut(&BatchSample) -> Result<(), E>,
) -> Result<VisitSamples, SamplingError<E>> {
    let limit = config.reply_timeout;
    let mut input_ns = None;
    if driver.size != Some(size) {
        driver.size = None;
        let ready = ask(
            &mut driver.process,
            Request::Size(size),
            limit,
            |r| match r {
                Reply::Ready { input_ns, .. } => Ok(input_ns),
                other => Err(other),
            },
        );
        input_ns = Some(ready.map_err(SamplingError::Driver)?);
        driver.size = Some(size);
    }

    let started = Instant::now();
    let mut samples: Vec<BatchSample> = Vec::new();
    let mut runs = 1;
    loop {
        let sample = ask(
            &mut driver.process,
            Request::Batch(runs),
            limit,
            |r| match r {
                Reply::Sample(s) if s.runs == runs => Ok(s),
                other => Err(other),
            },
        )
        .map_err(SamplingError::Driver)?;
        sink(&sample).map_err(SamplingError::Sink)?;
        samples.push(sample);
        let spent = started.elapsed() >= slice && samples.len() >= config.min_batches;
        if spent || samples.len() >= config.max_batches {
            break;
        }
        runs = config.next_batch(runs);
    }

    let digest = if want_digest {
        let digest = ask(&mut driver.process, Request::Digest, limit, |r| match r {
            Reply::Digest(d) => Ok(d),
            other => Err(other),
        });
        Some(digest.map_err(SamplingError::Driver)?)
    } else {
        None
    };
    Ok(VisitSamples {
        samples,
        digest,
        input_ns,
    })
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

    #[test]
    fn the_quota_is_split_between_the_rounds() {
        let config = SamplingConfig {
            quota: Duration::from_millis(240),
            rounds: 8,
            ..SamplingConfig::default()
        };
        assert_eq!(config.slice(), Duration::from_millis(30));
    }
}
