//! The two stages this crate runs: `generate` (templates → programs + manifest) and
//! `build_suite` (programs → binaries per compiler and layout, verified against their
//! templates' assembly checks and against the interpreter's digests, plus `counts.json`).

use crate::manifest::{BuildEntry, Manifest, ManifestError, ProgramEntry};
use crate::render::{render_all, RenderContext};
use crate::template::{builtin, discover, TemplateError};
use crate::verify::run_check;
use ocaml_runtime::build::{sanitize, source_hash};
use ocaml_runtime::{build_layout, digests_of_binary, CompilerSetup, RuntimeObjects};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use rundir::COUNTS_FILE;
/// Where `generate` writes the programs, inside the suite directory.
pub const PROGRAMS_DIR: &str = "programs";

#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    RunDir(#[from] ManifestError),
    #[error(transparent)]
    Template(#[from] TemplateError),
    #[error("{0}")]
    Driver(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SuiteError + '_ {
    move |source| SuiteError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What `generate` produced: the manifest, and the templates it had to skip.
#[derive(Debug)]
pub struct GenOutcome {
    pub manifest: Manifest,
    pub errors: Vec<TemplateError>,
}

/// Renders the built-in templates (unless `with_builtins` is false) and those under
/// `user_templates` into `out`. The built-in macros are available to user templates either way.
pub fn generate(
    out: &Path,
    user_templates: Option<&Path>,
    with_builtins: bool,
    context: &RenderContext,
) -> Result<GenOutcome, SuiteError> {
    let (mut templates, macros) = builtin();
    if !with_builtins {
        templates.clear();
    }
    let mut macro_files = vec![(crate::template::MACRO_FILE.to_string(), macros)];
    if let Some(dir) = user_templates {
        if !dir.is_dir() {
            return Err(SuiteError::Io {
                path: dir.to_path_buf(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no such template directory",
                ),
            });
        }
        let (user, user_macros) = discover(dir)?;
        templates.extend(user);
        if let Some(text) = user_macros {
            macro_files.push((crate::template::USER_MACRO_FILE.to_string(), text));
        }
    }
    let (programs, errors) = render_all(&templates, &macro_files, context);
    let programs_dir = out.join(PROGRAMS_DIR);
    std::fs::create_dir_all(&programs_dir).map_err(io(&programs_dir))?;
    let mut entries = Vec::new();
    for program in programs {
        let file = PathBuf::from(PROGRAMS_DIR).join(format!("{}.ml", program.name));
        let path = out.join(&file);
        std::fs::write(&path, &program.source).map_err(io(&path))?;
        let mut constructs = vec![program.construct.clone()];
        constructs.extend(program.also.iter().cloned());
        entries.push(ProgramEntry {
            name: program.name,
            template: program.template,
            origin: program.origin,
            constructs,
            sizes: program.sizes,
            notes: program.notes,
            source: file,
            source_sha256: source_hash(&program.source),
            checks: program.checks,
            builds: Vec::new(),
        });
    }
    let manifest = Manifest {
        programs: entries,
        template_errors: errors.iter().map(|e| e.to_string()).collect(),
        counted_by: None,
    };
    manifest.save(out)?;
    Ok(GenOutcome { manifest, errors })
}

/// The interpreter's counts for one (program, size): a row of `counts.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgramCounts {
    pub program: String,
    pub size: u64,
    pub counts: BTreeMap<String, u64>,
    pub digest: String,
}

#[derive(Debug, Clone, Copy)]
pub enum BuildEvent<'a> {
    Counted {
        program: &'a str,
    },
    Built {
        program: &'a str,
        compiler: &'a str,
        layout: u32,
    },
}

pub struct BuildOptions<'a> {
    pub suite: &'a Path,
    pub compilers: &'a [CompilerSetup],
    pub layouts: u32,
    /// Longest wait for a digest from a binary.
    pub timeout: Duration,
}

#[derive(Debug)]
pub struct BuildOutcome {
    pub manifest: Manifest,
    pub counts: Vec<ProgramCounts>,
    /// One line per program (and compiler) that cannot be used, saying why.
    pub failures: Vec<String>,
}

/// How many steps `build_suite` reports: one count per program, one build per variant.
pub fn build_steps(manifest: &Manifest, compilers: usize, layouts: u32) -> usize {
    manifest.programs.len() * (1 + compilers * layouts as usize)
}

fn count_program(
    suite: &Path,
    entry: &ProgramEntry,
    on_event: &(dyn Fn(BuildEvent) + Sync),
) -> Result<Vec<ProgramCounts>, String> {
    let rows = semantics::Program::count_at_sizes(&suite.join(&entry.source), &entry.sizes).map(
        |results| {
            results
                .into_iter()
                .map(|r| ProgramCounts {
                    program: entry.name.clone(),
                    size: r.size as u64,
                    counts: r.counts,
                    digest: r.digest,
                })
                .collect()
        },
    );
    on_event(BuildEvent::Counted {
        program: &entry.name,
    });
    rows
}

/// Builds, checks and counts the whole suite; saves the manifest and `counts.json`.
pub fn build_suite(
    options: &BuildOptions,
    on_event: &(dyn Fn(BuildEvent) + Sync),
) -> Result<BuildOutcome, SuiteError> {
    let suite = &std::path::absolute(options.suite).map_err(io(options.suite))?;
    let mut manifest = Manifest::load(suite)?;
    let mut runtimes = Vec::new();
    for setup in options.compilers {
        let dir = suite
            .join("build")
            .join(sanitize(&setup.compiler.name))
            .join("runtime");
        runtimes.push(
            RuntimeObjects::prepare(&setup.compiler, &setup.flags, &dir, options.layouts)
                .map_err(|e| SuiteError::Driver(format!("{}: {e}", setup.compiler.name)))?,
        );
    }

    let counted: Vec<Result<Vec<ProgramCounts>, String>> = manifest
        .programs
        .par_iter()
        .map(|entry| count_program(suite, entry, on_event))
        .collect();

    let tasks: Vec<(usize, usize, u32)> = (0..manifest.programs.len())
        .flat_map(|p| {
            (0..options.compilers.len())
                .flat_map(move |c| (0..options.layouts).map(move |l| (p, c, l)))
        })
        .collect();
    let built: Vec<BuildEntry> = tasks
        .par_iter()
        .map(|&(p, c, layout)| {
            let entry = &manifest.programs[p];
            let setup = &options.compilers[c];
            let result = build_variant(suite, entry, setup, &runtimes[c], layout);
            on_event(BuildEvent::Built {
                program: &entry.name,
                compiler: &setup.compiler.name,
                layout,
            });
            result
        })
        .collect();

    let mut failures = Vec::new();
    let mut counts = Vec::new();
    let mut built = built.into_iter();
    for (entry, counted) in manifest.programs.iter_mut().zip(counted) {
        entry.builds = built
            .by_ref()
            .take(options.compilers.len() * options.layouts as usize)
            .collect();
        match counted {
            Ok(rows) => {
                agree_on_digests(suite, entry, &rows, options.timeout);
                counts.extend(rows);
            }
            Err(why) => {
                for b in &mut entry.builds {
                    b.error.get_or_insert_with(|| why.clone());
                }
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        for b in entry.builds.iter().filter(|b| !b.verified()) {
            let why = b.error.clone().unwrap_or_default();
            if seen.insert((b.compiler.clone(), why.clone())) {
                failures.push(format!("{} ({}): {why}", entry.name, b.compiler));
            }
        }
    }
    manifest.counted_by = Some(semantics::catalogue_fingerprint());
    manifest.save(suite)?;
    rundir::write_json(&rundir::RunDir::new(suite).counts_file(), &counts)?;
    Ok(BuildOutcome {
        manifest,
        counts,
        failures,
    })
}

fn build_variant(
    suite: &Path,
    entry: &ProgramEntry,
    setup: &CompilerSetup,
    runtime: &RuntimeObjects,
    layout: u32,
) -> BuildEntry {
    let base = suite
        .join("build")
        .join(sanitize(&setup.compiler.name))
        .join(sanitize(&entry.name));
    let mut out = BuildEntry {
        compiler: setup.compiler.name.clone(),
        version: setup.compiler.version.clone(),
        flags: setup.flags.clone(),
        layout,
        layout_offset: runtime.layout_offset(layout).unwrap_or(0),
        binary: None,
        assembly: None,
        checks: Vec::new(),
        digests_agree: None,
        error: None,
    };
    let binary = match build_layout(&suite.join(&entry.source), setup, runtime, &base, layout) {
        Ok(b) => b,
        Err(e) => {
            out.error = Some(format!("does not compile: {e}"));
            return out;
        }
    };
    let relative = |p: &Path| {
        p.strip_prefix(suite)
            .map_or_else(|_| p.to_path_buf(), Path::to_path_buf)
    };
    out.binary = Some(relative(&binary.path));
    out.assembly = Some(relative(&binary.assembly));
    match std::fs::read_to_string(&binary.assembly) {
        Ok(asm) => {
            out.checks = entry
                .checks
                .iter()
                .map(|c| run_check(c, &asm, setup.compiler.architecture()))
                .collect();
            let failed: Vec<String> = out
                .checks
                .iter()
                .filter(|c| !c.ok)
                .filter_map(|c| c.message.clone())
                .collect();
            if !failed.is_empty() {
                out.error = Some(format!("verification failed: {}", failed.join("; ")));
            }
        }
        Err(e) => out.error = Some(format!("{}: {e}", binary.assembly.display())),
    }
    out
}

/// Native digests of layout 0 of each compiler against the interpreter's, at every size.
fn agree_on_digests(
    suite: &Path,
    entry: &mut ProgramEntry,
    rows: &[ProgramCounts],
    timeout: Duration,
) {
    let sizes: Vec<u64> = rows.iter().map(|r| r.size).collect();
    let compilers: Vec<String> = entry.builds.iter().map(|b| b.compiler.clone()).collect();
    for compiler in compilers {
        let Some(binary) = entry
            .builds
            .iter()
            .find(|b| b.compiler == compiler && b.layout == 0)
            .and_then(|b| b.binary.clone())
        else {
            continue;
        };
        let verdict = match digests_of_binary(&suite.join(binary), &sizes, timeout) {
            Ok(native) => native
                .iter()
                .zip(rows)
                .find(|((_, n), row)| *n != row.digest)
                .map(|((size, n), row)| {
                    format!(
                        "native and interpreter results differ at size {size} (digest {n} vs {}): the counts would not describe the timed code",
                        row.digest
                    )
                }),
            Err((size, e)) => Some(format!("the binary failed at size {size}: {e}")),
        };
        for b in entry.builds.iter_mut().filter(|b| b.compiler == compiler) {
            b.digests_agree = Some(verdict.is_none());
            if let Some(why) = &verdict {
                b.error.get_or_insert_with(|| why.clone());
            }
        }
    }
}
