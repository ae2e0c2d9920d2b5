//! One running benchmark binary: spawned pinned to a single core, spoken to line by line, with
//! a time limit on every reply and the tail of its stderr kept for error messages. Dropping it
//! kills the process.

use crate::placement::Placement;
use crate::protocol::{parse_reply, DriverHello, GarbageLine, Reply, Request};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

const STDERR_TAIL_BYTES: usize = 2000;

/// The stack a benchmark binary runs on. ocamlopt's code recurses on the system stack, which
/// the default limit holds to 8 MiB: about 500 000 levels of 16-byte frames, fewer than the
/// interpreter counts (its 1 GiB stack holds a million levels of the same recursion), so a
/// program counted at a size could then die of `Stack_overflow` when measured. At 512 MiB the
/// interpreter's "recursion too deep" is always the first limit a program meets, before any
/// binary is built. (valgrind, which gives the program a main stack of its own, failed to run
/// one of 1 GiB here.)
pub const NATIVE_STACK_BYTES: u64 = 512 << 20;

/// Lets `cmd`'s process grow its stack to [`NATIVE_STACK_BYTES`] (or to the hard limit, if
/// lower); a limit already higher is kept.
fn raise_stack_limit(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: only getrlimit/setrlimit (async-signal-safe system calls) on a struct of the
    // child's own run between fork and exec; a failure leaves the inherited limit.
    unsafe {
        cmd.pre_exec(|| {
            let mut limit: libc::rlimit = std::mem::zeroed();
            // RLIM_INFINITY is the largest rlim_t: an unlimited stack is kept, an unlimited
            // hard limit allows the whole size.
            if libc::getrlimit(libc::RLIMIT_STACK, &mut limit) == 0
                && limit.rlim_cur < NATIVE_STACK_BYTES
            {
                limit.rlim_cur = limit.rlim_max.min(NATIVE_STACK_BYTES);
                libc::setrlimit(libc::RLIMIT_STACK, &limit);
            }
            Ok(())
        });
    }
}

/// What went wrong talking to a driver, before the caller adds which benchmark and size.
#[derive(Debug, thiserror::Error)]
pub enum DriverFault {
    #[error("cannot start {path}: {source}")]
    Spawn {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no reply within {limit:?}; the process was killed (raise --timeout if one run really takes this long)")]
    Timeout { limit: Duration },
    #[error("the binary exited ({status}){stderr}")]
    Exited { status: String, stderr: String },
    #[error("garbage on the protocol: {0}")]
    Garbage(#[from] GarbageLine),
    #[error("{kind}: {message}")]
    Program { kind: String, message: String },
    #[error("unexpected reply to `{request}`: {reply}")]
    Unexpected { request: String, reply: String },
}

pub struct DriverProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
    stderr_tail: Arc<Mutex<VecDeque<u8>>>,
    quit_sent: bool,
    pub hello: DriverHello,
}

impl DriverProcess {
    /// Starts `binary` pinned to `cpu` (when given) at `placement`, and waits for its hello
    /// line.
    pub fn spawn(
        binary: &Path,
        cpu: Option<usize>,
        placement: Placement,
        limit: Duration,
    ) -> Result<Self, DriverFault> {
        let mut cmd = Command::new(binary);
        placement.apply(&mut cmd, binary);
        raise_stack_limit(&mut cmd);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(cpu) = cpu {
            pin_to_cpu(&mut cmd, cpu);
        }
        let mut child = cmd.spawn().map_err(|source| DriverFault::Spawn {
            path: binary.to_path_buf(),
            source,
        })?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr_tail);
        thread::spawn(move || keep_tail(stderr, &tail));
        let mut process = DriverProcess {
            child,
            stdin,
            lines,
            stderr_tail,
            quit_sent: false,
            hello: DriverHello {
                word_size: 0,
                minor_heap_words: 0,
                ocaml_version: String::new(),
            },
        };
        match process.read_reply(limit)? {
            Reply::Hello(hello) => process.hello = hello,
            other => {
                return Err(DriverFault::Unexpected {
                    request: "start".into(),
                    reply: format!("{other:?}"),
                })
            }
        }
        Ok(process)
    }

    /// The process's id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends one request and returns its reply; a driver `error` line becomes
    /// [`DriverFault::Program`].
    pub fn request(&mut self, request: Request, limit: Duration) -> Result<Reply, DriverFault> {
        if writeln!(self.stdin, "{request}")
            .and_then(|()| self.stdin.flush())
            .is_err()
        {
            return Err(self.exited());
        }
        match self.read_reply(limit)? {
            Reply::Error { kind, message } => Err(DriverFault::Program { kind, message }),
            reply => Ok(reply),
        }
    }

    fn read_reply(&mut self, limit: Duration) -> Result<Reply, DriverFault> {
        match self.lines.recv_timeout(limit) {
            Ok(Ok(line)) => Ok(parse_reply(&line)?),
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => Err(self.exited()),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                Err(DriverFault::Timeout { limit })
            }
        }
    }

    fn exited(&mut self) -> DriverFault {
        // The process closed stdout; give it a moment to finish dying so its status and
        // last words are known.
        let status = wait_briefly(&mut self.child);
        thread::sleep(Duration::from_millis(20));
        let tail: Vec<u8> = self
            .stderr_tail
            .lock()
            .map(|t| t.iter().copied().collect())
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&tail).trim().to_string();
        DriverFault::Exited {
            status: status.map_or_else(|| "still running".into(), describe_status),
            stderr: if text.is_empty() {
                String::new()
            } else {
                format!("; its stderr ends with: {text}")
            },
        }
    }
}

impl DriverProcess {
    /// Asks the process to exit without waiting for it. Dropping it then waits (briefly); a
    /// caller ending many processes asks them all first, so that they exit in parallel rather
    /// than one poll interval each (1600 processes took 16 s to end one by one).
    pub fn ask_to_quit(&mut self) {
        if !self.quit_sent {
            let _ = writeln!(self.stdin, "{}", Request::Quit);
            let _ = self.stdin.flush();
            self.quit_sent = true;
        }
    }
}

impl Drop for DriverProcess {
    fn drop(&mut self) {
        self.ask_to_quit();
        if wait_briefly(&mut self.child).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn wait_briefly(child: &mut Child) -> Option<ExitStatus> {
    for _ in 0..50 {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        thread::sleep(Duration::from_millis(10));
    }
    None
}

fn describe_status(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(libc::SIGSEGV)) => {
            "killed by SIGSEGV: a crash, often a stack overflow in C code or unsafe code".into()
        }
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => status.to_string(),
    }
}

fn keep_tail(mut stderr: impl Read, tail: &Mutex<VecDeque<u8>>) {
    let mut buf = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut buf) {
        if n == 0 {
            break;
        }
        if let Ok(mut tail) = tail.lock() {
            tail.extend(&buf[..n]);
            while tail.len() > STDERR_TAIL_BYTES {
                tail.pop_front();
            }
        }
    }
}

/// The CPU a measurement is pinned to by default: the last one this process may run on, so
/// that the harness itself tends to stay on another.
pub fn default_cpu() -> Option<usize> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it for this process.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        (0..libc::CPU_SETSIZE as usize)
            .rev()
            .find(|&cpu| libc::CPU_ISSET(cpu, &set))
    }
}

fn pin_to_cpu(cmd: &mut Command, cpu: usize) {
    use std::os::unix::process::CommandExt;
    // SAFETY: only sched_setaffinity (an async-signal-safe system call) runs between fork and
    // exec; a failure to pin is ignored rather than failing the measurement.
    unsafe {
        cmd.pre_exec(move || {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
            Ok(())
        });
    }
}
