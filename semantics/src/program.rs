//! Loading a program (parse, type, tag tail calls, compile) and counting one run of it.

use crate::allocation::{self, Allocation};
use crate::ast::{Item, Pos};
use crate::by_function::FunctionCounts;
use crate::catalogue::{catalogue, Counter};
use crate::error::SemanticsError;
use crate::heap;
use crate::infer::{Checker, Typing};
use crate::ir::{Compiled, Slot};
use crate::lower::Executable;
use crate::machine::{Machine, Thrown, Unwind};
use crate::parser::{ParseError, Parser};
use crate::types::{TyNode, INT};
use crate::user_module::Scope;
use crate::value::{self, Value};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// Stack of the thread that parses, types and compiles (deeply nested source is fine).
const FRONT_END_STACK: usize = 256 << 20;
/// Part of the evaluation stack kept free for the frames below the recursion check.
const EVAL_STACK_MARGIN: usize = 64 << 20;

/// The counts of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CountResult {
    pub size: i64,
    /// Constructs that ran at least once, by catalogue name.
    pub counts: BTreeMap<String, u64>,
    /// Digest of `run`'s result, as the native driver prints it.
    pub digest: String,
    /// Words the run allocates and how long they live (empty for scripts).
    #[serde(default)]
    pub allocation: Allocation,
}

/// A loaded program, ready to be counted at any size (loading is done once; each count
/// evaluates afresh). It can be shared between threads.
#[derive(Debug)]
pub struct Program {
    file: String,
    compiled: Arc<Executable>,
    /// Global slots of `input` and `run` (absent for scripts).
    shape: Option<(Slot, Slot)>,
}

impl Program {
    /// Reads, parses and type-checks a benchmark program (`input` and `run` required).
    pub fn load(path: &Path) -> Result<Program, SemanticsError> {
        let source = std::fs::read_to_string(path).map_err(|source| SemanticsError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Program::from_source(&path.display().to_string(), &source)
    }

    /// Parses and type-checks a benchmark program given as text; `file_name` names it in errors.
    pub fn from_source(file_name: &str, source: &str) -> Result<Program, SemanticsError> {
        front_end(file_name, source, true)
    }

    /// Parses and type-checks a script: top-level definitions and expressions, no `input` or
    /// `run` required (see [`Program::count_script`]).
    pub fn script_from_source(file_name: &str, source: &str) -> Result<Program, SemanticsError> {
        front_end(file_name, source, false)
    }

    pub fn file_name(&self) -> &str {
        &self.file
    }

    /// Evaluates the top-level definitions and `input size` without counting, then `run` on
    /// the input, counting every construct, plus one `Base`.
    pub fn count(&self, size: i64) -> Result<CountResult, SemanticsError> {
        self.count_run(size, false).map(|(result, _)| result)
    }

    /// [`Program::count`], and the same counts split by the function that ran them (see
    /// `by_function.rs`); slower on programs that make many calls.
    pub fn count_by_function(
        &self,
        size: i64,
    ) -> Result<(CountResult, Vec<FunctionCounts>), SemanticsError> {
        self.count_run(size, true)
    }

    fn count_run(
        &self,
        size: i64,
        by_function: bool,
    ) -> Result<(CountResult, Vec<FunctionCounts>), SemanticsError> {
        let Some((input, run)) = self.shape else {
            return Err(SemanticsError::Shape {
                file: self.file.clone(),
                pos: Pos {
                    line: 1,
                    col: 1,
                    file: 0,
                },
                message: "this program is a script: it defines no `input` and `run` to count"
                    .into(),
            });
        };
        self.on_eval_thread(move |m, program| {
            for item in &program.compiled.items {
                m.run_item(item).map_err(|Thrown| {
                    program.unwind_error(m.take_unwind(), " (in a top-level definition)")
                })?;
            }
            let input_fn = m.global(input);
            let x = m
                .call_from_driver(input_fn, vec![Value::Int(size)])
                .map_err(|Thrown| {
                    program.unwind_error(m.take_unwind(), &format!(" (in `input {size}`)"))
                })?;
            m.reset_counts();
            m.counts[Counter::Base as usize] = 1;
            m.branches.clear();
            if by_function {
                m.attribute_by_function();
            }
            let run_fn = m.global(run);
            heap::start();
            m.native_stack.start();
            let result = m.call_from_driver(run_fn, vec![x]);
            let result = match result {
                Ok(result) => result,
                Err(Thrown) => {
                    heap::finish();
                    m.native_stack.finish();
                    let unwind = m.take_unwind();
                    return Err(program.unwind_error(unwind, &format!(" (in `run`, size {size})")));
                }
            };
            let digest = value::digest(&result);
            // The driver drops the result at once: whatever the run built dies now.
            drop(result);
            let allocation = heap::finish();
            m.counts[Counter::FarStackWord as usize] = m.native_stack.finish();
            let far = allocation.touches.misses().round();
            m.counts[Counter::FarLoad as usize] = far as u64;
            m.counts[Counter::MemoryLoad as usize] =
                allocation.touches.shared_far_reads.round() as u64;
            m.counts[Counter::FarStreamWord as usize] =
                allocation.touches.streamed_words().round() as u64;
            let heap_words = allocation::minor_heap_words();
            m.counts[Counter::PromotedWord as usize] =
                allocation.promoted_words(heap_words).round() as u64;
            m.counts[Counter::ScannedFrame as usize] =
                allocation.scanned_frames(heap_words).round() as u64;
            m.counts[Counter::MajorWord as usize] = allocation.direct_major_words;
            m.count_branch_misses(true);
            let by_function = m.counts_by_function();
            crate::issue::split_chain_kinds(&mut m.counts);
            Ok((
                CountResult {
                    size,
                    counts: nonzero(&m.counts),
                    digest,
                    allocation,
                },
                by_function,
            ))
        })
    }

    /// Loads the benchmark program at `path` and counts it at each size in turn, stopping at
    /// the first failure: what the training suite, the controls and `mlcost gen` all need.
    /// Failures read "interpreter: …" or "interpreter at size N: …".
    pub fn count_at_sizes(path: &Path, sizes: &[u64]) -> Result<Vec<CountResult>, String> {
        let program = Program::load(path).map_err(|e| format!("interpreter: {e}"))?;
        sizes
            .iter()
            .map(|&size| {
                program
                    .count(size as i64)
                    .map_err(|e| format!("interpreter at size {size}: {e}"))
            })
            .collect()
    }

    /// Counts a whole script as the paper's interpreter does (§2): every top-level definition
    /// and expression is counted (the prelude is not), with no `Base`. The digest is that of
    /// the last top-level expression's value (of `()` if there is none); `size` is 0.
    pub fn count_script(&self) -> Result<CountResult, SemanticsError> {
        self.on_eval_thread(|m, program| {
            let compiled = &program.compiled;
            let mut last = value::UNIT;
            for (i, item) in compiled.items.iter().enumerate() {
                if i == compiled.prelude_items {
                    m.reset_counts();
                    m.branches.clear();
                }
                if let Some(v) = m
                    .run_item(item)
                    .map_err(|Thrown| program.unwind_error(m.take_unwind(), ""))?
                {
                    last = v;
                }
            }
            if compiled.items.len() == compiled.prelude_items {
                m.reset_counts();
                m.branches.clear();
            }
            // A script runs once: its branches meet cold predictors.
            m.count_branch_misses(false);
            crate::issue::split_chain_kinds(&mut m.counts);
            Ok(CountResult {
                size: 0,
                counts: nonzero(&m.counts),
                digest: value::digest(&last),
                allocation: Allocation::default(),
            })
        })
    }

    /// Runs `f` with a fresh machine on an evaluation thread (see [`crate::worker`]); every
    /// run-time value is created and dropped on that thread.
    fn on_eval_thread<T: Send + 'static>(
        &self,
        f: impl for<'m> FnOnce(&mut Machine<'m>, &'m Shared) -> Result<T, SemanticsError>
            + Send
            + 'static,
    ) -> Result<T, SemanticsError> {
        let shared = Shared {
            file: self.file.clone(),
            compiled: Arc::clone(&self.compiled),
        };
        crate::worker::run(move || {
            let mut machine = Machine::new(
                &shared.compiled,
                &shared.file,
                crate::worker::EVAL_STACK - EVAL_STACK_MARGIN,
            );
            machine.enter_toplevel();
            f(&mut machine, &shared)
        })
        .unwrap_or_else(|message| Err(self.internal(message)))
    }

    fn internal(&self, message: String) -> SemanticsError {
        SemanticsError::Internal {
            file: self.file.clone(),
            message,
        }
    }
}

/// What an evaluation thread needs of a program.
pub(crate) struct Shared {
    file: String,
    compiled: Arc<Executable>,
}

impl Shared {
    fn unwind_error(&self, unwind: Unwind, context: &str) -> SemanticsError {
        let pos = match &unwind {
            Unwind::Fatal { pos, .. } | Unwind::Exn { pos, .. } => *pos,
        };
        // Raised in the Stdlib's code (`String.index`'s `Not_found`): named in its file.
        let file = crate::ast::source_file(pos).unwrap_or_else(|| self.file.clone());
        let context = context.to_string();
        match unwind {
            Unwind::Fatal { pos, message } => SemanticsError::Limit {
                file,
                pos,
                message,
                context,
            },
            Unwind::Exn {
                value: Value::Exn(e),
                pos,
            } => {
                let names = &self.compiled.exception_names;
                let message = match names.get(e.id as usize).map(String::as_str) {
                    Some("Match_failure") => {
                        "match failure: no case matches this value".to_string()
                    }
                    Some("Division_by_zero") => "division by zero".to_string(),
                    _ => format!("uncaught exception {}", value::show_exception(&e, names)),
                };
                SemanticsError::Uncaught {
                    file,
                    pos,
                    message,
                    context,
                }
            }
            Unwind::Exn { pos, .. } => SemanticsError::Uncaught {
                file,
                pos,
                message: "uncaught exception".into(),
                context,
            },
        }
    }
}

fn nonzero(counts: &[u64]) -> BTreeMap<String, u64> {
    catalogue()
        .iter()
        .zip(counts)
        .filter(|(_, &n)| n > 0)
        .map(|(c, &n)| (c.name.to_string(), n))
        .collect()
}

fn front_end(file: &str, source: &str, benchmark: bool) -> Result<Program, SemanticsError> {
    std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name("mlcost-front-end".into())
            .stack_size(FRONT_END_STACK)
            .spawn_scoped(s, || load(file, source, benchmark))
            .map_err(|e| SemanticsError::Internal {
                file: file.into(),
                message: format!("cannot start the front-end thread: {e}"),
            })?;
        handle.join().unwrap_or_else(|panic| {
            Err(SemanticsError::Internal {
                file: file.into(),
                message: crate::worker::panic_message(&*panic),
            })
        })
    })
}

/// A file's items, the number its node ids have reached, and the labels its parser read.
type Parsed = (Vec<Item>, u32, crate::labels::Labels);

fn parse(
    file: &str,
    toks: &[crate::lexer::Token],
    first_id: u32,
) -> Result<Parsed, SemanticsError> {
    parse_in(file, toks, first_id, &mut Scope::default())
}

/// Parses with the modules of `scope` visible (the Stdlib structures read before the
/// program), leaving in it the modules the code declares.
fn parse_in(
    file: &str,
    toks: &[crate::lexer::Token],
    first_id: u32,
    scope: &mut Scope,
) -> Result<Parsed, SemanticsError> {
    let mut parser = Parser::with_first_id(toks, first_id);
    parser.modules = std::mem::take(scope);
    let items = parser.program().map_err(|e| match e {
        ParseError::Syntax { pos, message } => SemanticsError::Syntax {
            file: file.into(),
            pos,
            message,
        },
        ParseError::Unsupported { pos, construct } => SemanticsError::Unsupported {
            file: file.into(),
            pos,
            construct,
        },
    })?;
    let labels = std::mem::take(&mut parser.labels);
    *scope = std::mem::take(&mut parser.modules).into_modules();
    Ok((items, parser.node_count(), labels))
}

fn load(file: &str, source: &str, benchmark: bool) -> Result<Program, SemanticsError> {
    let (mut items, mut next_id, mut labels) =
        parse(crate::prelude::FILE_NAME, &crate::prelude::tokens(), 0)?;
    let toks = crate::lexer::tokenize(source).map_err(|e| SemanticsError::Syntax {
        file: file.into(),
        pos: e.pos,
        message: e.message,
    })?;
    // A program may splice in Stdlib code as it is written (list.ml's `rev_init_threshold`).
    let toks = crate::stdlib_source::unqualify_constructors(toks);
    // Each item's file, for its errors, and its Stdlib module (`None`: the program's own).
    let mut origins: Vec<(String, Option<String>)> =
        vec![(crate::prelude::FILE_NAME.to_string(), None); items.len()];
    let mut mentioned = crate::stdlib_source::mentioned(&toks);
    let opens = crate::open_module::opens_a_module(&toks);
    if opens {
        // Parsed once more below, after the Stdlib's items, for node ids that follow theirs.
        let (opened, _, _) = parse(file, &toks, next_id)?;
        crate::open_module::add_named_functions(&opened, &mut mentioned);
    }
    let (taken, renames) = crate::stdlib_source::load(mentioned)?;
    // The Stdlib structures (`Stack`, `Buffer`) the program's code names.
    let mut structures = Scope::default();
    for crate::stdlib_source::Taken {
        module,
        file: module_file,
        toks: module_toks,
    } in taken
    {
        let (mut module_items, next, module_labels) =
            parse_in(&module_file, &module_toks, next_id, &mut structures)?;
        next_id = next;
        labels.extend(module_labels);
        let origin = if crate::stdlib_source::unqualified(module)
            || crate::stdlib_source::is_structure(module)
        {
            None
        } else {
            crate::stdlib_source::qualify(module, &mut module_items);
            Some(module.to_string())
        };
        origins.extend(vec![(module_file, origin); module_items.len()]);
        items.extend(module_items);
    }
    // `String.blit` is `Bytes.blit_string`, `String.unsafe_blit` a primitive of `Bytes`.
    let toks = crate::stdlib_link::rename_program(toks, &renames);
    let prelude_items = items.len();
    let (mut user, mut next_id, user_labels) = parse_in(file, &toks, next_id, &mut structures)?;
    if opens {
        // The names an `open` qualified, renamed as the tokens above were.
        crate::open_module::rename_qualified(&mut user, &renames);
    }
    labels.extend(user_labels);
    origins.extend(vec![(file.to_string(), None); user.len()]);
    items.extend(user);
    crate::labels::resolve(&mut items, &labels, &mut next_id).map_err(|e| {
        SemanticsError::Unsupported {
            file: file.into(),
            pos: e.pos,
            construct: e.message,
        }
    })?;
    crate::tail::mark_items(&mut items);
    let mut checker = Checker::new();
    for (item, (item_file, module)) in items.iter().zip(&origins) {
        checker.module = module.clone();
        checker.item(item).map_err(|e| SemanticsError::Type {
            file: item_file.clone(),
            pos: e.pos,
            message: e.message,
        })?;
    }
    let mut typing = checker.finish();
    // After typing, as Simplif works on typed code; the calls it moves change tail positions.
    crate::static_handler::rewrite_items(&mut items, &mut next_id);
    crate::tail::mark_items(&mut items);
    let modules: Vec<Option<String>> = origins.iter().map(|(_, m)| m.clone()).collect();
    let mut compiled =
        crate::compile_pat::compile_program(&items, &modules, prelude_items, &typing).map_err(
            |e| SemanticsError::Type {
                file: file.into(),
                pos: e.pos,
                message: e.message,
            },
        )?;
    crate::inline::inline_small_functions(&mut compiled);
    crate::boxing::insert_float_boxes(&mut compiled);
    crate::liveness::release_dead_slots(&mut compiled);
    crate::poll::mark_loop_polls(&mut compiled);
    crate::chain::mark_chains(&mut compiled);
    crate::comballoc::mark_combined_allocations(&mut compiled);
    let shape = if benchmark {
        Some(check_shape(file, &mut typing, &compiled)?)
    } else {
        None
    };
    Ok(Program {
        file: file.into(),
        compiled: Arc::new(crate::lower::program(compiled)),
        shape,
    })
}

/// Checks `input : int -> 'a` and `run : 'a -> 'b` (the benchmark shape) and finds them.
fn check_shape(
    file: &str,
    typing: &mut Typing,
    compiled: &Compiled,
) -> Result<(Slot, Slot), SemanticsError> {
    let shape_error = |pos: Pos, message: String| SemanticsError::Shape {
        file: file.into(),
        pos,
        message,
    };
    let start = Pos {
        line: 1,
        col: 1,
        file: 0,
    };
    let find = |name: &str| -> Result<(crate::types::Ty, Pos, Slot), SemanticsError> {
        let missing = || {
            shape_error(start, format!("the program defines no top-level `{name}` (a benchmark defines `input : int -> 'a` and `run : 'a -> 'b`)"))
        };
        let &(ty, pos) = typing.toplevel.get(name).ok_or_else(missing)?;
        let slot = *compiled.globals_by_name.get(name).ok_or_else(missing)?;
        Ok((ty, pos, slot))
    };
    let (input_ty, input_pos, input_slot) = find("input")?;
    let (run_ty, run_pos, run_slot) = find("run")?;
    let t = &mut typing.types;
    let level = 1;
    let input_ty = t.instantiate(input_ty, level);
    let int = t.con(INT, vec![]);
    let x = t.var(level);
    let expected_input = t.arrow(int, x);
    if t.unify(input_ty, expected_input).is_err() {
        let shown = t.show(input_ty, &mut Default::default());
        return Err(shape_error(
            input_pos,
            format!("`input` has type {shown}, but a benchmark's `input` must have type int -> 'a"),
        ));
    }
    let run_ty = t.instantiate(run_ty, level);
    let r = t.var(level);
    let expected_run = t.arrow(x, r);
    if t.unify(run_ty, expected_run).is_err() {
        let mut names = Default::default();
        let shown = t.show(run_ty, &mut names);
        let arg = t.show(x, &mut names);
        let run_repr = t.repr(run_ty);
        let message = if matches!(t.nodes[run_repr as usize], TyNode::Arrow(..)) {
            format!(
                "`run` has type {shown}, but it must accept the result of `input`, of type {arg}"
            )
        } else {
            format!("`run` has type {shown}, but a benchmark's `run` must be a function")
        };
        return Err(shape_error(run_pos, message));
    }
    Ok((input_slot, run_slot))
}
