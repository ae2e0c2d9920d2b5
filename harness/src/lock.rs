//! One measurement at a time on this machine: every mlcost process takes an exclusive `flock`
//! before it starts a binary, so two suites (or two tests) never time against each other.

use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::PathBuf;

pub struct MeasurementLock {
    _file: File,
}

impl MeasurementLock {
    fn path() -> PathBuf {
        std::env::temp_dir().join("mlcost-measure.lock")
    }

    /// Takes the lock, calling `waiting` once if another process holds it.
    pub fn acquire(waiting: impl FnOnce()) -> std::io::Result<Self> {
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(Self::path())?;
        let fd = file.as_raw_fd();
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(fd, libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            waiting();
            // SAFETY: as above; this call blocks until the holder releases the lock.
            if unsafe { libc::flock(fd, libc::LOCK_EX) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(MeasurementLock { _file: file })
    }
}
