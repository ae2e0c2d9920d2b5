//! One-shot native runs for checks and tests: ask a built binary (or a program built on the
//! spot) for the digest of `run (input n)` at some sizes, without the harness's timing.

use crate::build::{build, source_hash, BuildSpec, RuntimeObjects};
use crate::compiler::Compiler;
use crate::placement::Placement;
use crate::process::{DriverFault, DriverProcess};
use crate::protocol::{Reply, Request};
use std::path::Path;
use std::time::Duration;

/// Digests of `run (input n)` for each size from a built binary; each reply within `limit`.
pub fn digests_of_binary(
    binary: &Path,
    sizes: &[u64],
    limit: Duration,
) -> Result<Vec<(u64, String)>, (u64, DriverFault)> {
    let mut driver =
        DriverProcess::spawn(binary, None, Placement::default(), limit).map_err(|e| (0, e))?;
    let mut digests = Vec::with_capacity(sizes.len());
    for &size in sizes {
        let ask = |driver: &mut DriverProcess, request| {
            driver.request(request, limit).map_err(|e| (size, e))
        };
        ask(&mut driver, Request::Size(size))?;
        match ask(&mut driver, Request::Digest)? {
            Reply::Digest(d) => digests.push((size, d)),
            other => {
                return Err((
                    size,
                    DriverFault::Unexpected {
                        request: "digest".into(),
                        reply: format!("{other:?}"),
                    },
                ))
            }
        }
    }
    Ok(digests)
}

/// Digests of `run (input n)` for each size, from a native build (`ocamlopt` on PATH,
/// `-inline 0`). Errors are returned as one readable line.
pub fn native_digests(program: &Path, sizes: &[u64]) -> Result<Vec<String>, String> {
    let compiler = Compiler::discover(None, None).map_err(|e| e.to_string())?;
    let flags = vec!["-inline".to_string(), "0".to_string()];
    let tmp = std::env::temp_dir().join(format!(
        "mlcost-native-{}-{}",
        std::process::id(),
        source_hash(&program.display().to_string())
    ));
    let runtime = RuntimeObjects::prepare(&compiler, &flags, &tmp.join("runtime"), 1)
        .map_err(|e| e.to_string())?;
    let spec = BuildSpec {
        program,
        compiler: &compiler,
        flags: &flags,
        layout: 0,
        dir: &tmp.join("build"),
    };
    let binary = build(&spec, &runtime).map_err(|e| e.to_string())?;
    let result = digests_of_binary(&binary.path, sizes, Duration::from_secs(60));
    let _ = std::fs::remove_dir_all(&tmp);
    result
        .map(|d| d.into_iter().map(|(_, digest)| digest).collect())
        .map_err(|(size, e)| format!("{} at size {size}: {e}", program.display()))
}
