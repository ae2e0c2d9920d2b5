//! A real benchmark binary started at a placement: its stack starts where the placement
//! says, in whatever directory the binary sits, and the same placement gives the same
//! addresses every time.

use ocaml_runtime::{
    build, fixed_addresses_available, BuildSpec, Compiler, DriverProcess, Placement, RuntimeObjects,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn built_binary(out: &Path) -> PathBuf {
    let prog = out.join("prog.ml");
    std::fs::write(&prog, "let input n = n\nlet run n = n + 1\n").unwrap();
    let compiler = Compiler::discover(None, None).unwrap();
    let flags = vec!["-inline".to_string(), "0".to_string()];
    let runtime = RuntimeObjects::prepare(&compiler, &flags, &out.join("rt"), 1).unwrap();
    let spec = BuildSpec {
        program: &prog,
        compiler: &compiler,
        flags: &flags,
        layout: 0,
        dir: &out.join("layout-0"),
    };
    build(&spec, &runtime).unwrap().path
}

/// Where the process's stack started (`startstack` in `/proc/PID/stat`) and where its heap
/// starts (the first `[heap]` mapping).
fn addresses(binary: &Path, placement: Placement) -> (u64, String) {
    let driver = DriverProcess::spawn(binary, None, placement, Duration::from_secs(10)).unwrap();
    let pid = driver.pid();
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name, which is in parentheses; startstack is field 28.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let start_stack: u64 = after.split(' ').nth(25).unwrap().parse().unwrap();
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap();
    let heap = maps
        .lines()
        .find(|l| l.ends_with("[heap]"))
        .map(|l| l.split('-').next().unwrap().to_string())
        .unwrap_or_default();
    (start_stack, heap)
}

#[test]
fn the_stack_starts_at_the_placed_offset_wherever_the_binary_is() {
    if !fixed_addresses_available() {
        eprintln!("address randomisation cannot be turned off here; nothing to check");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let binary = built_binary(tmp.path());
    // The same binary under a much longer path.
    let deep = tmp
        .path()
        .join("a-much-longer-directory-name/and/another/level");
    std::fs::create_dir_all(&deep).unwrap();
    let moved = deep.join("bench.exe");
    std::fs::copy(&binary, &moved).unwrap();

    let at = |offset| Placement {
        stack_offset: offset,
    };
    let (stack_0, heap_0) = addresses(&binary, at(0));
    let (again, heap_again) = addresses(&binary, at(0));
    assert_eq!(
        (stack_0, &heap_0),
        (again, &heap_again),
        "same placement, same addresses"
    );
    let (stack_512, _) = addresses(&binary, at(512));
    assert_eq!(
        stack_0.wrapping_sub(stack_512) % 4096,
        512,
        "the stack moved by the offset, within its page"
    );
    let (moved_0, _) = addresses(&moved, at(0));
    assert_eq!(
        moved_0 % 4096,
        stack_0 % 4096,
        "the path's length is compensated"
    );
    let (moved_1024, _) = addresses(&moved, at(1024));
    assert_eq!(moved_0.wrapping_sub(moved_1024) % 4096, 1024);
}
