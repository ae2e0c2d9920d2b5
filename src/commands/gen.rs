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
    println!(
        "{} programs from {} templates in {}",
        outcome.manifest.programs.len(),
        outcome
            .manifest
            .programs
            .iter()
            .map(|p| &p.template)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        args.out.display()
    );
    super::separability::print_for_suite(&args.out, &outcome.manifest)?;
    Ok(if outcome.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
