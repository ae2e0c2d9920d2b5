//! Compiling a benchmark program together with the driver into native binaries, one per code
//! layout.
//!
//! Layout variant `j` links a padding module that lands, in the text section, just before the
//! program (`ocamlopt` lays out compilation units in the reverse of their command-line order),
//! so every function of the program moves while the driver and the standard library stay put.
//! The padding's size is measured, not assumed: each extra function adds its own 16 aligned
//! bytes *and* a few bytes of module initialisation, so [`RuntimeObjects::prepare`] compiles
//! candidates and picks, for variant `j`, the smallest one that moves the program by
//! `16·j` bytes modulo a 64-byte cache line. The program's source is left untouched: compiler
//! messages keep naming the user's file and line through a `# 1 "file"` line directive.

use crate::compiler::{Compiler, CompilerError};
use sha2::{Digest as _, Sha256};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const DRIVER_ML: &str = include_str!("../ocaml/mlcost_driver.ml");
const STUBS_C: &str = include_str!("../ocaml/mlcost_stubs.c");
/// The canary benchmark (a fixed mix of calls, arithmetic and allocation) that the harness
/// measures between visits to watch the machine's own speed.
pub const CANARY_ML: &str = include_str!("../ocaml/mlcost_canary.ml");
const PROGRAM_MODULE: &str = "bench_program";

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("{location}: {message}")]
    Compile { location: String, message: String },
    #[error("{program}: not a benchmark program: {message} (it must define `input : int -> 'a` and `run : 'a -> 'b`)")]
    Shape { program: PathBuf, message: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Compiler(#[from] CompilerError),
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
    move |source| BuildError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Alignment of a compilation unit's text in the linked binary.
const UNIT_ALIGN_BYTES: u64 = 16;
/// The period of the layout effect (docs/measuring.md): one cache line.
const LAYOUT_PERIOD_BYTES: u64 = 64;
/// Most padding functions tried when looking for a layout's offset.
const MAX_PAD_FUNCTIONS: u32 = 64;

/// The driver and its C stubs compiled once for a (compiler, flags) pair, reused by every
/// program and layout built with them, and the padding chosen for each layout variant.
#[derive(Debug, Clone)]
pub struct RuntimeObjects {
    dir: PathBuf,
    /// `pad_functions[j]`: how many padding functions variant `j` links.
    pad_functions: Vec<u32>,
    /// `pad_offsets[j]`: how many bytes variant `j` moves the program by.
    pad_offsets: Vec<u64>,
}

impl RuntimeObjects {
    /// Compiles the driver and chooses the padding of `layouts` variants.
    pub fn prepare(
        compiler: &Compiler,
        flags: &[String],
        dir: &Path,
        layouts: u32,
    ) -> Result<Self, BuildError> {
        let dir = &std::path::absolute(dir).map_err(io_error(dir))?;
        fs::create_dir_all(dir).map_err(io_error(dir))?;
        let driver = dir.join("mlcost_driver.ml");
        let stubs = dir.join("mlcost_stubs.c");
        fs::write(&driver, DRIVER_ML).map_err(io_error(&driver))?;
        fs::write(&stubs, STUBS_C).map_err(io_error(&stubs))?;
        let mut cmd = compiler.command();
        cmd.current_dir(dir)
            .args(flags)
            .args(["-c", "mlcost_stubs.c", "mlcost_driver.ml"]);
        run_compiler(cmd, compiler, |_| None, dir)?;
        let (pad_functions, pad_offsets) = choose_padding(compiler, flags, dir, layouts)?;
        Ok(RuntimeObjects {
            dir: dir.to_path_buf(),
            pad_functions,
            pad_offsets,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn layouts(&self) -> u32 {
        self.pad_functions.len() as u32
    }

    /// Bytes by which variant `layout` moves the program's code.
    pub fn layout_offset(&self, layout: u32) -> Option<u64> {
        self.pad_offsets.get(layout as usize).copied()
    }
}

/// For each variant `j`, the fewest padding functions whose unit moves the program by
/// `16·j` bytes modulo 64 (and at least `16·j`, so variants beyond four keep moving).
fn choose_padding(
    compiler: &Compiler,
    flags: &[String],
    dir: &Path,
    layouts: u32,
) -> Result<(Vec<u32>, Vec<u64>), BuildError> {
    let probe = dir.join("pad-probe");
    fs::create_dir_all(&probe).map_err(io_error(&probe))?;
    let mut sizes: Vec<u64> = Vec::new();
    let mut size_of = |m: u32| -> Result<u64, BuildError> {
        while sizes.len() <= m as usize {
            let count = sizes.len() as u32;
            let src = probe.join("mlcost_pad.ml");
            fs::write(&src, padding_module(count)).map_err(io_error(&src))?;
            let mut cmd = compiler.command();
            cmd.current_dir(&probe)
                .args(flags)
                .args(["-c", "mlcost_pad.ml"]);
            run_compiler(cmd, compiler, |_| None, &src)?;
            let text = text_section_size(&probe.join("mlcost_pad.o"))?;
            sizes.push(text.div_ceil(UNIT_ALIGN_BYTES) * UNIT_ALIGN_BYTES);
        }
        Ok(sizes[m as usize])
    };
    let base = size_of(0)?;
    let (mut functions, mut offsets) = (Vec::new(), Vec::new());
    for j in 0..u64::from(layouts) {
        let wanted = j * UNIT_ALIGN_BYTES;
        let mut found = None;
        for m in 0..=MAX_PAD_FUNCTIONS {
            let offset = size_of(m)? - base;
            if offset >= wanted && offset % LAYOUT_PERIOD_BYTES == wanted % LAYOUT_PERIOD_BYTES {
                found = Some((m, offset));
                break;
            }
        }
        let (m, offset) = found.ok_or_else(|| BuildError::Compile {
            location: probe.display().to_string(),
            message: format!(
                "no padding of at most {MAX_PAD_FUNCTIONS} functions moves code by {wanted} bytes \
                 modulo {LAYOUT_PERIOD_BYTES} with {}: use fewer --layouts",
                compiler.name
            ),
        })?;
        functions.push(m);
        offsets.push(offset);
    }
    Ok((functions, offsets))
}

/// Size of the `.text` section of an object file, read with binutils' `size` (installed with
/// the C toolchain `ocamlopt` needs anyway).
fn text_section_size(object: &Path) -> Result<u64, BuildError> {
    let out = Command::new("size")
        .arg("-A")
        .arg(object)
        .output()
        .map_err(io_error(Path::new("size")))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|line| {
            let mut parts = line.split_whitespace();
            (parts.next()? == ".text").then(|| parts.next()?.parse().ok())?
        })
        .ok_or_else(|| BuildError::Io {
            path: object.to_path_buf(),
            source: std::io::Error::other("no .text section reported by `size -A`"),
        })
}

/// What to build: one program, one layout, into `dir`.
#[derive(Debug, Clone)]
pub struct BuildSpec<'a> {
    pub program: &'a Path,
    pub compiler: &'a Compiler,
    pub flags: &'a [String],
    pub layout: u32,
    pub dir: &'a Path,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltBinary {
    pub path: PathBuf,
    /// The program's assembly (`-S`), for checking what the compiler kept.
    pub assembly: PathBuf,
    pub layout: u32,
    /// Bytes by which this variant's code is moved relative to variant 0.
    pub layout_offset: u64,
    pub source_sha256: String,
}

/// File-system-safe form of a program or compiler name (for build and output directories).
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Hex SHA-256 of a program's source, as recorded in manifests.
pub fn source_hash(source: &str) -> String {
    Sha256::digest(source.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Builds layout variant `layout` of `program` with `setup` into `base/layout-<layout>`: the one
/// place a variant's directory is named, so training programs and control programs are built
/// alike.
pub fn build_layout(
    program: &Path,
    setup: &crate::CompilerSetup,
    runtime: &RuntimeObjects,
    base: &Path,
    layout: u32,
) -> Result<BuiltBinary, BuildError> {
    build(
        &BuildSpec {
            program,
            compiler: &setup.compiler,
            flags: &setup.flags,
            layout,
            dir: &layout_dir(base, layout),
        },
        runtime,
    )
}

/// Where [`build_layout`] builds layout `layout` of a program under `base`.
fn layout_dir(base: &Path, layout: u32) -> PathBuf {
    base.join(format!("layout-{layout}"))
}

/// The binary [`build_layout`] makes for layout `layout` of a program under `base`.
pub fn layout_binary(base: &Path, layout: u32) -> PathBuf {
    layout_dir(base, layout).join(BINARY)
}

/// The file name of every built benchmark binary.
const BINARY: &str = "bench.exe";

pub fn build(spec: &BuildSpec, runtime: &RuntimeObjects) -> Result<BuiltBinary, BuildError> {
    let program = spec.program;
    let dir = &std::path::absolute(spec.dir).map_err(io_error(spec.dir))?;
    let source = fs::read_to_string(program).map_err(io_error(program))?;
    fs::create_dir_all(dir).map_err(io_error(dir))?;
    let shown_path = program
        .canonicalize()
        .unwrap_or_else(|_| program.to_path_buf());
    let module_src = format!("# 1 {:?}\n{source}", shown_path.display().to_string());
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        fs::write(&path, text).map_err(io_error(&path))
    };
    write(&format!("{PROGRAM_MODULE}.ml"), &module_src)?;
    let pad = runtime
        .pad_functions
        .get(spec.layout as usize)
        .copied()
        .ok_or_else(|| BuildError::Compile {
            location: program.display().to_string(),
            message: format!(
                "layout {} requested but only {} prepared",
                spec.layout,
                runtime.layouts()
            ),
        })?;
    write("mlcost_pad.ml", &padding_module(pad))?;
    write(
        "mlcost_main.ml",
        "let () = Mlcost_driver.main ~input:Bench_program.input ~run:Bench_program.run\n",
    )?;
    let binary = dir.join(BINARY);
    let rt = runtime.dir();
    let mut cmd = spec.compiler.command();
    cmd.current_dir(dir)
        .args(spec.flags)
        .arg("-S")
        .arg("-I")
        .arg(rt)
        .arg("-o")
        .arg(&binary)
        .arg(rt.join("mlcost_stubs.o"))
        .arg(format!("{PROGRAM_MODULE}.ml"))
        .arg("mlcost_pad.ml")
        .arg(rt.join("mlcost_driver.cmx"))
        .arg("mlcost_main.ml");
    run_compiler(
        cmd,
        spec.compiler,
        |stderr| shape_error(program, stderr),
        program,
    )?;
    Ok(BuiltBinary {
        path: binary,
        assembly: dir.join(format!("{PROGRAM_MODULE}.s")),
        layout: spec.layout,
        layout_offset: runtime.layout_offset(spec.layout).unwrap_or(0),
        source_sha256: source_hash(&source),
    })
}

fn padding_module(layout: u32) -> String {
    let mut text = String::from("(* mlcost layout padding: moves the program's code. *)\n");
    for i in 0..layout {
        text.push_str(&format!("let[@inline never] mlcost_pad_{i} x = x\n"));
    }
    text
}

/// Errors located in the generated main module mean the program lacks the benchmark shape.
fn shape_error(program: &Path, stderr: &str) -> Option<BuildError> {
    let about_the_program =
        stderr.contains("Bench_program") || stderr.contains("This expression has type");
    if !stderr.contains("\"mlcost_main.ml\"") || !about_the_program {
        return None;
    }
    let message = error_text(stderr);
    let message = if message.contains("Unbound value Bench_program.input") {
        "no `input` function".to_string()
    } else if message.contains("Unbound value Bench_program.run") {
        "no `run` function".to_string()
    } else {
        format!("`run` cannot take what `input` returns: {message}")
    };
    Some(BuildError::Shape {
        program: program.to_path_buf(),
        message,
    })
}

fn run_compiler(
    mut cmd: Command,
    compiler: &Compiler,
    classify: impl Fn(&str) -> Option<BuildError>,
    subject: &Path,
) -> Result<(), BuildError> {
    let out = cmd.output().map_err(|source| CompilerError::NotRunnable {
        path: compiler.path.clone(),
        source,
        hint: "",
    })?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    if let Some(err) = classify(&stderr) {
        return Err(err);
    }
    let location = error_location(&stderr).unwrap_or_else(|| subject.display().to_string());
    Err(BuildError::Compile {
        location,
        message: format!(
            "{} ({} {})",
            error_text(&stderr),
            compiler.name,
            compiler.path.display()
        ),
    })
}

/// `file:line:column` from the last `File "…", line L, characters C-D:` header before `Error`.
fn error_location(stderr: &str) -> Option<String> {
    let error_at = stderr.find("Error").unwrap_or(stderr.len());
    let header = stderr[..error_at].rfind("File \"")?;
    let rest = &stderr[header + 6..];
    let (file, rest) = rest.split_once('"')?;
    let line = rest
        .split_once("line ")
        .and_then(|(_, r)| r.split(|c: char| !c.is_ascii_digit()).next())
        .filter(|l| !l.is_empty())?;
    let column = rest
        .split_once("characters ")
        .and_then(|(_, r)| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|c| c.parse::<u32>().ok());
    Some(match column {
        Some(c) => format!("{file}:{line}:{}", c + 1),
        None => format!("{file}:{line}"),
    })
}

/// The compiler's message from `Error` on, folded onto one line.
fn error_text(stderr: &str) -> String {
    let from = stderr.find("Error").unwrap_or(0);
    let text = stderr[from..].trim();
    let text = text.strip_prefix("Error: ").unwrap_or(text);
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Address of the first text symbol whose name starts with `prefix` (via `nm`), e.g.
/// `camlBench_program__fapp_` — how a test shows that layouts really move code.
pub fn symbol_address(binary: &Path, prefix: &str) -> Result<Option<u64>, BuildError> {
    let out = Command::new("nm")
        .arg(binary)
        .output()
        .map_err(io_error(Path::new("nm")))?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text.lines().find_map(|line| {
        let mut parts = line.split_whitespace();
        let (addr, kind, name) = (parts.next()?, parts.next()?, parts.next()?);
        (matches!(kind, "T" | "t") && name.starts_with(prefix))
            .then(|| u64::from_str_radix(addr, 16).ok())
            .flatten()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiler_locations_are_one_based_columns() {
        let stderr = "File \"/tmp/p.ml\", line 3, characters 10-11:\n3 | let run l = x\n              ^\nError: Unbound value x\n";
        assert_eq!(error_location(stderr).as_deref(), Some("/tmp/p.ml:3:11"));
        assert_eq!(error_text(stderr), "Unbound value x");
    }

    #[test]
    fn padding_has_one_function_per_step() {
        assert_eq!(padding_module(0).matches("let[@inline never]").count(), 0);
        assert_eq!(padding_module(3).matches("let[@inline never]").count(), 3);
    }
}
