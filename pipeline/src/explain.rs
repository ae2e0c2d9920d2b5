//! Where an instruction count goes wrong. The instruction model misses a program only when the
//! interpreter counts what the binary does not run, or the binary runs what no construct
//! names; the error says how much, not where. This stage runs one point of a training program
//! or a control under callgrind and sets each function's instructions per run beside the
//! model's prediction from the counts the interpreter made *in that function*
//! ([`semantics::Program::count_by_function`]): the function whose two figures part is where
//! the miscount is, and its constructs are the suspects.
//!
//! Both sides are keyed by the function's name as native code spells it, stamps dropped
//! ([`function_of_symbol`]). What runs in the runtime — its C functions and the generated
//! `caml_applyN`/`caml_curryN` — is one row, [`RUNTIME`], on both sides: the interpreter
//! counts those constructs ([`in_runtime`]) at their call site. A function that ocamlopt
//! inlined has a prediction and no measurement, and its caller the reverse.

use crate::recorded::{recorded_compilers, require_run_dir};
use anyhow::{anyhow, bail, Context, Result};
use fit::Method;
use harness::Estimate;
use rundir::{read_json, read_optional, RunDir};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use training_gen::Manifest;

/// The row of everything that runs outside the program's and the Stdlib's OCaml code.
pub const RUNTIME: &str = "(runtime)";

/// Whether `construct`'s instructions run in the runtime (its C code, or the generated
/// `caml_applyN`) rather than in the function the interpreter counts it in.
pub fn in_runtime(construct: &str) -> bool {
    construct == "ApplyN" || fit::structured::RUNTIME_CODE.contains(&construct)
}

/// One function: measured and predicted instructions per run, and what the prediction is
/// made of (instructions per run by construct, largest first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionRow {
    pub function: String,
    pub measured: f64,
    pub predicted: f64,
    pub constructs: Vec<(String, f64)>,
}

/// One point, explained function by function; rows by the size of their miss, largest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    pub program: String,
    pub compiler: String,
    pub size: u64,
    pub method: Method,
    pub rows: Vec<FunctionRow>,
}

impl Explanation {
    pub fn measured(&self) -> f64 {
        self.rows.iter().map(|r| r.measured).sum()
    }

    pub fn predicted(&self) -> f64 {
        self.rows.iter().map(|r| r.predicted).sum()
    }
}

/// The function a symbol of a binary is code of: `camlBench_program__loop_81` is `loop`,
/// `camlStdlib__list__rmap_f_220` (or `camlStdlib__List__…`) `List.rmap_f`,
/// `camlStdlib__min_1200` `min`; anything else (C, `caml_apply2`, the driver) is [`RUNTIME`].
pub fn function_of_symbol(symbol: &str) -> String {
    fn unstamped(name: &str) -> &str {
        match name.rsplit_once('_') {
            Some((base, stamp))
                if !base.is_empty() && stamp.bytes().all(|b| b.is_ascii_digit()) =>
            {
                base
            }
            _ => name,
        }
    }
    if let Some(name) = symbol.strip_prefix("camlBench_program__") {
        return unstamped(name).to_string();
    }
    if let Some(rest) = symbol.strip_prefix("camlStdlib__") {
        // An operator is spelled in hex (`camlStdlib__$5e_136` is `^`); the interpreter names
        // it as it is written, `( ^ )`.
        if rest.starts_with('$') {
            return operator_name(unstamped(rest));
        }
        return match rest.split_once("__") {
            Some((module, name)) => {
                let mut module = module.to_string();
                if let Some(initial) = module.get_mut(..1) {
                    initial.make_ascii_uppercase();
                }
                format!("{module}.{}", unstamped(name))
            }
            None => unstamped(rest).to_string(),
        };
    }
    RUNTIME.to_string()
}

/// `$5e` → `( ^ )`, `$40` → `( @ )`: an operator's name in a symbol, decoded.
fn operator_name(spelled: &str) -> String {
    let mut name = String::new();
    let mut rest = spelled;
    while let Some(hex) = rest.strip_prefix('$') {
        let Some(byte) = hex.get(..2).and_then(|h| u8::from_str_radix(h, 16).ok()) else {
            return spelled.to_string();
        };
        name.push(char::from(byte));
        rest = &hex[2..];
    }
    if !rest.is_empty() {
        return spelled.to_string();
    }
    format!("( {name} )")
}

/// Sets measured instructions per function (by symbol) beside the interpreter's counts per
/// function priced by `constants` (instructions per construct).
pub fn explain_point(
    measured: &BTreeMap<String, f64>,
    counted: &[semantics::FunctionCounts],
    constants: &BTreeMap<String, f64>,
) -> Vec<FunctionRow> {
    let mut rows: BTreeMap<String, FunctionRow> = BTreeMap::new();
    let mut add = |function: &str, measured: f64, construct: Option<(&str, f64)>| {
        let r = rows
            .entry(function.to_string())
            .or_insert_with(|| FunctionRow {
                function: function.to_string(),
                measured: 0.0,
                predicted: 0.0,
                constructs: Vec::new(),
            });
        r.measured += measured;
        if let Some((name, instructions)) = construct {
            r.predicted += instructions;
            match r.constructs.iter_mut().find(|(c, _)| c == name) {
                Some((_, total)) => *total += instructions,
                None => r.constructs.push((name.to_string(), instructions)),
            }
        }
    };
    for (symbol, &n) in measured {
        add(&function_of_symbol(symbol), n, None);
    }
    for f in counted {
        for (construct, &n) in &f.counts {
            let per = constants.get(construct).copied().unwrap_or(0.0);
            if per == 0.0 {
                continue;
            }
            let at = if in_runtime(construct) {
                RUNTIME
            } else {
                f.function.as_str()
            };
            add(at, 0.0, Some((construct, n as f64 * per)));
        }
    }
    let mut rows: Vec<FunctionRow> = rows.into_values().collect();
    for r in &mut rows {
        r.constructs
            .sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()).then(a.0.cmp(&b.0)));
    }
    rows.sort_by(|a, b| {
        (b.measured - b.predicted)
            .abs()
            .total_cmp(&(a.measured - a.predicted).abs())
            .then(a.function.cmp(&b.function))
    });
    rows
}

/// A point to explain: its source, its binary (layout 0) and the sizes it was measured at.
struct PointFiles {
    source: PathBuf,
    binary: PathBuf,
    sizes: Vec<u64>,
}

/// A training program of the run, or else one of its built-in controls.
fn point_files(run_dir: &Path, program: &str, compiler: &str) -> Result<PointFiles> {
    let dir = RunDir::new(run_dir);
    let manifest = Manifest::load(run_dir)?;
    if let Some(entry) = manifest.programs.iter().find(|p| p.name == program) {
        let build = entry
            .builds
            .iter()
            .filter(|b| b.compiler == compiler && b.verified())
            .min_by_key(|b| b.layout)
            .and_then(|b| b.binary.clone())
            .ok_or_else(|| anyhow!("{program}: no verified build for {compiler} in the run"))?;
        return Ok(PointFiles {
            source: run_dir.join(&entry.source),
            binary: run_dir.join(build),
            sizes: entry.sizes.clone(),
        });
    }
    // The corpus the suite validated: the user's (as given to `suite --controls`) or the
    // built-in one, extracted into the run.
    let corpus = match crate::suite::SuiteSettings::load(&dir)
        .ok()
        .and_then(|s| s.controls)
    {
        Some(controls) => controls,
        None => dir.builtin_controls_dir(),
    };
    let source = corpus.join(format!("{program}.ml"));
    let work = dir.controls_work_dir(None, compiler);
    let binary = validation::control_binary(work.as_ref(), program, 0);
    if !source.is_file() || !binary.is_file() {
        bail!(
            "{program}: neither a training program of {} nor one of its controls",
            run_dir.display()
        );
    }
    let estimates: Vec<Estimate> = read_optional(&work.estimates_file())?.unwrap_or_default();
    let mut sizes: Vec<u64> = estimates
        .iter()
        .filter(|e| e.benchmark == program && e.compiler == compiler)
        .map(|e| e.size)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    Ok(PointFiles {
        source,
        binary,
        sizes,
    })
}

/// What to explain: a program of a run, at one size (default: its smallest), for one
/// compiler (default: the run's first), with one method's instruction constants.
pub struct ExplainRequest<'a> {
    pub run_dir: &'a Path,
    pub program: &'a str,
    pub size: Option<u64>,
    pub compiler: Option<&'a str>,
    pub method: Method,
}

/// Runs the point under callgrind and the interpreter, and explains it function by function.
pub fn explain(req: &ExplainRequest) -> Result<Explanation> {
    let run = require_run_dir(req.run_dir)?;
    let compilers = recorded_compilers(&run);
    let compiler = match req.compiler {
        Some(name) => compilers
            .iter()
            .find(|c| c.compiler.name == name)
            .ok_or_else(|| {
                anyhow!(
                    "{}: no compiler named {name} in the run",
                    req.run_dir.display()
                )
            })?,
        None => compilers
            .first()
            .ok_or_else(|| anyhow!("{}: the run has no compiler", req.run_dir.display()))?,
    }
    .compiler
    .name
    .clone();
    let dir = RunDir::new(req.run_dir);
    let model: fit::CostModel = read_json(&dir.model_file(&compiler))?;
    let constants: BTreeMap<String, f64> = model
        .instructions
        .get(&req.method)
        .ok_or_else(|| {
            anyhow!(
                "{}: no {} instruction model for {compiler} (count them: mlcost instructions {0})",
                req.run_dir.display(),
                req.method
            )
        })?
        .time_ns
        .iter()
        .map(|(c, e)| (c.clone(), e.estimate))
        .collect();
    let files = point_files(req.run_dir, req.program, &compiler)?;
    let size = match req.size.or_else(|| files.sizes.first().copied()) {
        Some(size) => size,
        None => bail!(
            "{}: no size was measured; give one with --size",
            req.program
        ),
    };
    let valgrind = instructions::available().ok_or(instructions::InstructionError::NoValgrind)?;
    Ok(Explanation {
        program: req.program.to_string(),
        compiler,
        size,
        method: req.method,
        rows: explain_files(&valgrind, &files.source, &files.binary, size, &constants)?,
    })
}

/// The rows of one point: `source` counted by the interpreter, `binary` (built from it) run
/// under callgrind, at `size`; the counts priced by `constants`.
pub fn explain_files(
    valgrind: &instructions::Valgrind,
    source: &Path,
    binary: &Path,
    size: u64,
    constants: &BTreeMap<String, f64>,
) -> Result<Vec<FunctionRow>> {
    let program = semantics::Program::load(source)
        .with_context(|| format!("{}: interpreter", source.display()))?;
    let (_, counted) = program
        .count_by_function(size as i64)
        .with_context(|| format!("{}: interpreter at size {size}", source.display()))?;
    let measured = instructions::valgrind::count_functions(valgrind, binary, size)?;
    Ok(explain_point(&measured, &counted, constants))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_name_their_functions_as_the_interpreter_does() {
        assert_eq!(function_of_symbol("camlBench_program__loop_81"), "loop");
        assert_eq!(function_of_symbol("camlBench_program__fun_1203"), "fun");
        assert_eq!(function_of_symbol("camlBench_program__go_2_17"), "go_2");
        assert_eq!(
            function_of_symbol("camlStdlib__list__rmap_f_220"),
            "List.rmap_f"
        );
        assert_eq!(function_of_symbol("camlStdlib__List__map_81"), "List.map");
        assert_eq!(function_of_symbol("camlStdlib__min_1200"), "min");
        assert_eq!(function_of_symbol("camlStdlib__$5e_136"), "( ^ )");
        assert_eq!(function_of_symbol("camlStdlib__$40_160"), "( @ )");
        assert_eq!(function_of_symbol("camlStdlib__$3c$3e_99"), "( <> )");
        assert_eq!(function_of_symbol("caml_apply2"), RUNTIME);
        assert_eq!(function_of_symbol("caml_compare"), RUNTIME);
    }

    #[test]
    fn a_miss_is_put_on_the_function_that_runs_it() {
        let measured: BTreeMap<String, f64> = [
            ("camlBench_program__walk_90".to_string(), 120.0),
            ("camlBench_program__run_95".to_string(), 5.0),
            ("caml_apply2".to_string(), 30.0),
        ]
        .into();
        let counted = vec![
            semantics::FunctionCounts {
                function: "walk".into(),
                counts: [("IntAdd".to_string(), 10), ("ApplyN".to_string(), 3)].into(),
            },
            semantics::FunctionCounts {
                function: "run".into(),
                counts: [("FunApp".to_string(), 1)].into(),
            },
        ];
        let constants: BTreeMap<String, f64> = [
            ("IntAdd".to_string(), 8.0),
            ("ApplyN".to_string(), 10.0),
            ("FunApp".to_string(), 5.0),
        ]
        .into();
        let rows = explain_point(&measured, &counted, &constants);
        // walk: 120 measured against 80 counted — the largest miss comes first.
        assert_eq!(rows[0].function, "walk");
        assert_eq!((rows[0].measured, rows[0].predicted), (120.0, 80.0));
        assert_eq!(rows[0].constructs, vec![("IntAdd".to_string(), 80.0)]);
        let runtime = rows.iter().find(|r| r.function == RUNTIME).unwrap();
        assert_eq!((runtime.measured, runtime.predicted), (30.0, 30.0));
        let run = rows.iter().find(|r| r.function == "run").unwrap();
        assert_eq!((run.measured, run.predicted), (5.0, 5.0));
    }
}
