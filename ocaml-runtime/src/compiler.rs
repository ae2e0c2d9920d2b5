//! Finding and describing an `ocamlopt`: its version and `-config` are recorded with every
//! run, and a compiler unpacked into another prefix (say an old Debian release extracted with
//! `dpkg -x`) is pointed at its own standard library through `OCAMLLIB`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, thiserror::Error)]
pub enum CompilerError {
    #[error("cannot run {path}: {source}{hint}")]
    NotRunnable {
        path: PathBuf,
        source: std::io::Error,
        hint: &'static str,
    },
    #[error("{path} -{flag} failed: {stderr}")]
    Failed {
        path: PathBuf,
        flag: &'static str,
        stderr: String,
    },
}

/// One compiler under test, as recorded in manifests, estimates and the history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compiler {
    /// The name the user gave it (`--compiler 4.13=/usr/bin/ocamlopt`), or its version.
    pub name: String,
    pub path: PathBuf,
    pub version: String,
    /// `ocamlopt -config`, parsed into `key: value` pairs.
    pub config: BTreeMap<String, String>,
    /// Set when the compiler lives outside the prefix it was configured for.
    pub ocamllib: Option<PathBuf>,
}

/// A compiler with the flags it is used with: one "compiler under test".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompilerSetup {
    pub compiler: Compiler,
    pub flags: Vec<String>,
}

const INSTALL_HINT: &str =
    " (install OCaml's native compiler: `apt-get install -y ocaml-nox`, or pass --compiler PATH)";

impl Compiler {
    /// Describes the compiler at `path` (`ocamlopt` from PATH when `None`). An `OCAMLLIB` already
    /// in the environment is respected; otherwise a relocated compiler's library is found beside
    /// its `bin/`.
    pub fn discover(name: Option<&str>, path: Option<&Path>) -> Result<Compiler, CompilerError> {
        let path = path.map_or_else(|| PathBuf::from("ocamlopt"), Path::to_path_buf);
        let mut compiler = Compiler {
            name: String::new(),
            path,
            version: String::new(),
            config: BTreeMap::new(),
            ocamllib: None,
        };
        if std::env::var_os("OCAMLLIB").is_none() {
            compiler.ocamllib = compiler.relocated_library()?;
        }
        compiler.version = compiler.query("version")?.trim().to_string();
        compiler.config = parse_config(&compiler.query("config")?);
        compiler.name = name.map_or_else(|| compiler.version.clone(), str::to_string);
        Ok(compiler)
    }

    /// A command running this compiler with the right environment.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(&self.path);
        if let Some(lib) = &self.ocamllib {
            cmd.env("OCAMLLIB", lib);
        }
        cmd
    }

    /// Bytes per word of the target (`word_size` in `-config`; 8 when absent).
    pub fn word_bytes(&self) -> u32 {
        self.config
            .get("word_size")
            .and_then(|w| w.parse::<u32>().ok())
            .map_or(8, |bits| bits / 8)
    }

    pub fn architecture(&self) -> &str {
        self.config
            .get("architecture")
            .map_or("unknown", |a| a.as_str())
    }

    fn query(&self, flag: &'static str) -> Result<String, CompilerError> {
        let out = self
            .command()
            .arg(format!("-{flag}"))
            .output()
            .map_err(|source| CompilerError::NotRunnable {
                path: self.path.clone(),
                source,
                hint: INSTALL_HINT,
            })?;
        if !out.status.success() {
            return Err(CompilerError::Failed {
                path: self.path.clone(),
                flag,
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// `<prefix>/lib/ocaml` when the compiler sits in `<prefix>/bin` and its configured
    /// standard library (`-where`) is elsewhere; such a compiler would otherwise read another
    /// release's `.cmi` files and fail with "inconsistent assumptions".
    fn relocated_library(&self) -> Result<Option<PathBuf>, CompilerError> {
        let Some(bin_dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) else {
            return Ok(None);
        };
        let beside = bin_dir.join("../lib/ocaml");
        if !beside.join("stdlib.cmxa").is_file() {
            return Ok(None);
        }
        let configured = PathBuf::from(self.query("where")?.trim());
        let same = match (beside.canonicalize(), configured.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        Ok((!same).then(|| beside.canonicalize().unwrap_or(beside)))
    }
}

fn parse_config(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|line| line.split_once(": "))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_lines_become_pairs() {
        let cfg = parse_config(
            "version: 4.13.1\nword_size: 64\narchitecture: amd64\nflat_float_array: true\n",
        );
        assert_eq!(cfg["word_size"], "64");
        assert_eq!(cfg["architecture"], "amd64");
        assert_eq!(cfg.len(), 4);
    }

    #[test]
    fn missing_compiler_is_a_clear_error() {
        let err = Compiler::discover(None, Some(Path::new("/nonexistent/ocamlopt"))).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("/nonexistent/ocamlopt") && msg.contains("ocaml-nox"),
            "{msg}"
        );
    }
}
