//! `mlcost gen`: render the training suite.

use anyhow::Result;
use clap::Args;
use ocaml_runtime::Compiler;
use std::path::PathBuf;
use std::process::ExitCode;
use training_gen::RenderContext;

#[derive(Args, Debug)]
pub struct GenArgs {
    /// Suite directory to write (programs and manifest.json).
    #[arg(long, default_value = "suite")]
    pub out: PathBuf,
    /// A directory of your own templates, rendered beside the built-in ones.
    #[arg(long)]
    pub templates: Option<PathBuf>,
    /// Render only the templates of --templates, not the built-in ones.
    #[arg(long, requires = "templates")]
    pub no_builtin: bool,
    /// The compiler the templates are rendered for (default: `ocamlopt` on PATH).
    #[arg(long, value_name = "PATH")]
    pub compiler: Option<PathBuf>,
    /// Print the suite's size and separability as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: GenArgs) -> Result<ExitCode> {
    let compiler = Compiler::discover(None, args.compiler.as_deref())?;
    let context = RenderContext {
        ocaml_version: compiler.version.clone(),
        word_size: compiler.word_bytes() * 8,
    };
    let outcome = training_gen::generate(
        &args.out,
        args.templates.as_deref(),
        !args.no_builtin,
        &context,
    )?;
    for error in &outcome.errors {
        eprintln!("mlcost: template error: {error}");
    }
    let programs = outcome.manifest.programs.len();
    let templates = outcome
        .manifest
        .programs
        .iter()
        .map(|p| &p.template)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let separability = pipeline::separability::suite_separability(&args.out, &outcome.manifest);
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "programs": programs,
                "templates": templates,
                "separability": separability,
            }))?
        );
    } else {
        outln!(
            "{programs} programs from {templates} templates in {}",
            args.out.display()
        );
        super::separability::print(&separability);
    }
    Ok(if outcome.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::ERROR)
    })
}
