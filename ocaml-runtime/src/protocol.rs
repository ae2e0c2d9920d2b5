//! The line protocol between the harness and the driver (see the crate README for the
//! transcript). Requests and replies are single ASCII lines; this module renders the former
//! and parses the latter, rejecting anything else as garbage.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Version spoken by `ocaml/mlcost_driver.ml`; a binary announcing another is refused.
pub const PROTOCOL_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// Build the input for this size (untimed) and compact the heap.
    Size(u64),
    /// Time this many calls of `run` on the current input.
    Batch(u64),
    /// Run once more and answer the digest of the result.
    Digest,
    Quit,
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Request::Size(n) => write!(f, "size {n}"),
            Request::Batch(k) => write!(f, "batch {k}"),
            Request::Digest => f.write_str("digest"),
            Request::Quit => f.write_str("quit"),
        }
    }
}

/// One batch as the driver measured it: deltas of the monotonic clock and of `Gc.quick_stat`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BatchSample {
    pub runs: u64,
    pub ns: u64,
    pub minor_words: f64,
    pub promoted_words: f64,
    /// Words allocated in the major heap, promoted words included (as `Gc.major_words`).
    pub major_words: f64,
    pub minor_collections: u64,
    pub major_collections: u64,
    pub compactions: u64,
    /// CPU time of the driver's thread over the batch (absent from samples of older logs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ns: Option<u64>,
}

/// Wall time a batch may exceed its CPU time by and still count as undisturbed: clock
/// granularity and the two clock reads.
const DESCHEDULE_SLACK_NS: u64 = 20_000;

impl BatchSample {
    /// A batch of `runs` runs that took `ns` and allocated nothing: what a timing-only sample
    /// looks like (the driver always reports the counters; tests and synthetic data need not).
    pub fn timing(runs: u64, ns: u64) -> BatchSample {
        BatchSample {
            runs,
            ns,
            minor_words: 0.0,
            promoted_words: 0.0,
            major_words: 0.0,
            minor_collections: 0,
            major_collections: 0,
            compactions: 0,
            cpu_ns: None,
        }
    }

    /// The process lost the CPU during the batch (its wall time exceeds its CPU time by more
    /// than 2% and the clocks' slack): the sample measures the machine, not the program.
    pub fn descheduled(&self) -> bool {
        self.cpu_ns
            .is_some_and(|cpu| self.ns > cpu + cpu / 50 + DESCHEDULE_SLACK_NS)
    }
}

/// What the driver said about itself when it started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriverHello {
    pub word_size: u32,
    pub minor_heap_words: u64,
    pub ocaml_version: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Hello(DriverHello),
    Ready { size: u64, input_ns: u64 },
    Sample(BatchSample),
    Digest(String),
    Error { kind: String, message: String },
}

/// A line that is not a reply of this protocol.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a driver reply: {line:?} ({why})")]
pub struct GarbageLine {
    pub line: String,
    pub why: String,
}

fn garbage(line: &str, why: impl Into<String>) -> GarbageLine {
    let mut shown: String = line.chars().take(200).collect();
    if shown.len() < line.len() {
        shown.push('…');
    }
    GarbageLine {
        line: shown,
        why: why.into(),
    }
}

fn number<T: std::str::FromStr>(line: &str, field: &str, what: &str) -> Result<T, GarbageLine> {
    field
        .parse()
        .map_err(|_| garbage(line, format!("{what} is not a number: {field:?}")))
}

pub fn parse_reply(line: &str) -> Result<Reply, GarbageLine> {
    let line = line.trim_end_matches(['\r', '\n']);
    let mut words = line.split(' ');
    let head = words.next().unwrap_or("");
    let rest: Vec<&str> = words.collect();
    match head {
        "mlcost-driver" => parse_hello(line, &rest),
        "ready" => match rest.as_slice() {
            [size, input_ns] => Ok(Reply::Ready {
                size: number(line, size, "size")?,
                input_ns: number(line, input_ns, "input time")?,
            }),
            _ => Err(garbage(line, "ready takes 2 fields")),
        },
        "sample" => match rest.as_slice() {
            [runs, ns, minor, promoted, major, minor_gc, major_gc, compactions, cpu @ ..]
                if cpu.len() <= 1 =>
            {
                Ok(Reply::Sample(BatchSample {
                    runs: number(line, runs, "runs")?,
                    ns: number(line, ns, "nanoseconds")?,
                    minor_words: number(line, minor, "minor words")?,
                    promoted_words: number(line, promoted, "promoted words")?,
                    major_words: number(line, major, "major words")?,
                    minor_collections: number(line, minor_gc, "minor collections")?,
                    major_collections: number(line, major_gc, "major collections")?,
                    compactions: number(line, compactions, "compactions")?,
                    cpu_ns: match cpu.first() {
                        Some(c) => Some(number(line, c, "CPU time")?),
                        None => None,
                    },
                }))
            }
            _ => Err(garbage(line, "sample takes 8 or 9 fields")),
        },
        "digest" => match rest.as_slice() {
            [hex] if hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                Ok(Reply::Digest(hex.to_string()))
            }
            _ => Err(garbage(line, "digest takes 16 hex digits")),
        },
        "error" => match rest.split_first() {
            Some((kind, message)) if !kind.is_empty() => Ok(Reply::Error {
                kind: kind.to_string(),
                message: message.join(" "),
            }),
            _ => Err(garbage(line, "error without a kind")),
        },
        _ => Err(garbage(line, "unknown reply")),
    }
}

fn parse_hello(line: &str, fields: &[&str]) -> Result<Reply, GarbageLine> {
    let (version, pairs) = fields
        .split_first()
        .ok_or_else(|| garbage(line, "hello without version"))?;
    let version: u32 = number(line, version, "protocol version")?;
    if version != PROTOCOL_VERSION {
        return Err(garbage(
            line,
            format!("protocol version {version}, expected {PROTOCOL_VERSION}: rebuild the binary"),
        ));
    }
    let (mut word_size, mut minor_heap_words, mut ocaml_version) = (None, None, None);
    for pair in pairs {
        match pair.split_once('=') {
            Some(("word_size", v)) => word_size = Some(number(line, v, "word size")?),
            Some(("minor_heap_words", v)) => {
                minor_heap_words = Some(number(line, v, "minor heap")?)
            }
            Some(("ocaml", v)) => ocaml_version = Some(v.to_string()),
            _ => {}
        }
    }
    match (word_size, minor_heap_words, ocaml_version) {
        (Some(word_size), Some(minor_heap_words), Some(ocaml_version)) => {
            Ok(Reply::Hello(DriverHello {
                word_size,
                minor_heap_words,
                ocaml_version,
            }))
        }
        _ => Err(garbage(
            line,
            "hello lacks word_size, minor_heap_words or ocaml",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_reply_the_driver_sends() {
        assert_eq!(
            parse_reply("mlcost-driver 1 word_size=64 minor_heap_words=262144 ocaml=4.13.1"),
            Ok(Reply::Hello(DriverHello {
                word_size: 64,
                minor_heap_words: 262144,
                ocaml_version: "4.13.1".into()
            }))
        );
        assert_eq!(
            parse_reply("ready 1000 45626"),
            Ok(Reply::Ready {
                size: 1000,
                input_ns: 45626
            })
        );
        let Ok(Reply::Sample(s)) = parse_reply("sample 100 2033926 300000 209 209 1 0 0 2000000")
        else {
            panic!("sample not parsed")
        };
        assert_eq!(
            (s.runs, s.ns, s.minor_words, s.minor_collections),
            (100, 2033926, 300000.0, 1)
        );
        assert_eq!(
            parse_reply("digest ca293504ee3e5e35"),
            Ok(Reply::Digest("ca293504ee3e5e35".into()))
        );
        assert_eq!(
            parse_reply("error exception Not_found"),
            Ok(Reply::Error {
                kind: "exception".into(),
                message: "Not_found".into()
            })
        );
    }

    #[test]
    fn rejects_garbage_and_wrong_versions() {
        for line in [
            "hello world",
            "",
            "sample 1 2 3",
            "sample 1 2 x 0 0 0 0 0",
            "digest xyz",
            "mlcost-driver 2 word_size=64 minor_heap_words=1 ocaml=5",
            "mlcost-driver 1 word_size=64",
        ] {
            assert!(parse_reply(line).is_err(), "{line:?} accepted");
        }
    }
}
