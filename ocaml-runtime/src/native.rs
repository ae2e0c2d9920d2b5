//! One-shot native runs for tests and checks: build a program with the default compiler and
//! ask the driver for digests, without the harness's timing machinery.

use crate::build::{build, BuildSpec, RuntimeObjects};
use crate::compiler::Compiler;
use crate::protocol::{parse_reply, Reply, Request};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Digests of `run (input n)` for each size, from a native build (`ocamlopt` on PATH,
/// `-inline 0`). Errors are returned as one readable line.
pub fn native_digests(program: &Path, sizes: &[u64]) -> Result<Vec<String>, String> {
    let compiler = Compiler::discover(None, None).map_err(|e| e.to_string())?;
    let flags = vec!["-inline".to_string(), "0".to_string()];
    let tmp = std::env::temp_dir().join(format!(
        "mlcost-native-{}-{}",
        std::process::id(),
        crate::build::source_hash(&program.display().to_string())
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
    let mut script = String::new();
    for &n in sizes {
        script.push_str(&format!("{}\n{}\n", Request::Size(n), Request::Digest));
    }
    script.push_str(&format!("{}\n", Request::Quit));
    let mut child = Command::new(&binary.path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", binary.path.display()))?;
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(script.as_bytes())
        .map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&tmp);
    let mut digests = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        match parse_reply(line).map_err(|e| format!("{}: {e}", program.display()))? {
            Reply::Digest(d) => digests.push(d),
            Reply::Error { kind, message } => {
                return Err(format!("{}: {kind}: {message}", program.display()))
            }
            _ => {}
        }
    }
    if digests.len() != sizes.len() {
        return Err(format!(
            "{}: the driver answered {} digests for {} sizes ({})",
            program.display(),
            digests.len(),
            sizes.len(),
            out.status
        ));
    }
    Ok(digests)
}
