//! The suite's first stages, generate and build, and the walk of the manifest that tells the
//! harness which binaries to measure.

use crate::StageProgress;
use anyhow::Result;
use harness::BenchProgram;
use ocaml_runtime::{BuiltBinary, CompilerSetup};
use rundir::RunDir;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;
use training_gen::{BuildEvent, BuildOptions, Manifest, RenderContext};

/// What a suite run needs beyond `run.json` to be resumed exactly (`suite.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SuiteSettings {
    pub quick: bool,
    pub templates: Option<PathBuf>,
    #[serde(default)]
    pub no_builtin: bool,
    pub controls: Option<PathBuf>,
    /// Sizes measured per training program (all of the template's when absent).
    pub training_sizes: Option<usize>,
    pub control_sizes: Option<usize>,
}

impl SuiteSettings {
    pub fn load(run: &RunDir) -> Result<SuiteSettings> {
        Ok(rundir::read_json(&run.suite_file())?)
    }

    pub fn save(&self, run: &RunDir) -> Result<()> {
        Ok(rundir::write_json(&run.suite_file(), self)?)
    }
}

/// What generating and building left to report: the templates that could not be rendered and
/// the programs that cannot be measured, each with its reason.
pub struct Prepared {
    pub manifest: Manifest,
    pub template_errors: Vec<String>,
    pub build_failures: Vec<String>,
}

/// Generates the training suite into `run` and builds it with every compiler in every layout;
/// on `resume`, keeps a manifest in which every compiler's builds are already there.
pub fn prepare_suite(
    run: &RunDir,
    settings: &SuiteSettings,
    compilers: &[CompilerSetup],
    layouts: u32,
    resume: bool,
    progress: &mut dyn StageProgress,
) -> Result<Prepared> {
    let names: Vec<&str> = compilers.iter().map(|c| c.compiler.name.as_str()).collect();
    if resume && run.manifest_file().exists() {
        let manifest = Manifest::load(run.path())?;
        let built = !manifest.programs.is_empty()
            && manifest.programs.iter().all(|p| {
                names.iter().all(|c| {
                    p.builds.iter().filter(|b| b.compiler == *c).count() == layouts as usize
                })
            });
        if built {
            // Built by an mlcost that counted by other rules: the counts are this one's
            // before anything is measured, so that the fit at the end can use them.
            if manifest.counted_by == Some(semantics::catalogue_fingerprint()) {
                return Ok(Prepared {
                    manifest,
                    template_errors: Vec::new(),
                    build_failures: Vec::new(),
                });
            }
            let recount = recount_stage(run.path(), progress)?;
            return Ok(Prepared {
                manifest: Manifest::load(run.path())?,
                template_errors: Vec::new(),
                build_failures: recount.failures,
            });
        }
    }
    progress.stage("generate the training suite");
    let first = &compilers[0].compiler;
    let outcome = training_gen::generate(
        run.path(),
        settings.templates.as_deref(),
        !settings.no_builtin,
        &RenderContext {
            ocaml_version: first.version.clone(),
            word_size: first.word_bytes() * 8,
        },
    )?;
    let template_errors = outcome.errors.iter().map(|e| e.to_string()).collect();
    if let Some(k) = settings.training_sizes {
        let mut m = outcome.manifest;
        for p in &mut m.programs {
            p.sizes = validation::spread_sizes(&p.sizes, k);
        }
        m.save(run.path())?;
    }
    progress.stage("build and verify");
    let outcome = build_stage(
        run.path(),
        compilers,
        layouts,
        Duration::from_secs(60),
        progress,
    )?;
    Ok(Prepared {
        manifest: outcome.manifest,
        template_errors,
        build_failures: outcome.failures,
    })
}

/// Builds, verifies and counts the suite in `suite` (see [`training_gen::build_suite`]), showing
/// each step; the programs that cannot be measured are in the outcome's failures.
pub fn build_stage(
    suite: &Path,
    compilers: &[CompilerSetup],
    layouts: u32,
    timeout: Duration,
    progress: &mut dyn StageProgress,
) -> Result<training_gen::BuildOutcome> {
    let manifest = Manifest::load(suite)?;
    progress.start_build(training_gen::suite::build_steps(
        &manifest,
        compilers.len(),
        layouts,
    ));
    let shown: &dyn StageProgress = progress;
    let outcome = training_gen::build_suite(
        &BuildOptions {
            suite,
            compilers,
            layouts,
            timeout,
        },
        &|event: BuildEvent| shown.build_event(event),
    );
    progress.finish();
    Ok(outcome?)
}

/// Recounts the measured suite in `suite` with this mlcost's interpreter (see
/// [`training_gen::recount`]), one step per program.
pub fn recount_stage(
    suite: &Path,
    progress: &mut dyn StageProgress,
) -> Result<training_gen::RecountOutcome> {
    let manifest = Manifest::load(suite)?;
    progress.start_recount(manifest.programs.len());
    let shown: &dyn StageProgress = progress;
    let outcome = training_gen::recount_suite(suite, &|program| {
        shown.build_event(BuildEvent::Counted { program })
    });
    progress.finish();
    Ok(outcome?)
}

/// The programs every compiler built and verified in all `layouts`, and their binaries as the
/// harness takes them: `binaries[compiler][program][layout]`.
pub fn binaries_for(
    manifest: &Manifest,
    run_dir: &Path,
    compilers: &[String],
    layouts: u32,
) -> (Vec<BenchProgram>, Vec<Vec<Vec<BuiltBinary>>>) {
    let usable: Vec<&training_gen::ProgramEntry> = manifest
        .programs
        .iter()
        .filter(|p| {
            compilers.iter().all(|c| {
                let builds: Vec<_> = p.builds.iter().filter(|b| &b.compiler == c).collect();
                builds.len() == layouts as usize && builds.iter().all(|b| b.verified())
            })
        })
        .collect();
    let programs = usable
        .iter()
        .map(|p| BenchProgram {
            name: p.name.clone(),
            path: run_dir.join(&p.source),
            sizes: p.sizes.clone(),
        })
        .collect();
    let binaries = compilers
        .iter()
        .map(|c| {
            usable
                .iter()
                .map(|p| {
                    let mut builds: Vec<_> = p.builds.iter().filter(|b| &b.compiler == c).collect();
                    builds.sort_by_key(|b| b.layout);
                    builds
                        .iter()
                        .map(|b| BuiltBinary {
                            path: run_dir
                                .join(b.binary.as_ref().expect("verified builds have a binary")),
                            assembly: run_dir.join(b.assembly.clone().unwrap_or_default()),
                            layout: b.layout,
                            layout_offset: b.layout_offset,
                            source_sha256: p.source_sha256.clone(),
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    (programs, binaries)
}
