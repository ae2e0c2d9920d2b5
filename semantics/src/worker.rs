//! Evaluation threads with a large stack, kept for reuse.
//!
//! Deep non-tail recursion touches hundreds of megabytes of stack; on a fresh thread every
//! page of it is a page fault, which made a 200 000-deep recursion spend two thirds of its
//! time in the kernel. Reusing the thread makes the second and later counts of a program (a
//! size sweep) fault nothing. Workers are taken from an idle list, or started when none is
//! idle, so counts can still run in parallel.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::Mutex;

/// Stack of an evaluation thread: non-tail recursion a million calls deep fits.
pub(crate) const EVAL_STACK: usize = 1 << 30;
/// Idle workers kept beyond this number exit.
const MAX_IDLE: usize = 4;

type Job = Box<dyn FnOnce() + Send + 'static>;

struct Worker {
    jobs: mpsc::Sender<Job>,
}

static IDLE: Mutex<Vec<Worker>> = Mutex::new(Vec::new());

fn spawn() -> Result<Worker, String> {
    let (jobs, queue) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("mlcost-eval".into())
        .stack_size(EVAL_STACK)
        .spawn(move || {
            while let Ok(job) = queue.recv() {
                job();
            }
        })
        .map_err(|e| format!("cannot start an evaluation thread: {e}"))?;
    Ok(Worker { jobs })
}

/// The text a panic was raised with, for the error that reports it.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic".into())
}

/// Runs `f` on an evaluation thread and returns its result; a panic in `f` comes back as an
/// error message (and leaves the thread usable).
pub(crate) fn run<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    let idle = IDLE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .pop();
    let worker = match idle {
        Some(w) => w,
        None => spawn()?,
    };
    let (reply, answer) = mpsc::channel();
    let job: Job = Box::new(move || {
        let result = catch_unwind(AssertUnwindSafe(f)).map_err(|p| panic_message(&*p));
        let _ = reply.send(result);
    });
    let worker = match worker.jobs.send(job) {
        Ok(()) => worker,
        Err(mpsc::SendError(job)) => {
            // The idle thread is gone (it can only exit when its queue closes): use a new one.
            let fresh = spawn()?;
            fresh
                .jobs
                .send(job)
                .map_err(|_| "the evaluation thread exited".to_string())?;
            fresh
        }
    };
    let result = answer
        .recv()
        .map_err(|_| "the evaluation thread exited".to_string())?;
    let mut idle = IDLE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if idle.len() < MAX_IDLE {
        idle.push(worker);
    }
    drop(idle);
    result
}
