//! Where a benchmark process's data sits in memory, made the same from run to run.
//!
//! With address-space randomisation on, every process start draws a new stack address, and
//! some programs run at two or three distinct speeds depending on the draw: `tuple_return`
//! at 10 000 elements takes 17.0–17.9 µs or 22.6–23.5 µs per run, nothing in between, the
//! same binary started eight times (the stack's offset within a 4 KiB page decides whether
//! its stores alias the heap's). A process stays alive for a whole run, so each layout of a
//! program holds one draw for the run, and two runs of the same binaries disagree by up to
//! 1.5× on such programs.
//!
//! So a benchmark process starts with randomisation off (`personality(ADDR_NO_RANDOMIZE)`,
//! what `setarch -R` does) and a fixed environment (only `OCAMLRUNPARAM` and `CAMLRUNPARAM`
//! are passed on), and its stack top is moved on purpose:
//! the environment holds one padding variable whose length puts the top of the stack at a
//! chosen offset within its page, whatever the length of the binary's path. The offset is a
//! function of the program and its layout, spread over the page across a program's layouts
//! (stratified: layout `k` of `n` draws from the `k`-th `n`-th of the page), so that the
//! layout average covers stack placement as it covers code placement, and two runs place
//! everything identically.
//!
//! Where the system refuses (a container's seccomp profile may deny `personality`), the
//! process starts with randomisation on; [`fixed_addresses_available`] says which, and the
//! run records it.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// The environment variable whose length sets the stack's offset.
pub const PAD_VARIABLE: &str = "MLCOST_STACK_PAD";

/// Offsets are multiples of the stack's alignment, within one page.
const ALIGNMENT: u32 = 16;
const PAGE: u32 = 4096;

/// Where one benchmark process's stack starts, relative to the top of its page.
/// The default is the top of the page: what a process that needs no particular placement
/// (a digest check, the canary) gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Placement {
    /// Bytes of strings (arguments and environment) above the stack: a multiple of 16 below
    /// 4096.
    pub stack_offset: u32,
}

impl Placement {
    /// The placement of layout `layout` of `layouts` of `program`: an offset drawn from the
    /// layout's own slice of the page, by a hash of the program's name and the layout.
    pub fn for_layout(program: &str, layout: u32, layouts: u32) -> Placement {
        let slots = PAGE / ALIGNMENT;
        let layouts = layouts.clamp(1, slots);
        let stratum = slots / layouts;
        let mut hash = crate::digest::Digest::new();
        hash.string(program.as_bytes());
        hash.immediate(i64::from(layout));
        let hash = u64::from_str_radix(&hash.finish(), 16).unwrap_or(0);
        let within = (hash % u64::from(stratum)) as u32;
        Placement {
            stack_offset: ALIGNMENT * ((layout % layouts) * stratum + within),
        }
    }

    /// Sets `cmd` (which runs `binary` with no arguments) to start with this placement.
    pub fn apply(self, cmd: &mut Command, binary: &Path) {
        let kept = kept_environment();
        cmd.env_clear();
        cmd.envs(kept.iter().map(|(k, v)| (k, v)));
        cmd.env(PAD_VARIABLE, "x".repeat(self.pad_length(binary, &kept)));
        if fixed_addresses_available() {
            // SAFETY: only personality(2), an async-signal-safe system call, runs between
            // fork and exec.
            unsafe {
                cmd.pre_exec(|| {
                    let current = libc::personality(0xffff_ffff);
                    libc::personality((current as libc::c_ulong) | ADDR_NO_RANDOMIZE);
                    Ok(())
                });
            }
        }
    }

    /// The padding that makes the strings above the stack `stack_offset` bytes modulo a
    /// page: the kernel copies the program's path twice (as `argv[0]` and as the executable
    /// name of the auxiliary vector) and each environment entry, each with its NUL.
    fn pad_length(self, binary: &Path, kept: &[(OsString, OsString)]) -> usize {
        let path = binary.as_os_str().len() + 1;
        let entries: usize = kept.iter().map(|(k, v)| k.len() + 1 + v.len() + 1).sum();
        let fixed = 2 * path + entries + PAD_VARIABLE.len() + "=".len() + 1;
        let page = PAGE as usize;
        (self.stack_offset as usize + page - fixed % page) % page
    }
}

const ADDR_NO_RANDOMIZE: libc::c_ulong = 0x0040000;

/// The only variables a benchmark process inherits: the OCaml runtime's own settings, which a
/// user may set on purpose (say, a larger minor heap). Nothing else of the caller's
/// environment reaches it, so that its stack starts at the same place in every run.
const KEPT_VARIABLES: [&str; 2] = ["OCAMLRUNPARAM", "CAMLRUNPARAM"];

fn kept_environment() -> Vec<(OsString, OsString)> {
    KEPT_VARIABLES
        .iter()
        .filter_map(|&k| std::env::var_os(k).map(|v| (OsString::from(k), v)))
        .collect()
}

/// Whether processes can be started with address randomisation off here (asked once: the
/// probe sets this process's own personality and puts it back).
pub fn fixed_addresses_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        // SAFETY: personality(2) only changes how later exec calls of this process map
        // memory; the original value is restored at once.
        unsafe {
            let current = libc::personality(0xffff_ffff);
            if current == -1 {
                return false;
            }
            let ok = libc::personality((current as libc::c_ulong) | ADDR_NO_RANDOMIZE) != -1;
            libc::personality(current as libc::c_ulong);
            ok
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_spread_over_the_page_and_repeat() {
        let offsets: Vec<u32> = (0..8)
            .map(|k| Placement::for_layout("tuple_return", k, 8).stack_offset)
            .collect();
        for (k, &offset) in offsets.iter().enumerate() {
            assert_eq!(offset % ALIGNMENT, 0);
            assert!(offset / 512 == k as u32, "layout {k} at {offset}");
        }
        assert_eq!(
            Placement::for_layout("tuple_return", 3, 8),
            Placement::for_layout("tuple_return", 3, 8)
        );
        let other: Vec<u32> = (0..8)
            .map(|k| Placement::for_layout("cons", k, 8).stack_offset)
            .collect();
        assert_ne!(
            offsets, other,
            "the offset within a stratum depends on the program"
        );
        assert!(Placement::for_layout("x", 0, 1).stack_offset < PAGE);
    }

    #[test]
    fn the_padding_cancels_the_path_length() {
        let placement = Placement { stack_offset: 160 };
        for path in ["/a/bench.exe", "/tmp/a/much/longer/run/directory/bench.exe"] {
            let path = Path::new(path);
            let runtime = vec![(OsString::from("OCAMLRUNPARAM"), OsString::from("s=4M"))];
            for kept in [vec![], runtime] {
                let entries: usize = kept.iter().map(|(k, v)| k.len() + v.len() + 2).sum();
                let strings = 2 * (path.as_os_str().len() + 1)
                    + entries
                    + PAD_VARIABLE.len()
                    + 2
                    + placement.pad_length(path, &kept);
                assert_eq!(strings % PAGE as usize, 160, "{path:?} {kept:?}");
            }
        }
    }
}
