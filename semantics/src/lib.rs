//! # semantics — how many times does each construct run?
//!
//! mlcost models the running time of an OCaml program as `T ≈ Σ n_c · T_c`: a count `n_c` per
//! construct `c` (function call, integer addition, cons, …) times a cost `T_c` learned by
//! regression. This crate produces the counts. It owns:
//!
//! - the **catalogue** of constructs ([`catalogue`]): name, group, description and counting
//!   rule of each, the single list that training templates, the fit and the reports use;
//! - a **front end** for the OCaml subset that benchmark programs are written in: lexer,
//!   recursive-descent parser with OCaml's precedences, Hindley–Milner type inference, a
//!   tail-position pass, and a compiler to a slot-resolved IR;
//! - the **cost-semantics interpreter** (the paper's big-step semantics, §3), which evaluates
//!   `run (input size)` and counts every construct, plus the **result digest** that must equal
//!   the native driver's for the same program and size.
//!
//! ```
//! let program = semantics::Program::from_source("fact.ml", "
//!     let rec fact n = if n = 0 then 1 else n * fact (n - 1)
//!     let input n = n
//!     let run n = fact n
//! ").unwrap();
//! let result = program.count(10).unwrap();
//! assert_eq!(result.counts["IntMult"], 10);
//! assert_eq!(result.counts["FunApp"], 10); // fact 9 … fact 0; `fact n` in run is a tail call
//! assert_eq!(result.counts["TailApp"], 1);
//! assert_eq!(result.counts["Base"], 1);
//! ```
//!
//! [`Program::count_by_function`] splits the same counts by the function whose code runs
//! each construct ([`FunctionCounts`], named as native code's symbols name them), so that a
//! count can be checked against a profile function by function.
//!
//! ## The language
//! Top-level `let`, `let rec … and …`, `type` (variants with parameters, abbreviations),
//! `exception`, and top-level expressions after `;;`. Expressions: `let … in`, `fun`,
//! `function`, n-ary and partial application, `assert` (Translcore's `if e then () else raise
//! (Assert_failure …)`; `assert false` is the raise), `match` with nested patterns (constants, `_`,
//! variables, tuples, `[]`, `::`, list literals, constructors, `as`, or-patterns, `when`
//! guards), `if`, `;`, tuples, lists, `begin … end`, `try … with`, type annotations; int, float
//! and bool arithmetic and comparisons, `mod`, `land` `lor` `lxor` `lsl` `lsr` `asr`, `not`,
//! `&&`, `||`, `|>`, `@@`, `@`, operator sections such as `( + )`; the Stdlib values `fst`,
//! `snd`, `not`, `raise`, `failwith`, `invalid_arg`, `ignore`, `compare`, `float_of_int`,
//! `int_of_float`, `float`, `truncate`, `succ`, `pred`, `abs`, `lnot`, `sqrt` and `abs_float`
//! (inlined by ocamlopt), `max_int`, `min_int`, `infinity`, `neg_infinity`, `nan`, `max_float`,
//! `min_float`, `epsilon_float`, `int_of_char`, `min`, `max`, `char_of_int` and `string_of_int`
//! (real calls, read from `stdlib.ml`; `string_of_int`'s C call counts `FormatInt` and a
//! `FormatIntChar` a character printed, as does `Int.to_string`'s), `string_of_bool` (read
//! from `stdlib.ml` too, and inlined as ocamlopt inlines it), the float library's direct C
//! calls (`floor`, `ceil`, `exp`, `log`, `sin`, `atan2`, `hypot`, `**`, `mod_float`, … and
//! float.ml's `round`, `trunc`, `rem`, `pow`, `log2`, `cbrt`, `erf`, `sign_bit`: `float_call`),
//! and the predefined exceptions
//! (`Not_found`, `Failure`, `Invalid_argument`, `Exit`, …). Records (`type t = { mutable a :
//! int; … }`, literals, `r.f`, `r.f <- v`, `{ r with … }`, record patterns), references
//! (`ref`, `!`, `:=`, `incr`, `decr`, `.contents`), `for … to/downto … do … done`, `while … do …
//! done`, arrays (`[| … |]`, `a.(i)`, `a.(i) <- v`, `Array.make`, `Array.length`, `Array.get`,
//! `Array.set`, `Array.unsafe_get`, `Array.unsafe_set`). Strings, `bytes` and chars: literals,
//! `s.[i]`, `^`, char comparisons, `String.length`/`get`/`unsafe_get`/`make`/`copy`/`sub`,
//! `Bytes.create`/`make`/`length`/`get`/`set`/`unsafe_get`/`unsafe_set`/`copy`/`sub`/
//! `sub_string`/`fill`/`blit`/`blit_string`/`to_string`/`of_string`/`unsafe_to_string`/
//! `unsafe_of_string`/`unsafe_fill`/`unsafe_blit`, `Char.code`, `Char.chr`; and the other
//! functions of `String`, `Bytes`, `Char`, `Int` and `Float` read from the installed
//! compiler's sources (`stdlib_source`, `stdlib_link`): `String.init`/`iter`/`iteri`/
//! `map`/`mapi`/`concat`/`split_on_char`/`index`/`index_opt`/`rindex`/`contains`/`trim`/
//! `escaped`/`uppercase_ascii`/`fold_left`/`exists`/`for_all`/`blit`/…, the same in `Bytes`
//! (and `Bytes.init`/`cat`/`to_string`), `Char.lowercase_ascii`/`uppercase_ascii`/`escaped`/
//! `compare`, `Int.abs`/`min`/`max`/`add`/`logand`/…/`to_float`, `Float.of_int`/`to_int`/
//! `sqrt`/`abs`/`add`/`floor`/`min`/`max`/…/`is_nan`/`infinity`/…,
//! `String.starts_with ~prefix`/`ends_with`;
//! `Option.value`/`get`/`map`/`bind`/`fold`/`iter`/`is_some`/`is_none`/`equal`/`to_list`/…;
//! `Fun.id`/`const`/`flip`/`negate`; `Stack` (`create`/`push`/`pop`/`top`/`is_empty`/
//! `length`/`iter`/`fold`/`Empty`/…) and `Buffer` (`create`/`add_char`/`add_string`/
//! `add_substring`/`contents`/`length`/`nth`/`sub`/`truncate`/`clear`/…) and `Queue`
//! (`create`/`add`/`push`/`take`/`pop`/`peek`/`is_empty`/`length`/`iter`/`fold`/`copy`/
//! `transfer`/…), read from their sources as nested modules (their types and exceptions are
//! their own); inline records (`C of { f : a; mutable g : b }`); `Sys.word_size`,
//! `Sys.max_string_length`, … as the constants ocamlopt folds in.
//! Not: `Seq`s, the binary accessors (`get_int16_le`, …), `extend`, and the externals that
//! have no primitive here (`Int.neg`, `frexp`, `Float.classify_float`, `Float.fma`, …),
//! refused with the function's name or its place in the Stdlib's source. Attributes
//! (`[@inline never]`) are accepted and ignored. Anything else (other Stdlib modules, functors,
//! `s.[i] <- c`, objects) is refused with an error that names the construct and its line and
//! column.
//!
//! A program's own modules — `module M = struct … end`, nested, with a signature (read past),
//! aliases (`module L = List`), `M.x`, `M.C`, `M.t`, `r.M.f` — are flattened into the program
//! as ocamlopt compiles a structure nested in a unit (`user_module.rs`); a local one (`let
//! module M = struct … end in e`) is its items as `let`s around `e` and the block Translmod
//! builds of its values (`parser_module.rs`). `open M`, `let open M
//! in e` and `M.(e)` of them and of the Stdlib modules above, and labelled and optional
//! parameters and arguments (`~x`, `~x:p`, `?x`, `?(x = d)`; `~x:e`, `?x:e`) are compiled away
//! before typing: see `open_module.rs` and `labels.rs`.
//!
//! ## Counting choices
//! The catalogue states each rule; the choices that are not obvious, and why:
//!
//! - **Static types decide, as in `ocamlopt`.** A comparison whose operands have an immediate
//!   type (int, char, bool, unit, constant-only variants) is `IntCond*`, at float `FloatCond*`;
//!   at any other type — including a type variable, as in `List.mem` — it is a call to the
//!   runtime's `caml_compare`: `PolyCompare`. `<>` counts as `=` (the same compare, the
//!   opposite branch); `==` and `!=` are word compares (`IntCondEq`).
//! - **A structural comparison is a call plus a walk.** `PolyCompare` counts the call;
//!   `PolyCompareStep` counts each pair of values the runtime's `do_compare_val`
//!   (runtime/compare.c, 4.13) examines, the root pair included: a pair of blocks with equal
//!   tags and sizes goes on to its fields, left to right, and the walk stops at the first
//!   difference. Comparing two ints is 1 step, `(1, 2)` with `(1, 3)` 3, `[1; 2; 3]` with
//!   `[1; 2; 4]` 6, two equal lists of n elements 2n + 1. `compare` skips physically equal
//!   values (one step); `=`, `<`, … walk them, as the runtime's `total` flag does. A string
//!   pair is one step whatever its length (ocamlopt calls `caml_string_equal` /
//!   `caml_string_compare` on two strings: one C call whose word loop is not separated).
//!   `PolyCompareBlock` counts the pairs of two blocks among the steps, whose headers the walk
//!   reads: a pair with an immediate in it leaves by the loop's first tests, so comparing ints
//!   (`List.mem`, `List.assoc` on int keys) costs a fraction of comparing structures.
//! - **Arithmetic by a constant is what ocamlopt selects.** `*` with an integer constant on
//!   either side (a literal, or a `let`-bound constant, which ocamlopt propagates) is
//!   `IntMultConst`; `/` and `mod` by a constant divisor are `IntDivPow2`/`IntModPow2` for
//!   ±2^k and `IntDivConst`/`IntModConst` otherwise — shifts or a reciprocal multiply, no
//!   `idiv`, no zero check. `* 0`, `* 1`, `/ 1`, `mod ±1` count nothing (the operand is still
//!   evaluated), `* (-1)` and `/ (-1)` count `IntUMinus`; `/ 0` and `mod 0` stay `IntDiv` and
//!   `IntMod` and raise. A constant dividend over a variable divisor is `IntDiv`. A second
//!   division or remainder of the same dividend by the same constant, with no call or join
//!   between, reuses the first one's quotient (ocamlopt's CSE): `IntDivReused`,
//!   `IntModReused` (`shared_quotients.rs`).
//! - **Applications.** A saturated call of an n-ary function counts one `FunApp`, or one
//!   `TailApp` in tail position (decided by a syntactic pass before evaluation), or one
//!   `SelfTailApp` when a known function tail-calls itself: a jump back to its head, where
//!   the loop polls the minor heap's limit (`LoopPoll`, on entry and per jump) unless every
//!   way round allocates (`poll.rs`). A *partial*
//!   application allocates a closure holding the k arguments and the function: `FunDef` +
//!   `Closure` × (k + 1), plus one `FunApp`/`TailApp` when the callee is not a known let-bound
//!   function (native code then calls `caml_curryN`, which allocates it). Applying that
//!   closure to the remaining arguments counts the application plus one `TailApp` for the
//!   stub's jump into the function. A function value the compiler does not know, applied to
//!   one argument, is reached through its closure's code pointer: `IndirectCall` beside the
//!   `FunApp` (`call *`), `IndirectJump` beside the `TailApp` (`jmp *`); a `caml_curryN` or
//!   `caml_tuplifyN` stub's forward is an `IndirectJump` too. An *over-application* counts
//!   one `FunApp` for the saturated call, then applies the result to the remaining
//!   arguments. A saturated call of a small known function is no call at all: ocamlopt
//!   inlines it, and so does `inline.rs` (a body no larger than its parameter count at
//!   `-inline 0`, 10 more for the Stdlib's). A local function named once, in a full
//!   application, is its body at the call whatever its size (Simplif's static handler:
//!   `static_handler.rs`).
//! - **What a call costs around it.** Three constructs count what ocamlopt 4.13 emits around a
//!   call and the source does not show. `ApplyN`: a function value the compiler does not know
//!   at the call, applied to n ≥ 2 arguments, goes through `caml_applyN`, which checks the
//!   closure's arity (one argument calls through the code pointer, no check). `Spill`: the
//!   caller keeps nothing in registers across a call, so each value still needed after a
//!   non-tail call — live variables, and operands already computed — is stored and loaded
//!   back (`n * fact (n - 1)` stores and loads `n`: 2), a variable stored once before the
//!   first call it survives and loaded once after the last call before each read. `Frame`: a function that calls, allocates, loops
//!   (a poll of the minor heap heads each loop), raises or pushes a handler sets up a stack
//!   frame on entry (a function's tail call to itself jumps past it). All three come from the liveness pass (`liveness.rs`).
//! - **Branches the processor mispredicts** count `JumpMiss` (a `match` of more than two arms
//!   jumps through a table) and `BranchMiss` (an `if`): the run's branches are recorded and
//!   replayed through model predictors (`table_jump.rs`, `two_way.rs`; the replay in
//!   `branch_trace.rs`) three times — the first two passes are the benchmark's previous
//!   runs, whose identical outcomes the predictor has partly memorised — and the misses of
//!   the third are counted. How much the two-way predictor memorises is the machine's, like
//!   its cache sizes ([`branch_memory`]: the coin tosses a run of the suite measured its
//!   processor to keep).
//! - **Returns the processor mispredicts** count `ReturnMiss`: a model of the ring of return
//!   addresses (`return_stack.rs`) follows every non-tail call, by its call site, and its
//!   return; a recursion deeper than the ring misses where the stale entry a return reads holds
//!   another site — once per level beyond it when it calls on its way back.
//! - **Closures.** `FunDef` + `Closure` × |captured variables| for every closure *allocated*.
//!   Free variables are computed statically; top-level values, compile-time constants and
//!   closed functions are not captured, and a function without captured variables is static
//!   data in `ocamlopt`'s output (measured: 0 words allocated), so creating it counts nothing.
//!   The binding constructs `LetLambda` and `LetRec` are counted per binding regardless.
//! - **A boolean tested** counts `BoolTest`: a condition decided by a value rather than by a
//!   comparison (`if p x then`, a flag, a polymorphic `=`'s answer) compares it with `true`
//!   and jumps.
//! - **Blocks allocated together** count `AllocMerged`: ocamlopt's Comballoc pass makes one
//!   allocation of the blocks of a basic block that no call or branch separates (`(x :: rx,
//!   y :: ry)`: one limit test for three blocks), and each block that joins the one before it
//!   runs three instructions fewer than its own construct holds (`comballoc.rs`).
//! - **Constants are free.** Literals, and tuples, lists and constructors built only from
//!   constants (also through `let`-bound constants) are static data: `[1; 2; 3]` counts no
//!   `Cons`, `[x; 1; 2]` one.
//! - **Patterns.** `PatternMatch` counts each arm tried (the paper's `append1`/`append2`
//!   comparison implies per-case counting), but not the last arm of an exhaustive match
//!   without a guard, which native code reaches when the other tests fail (`exhaustive.rs`);
//!   a `when` guard's own operations are counted when
//!   it runs; an or-pattern is one arm. A match on three or more constructors or constants
//!   leading to three or more places is a jump through a table: one `TableJump`, and a
//!   `PatternMatch` only for the arms of the value's constructor whose fields test more.
//!   `TupleMatch` counts each field read from a tuple (a wildcard field is not read). In
//!   `match (a, b) with …` and `let (x, y) = (a, b)` no tuple is built (as in native code).
//!   A function whose one parameter is a tuple pattern (`let rec gcd (a, b) = …`) is
//!   *tupled*, as ocamlopt compiles it: a known call with the tuple written out (`gcd (b, a
//!   mod b)`) passes the components, building and reading nothing; called with a tuple value
//!   or through a function value, its entry reads the fields (`TupleMatch` each) and jumps
//!   (`TailApp`).
//! - **`fst` / `snd`** read one field: one `TupleMatch`. **`not`**, **`&&`**, **`||`**:
//!   `BoolNot`, `BoolAnd`, `BoolOr` where their value is kept (not in a condition, where they
//!   are their operands' jumps, nor returned).
//!   **Constructors** with arguments allocate: `VariantHead` + `VariantElem` × arity
//!   (`::` is `Cons`); constant constructors and `[]` are immediates, free. **List literals**
//!   count one `Cons` per non-constant cell.
//! - **Exceptions.** `raise`, `failwith`, `invalid_arg` count `Raise` (the latter two also
//!   the exception block they build); each `try` counts `TryWith`; a caught exception counts
//!   `PatternMatch` per handler arm tried. A `match` with `exception` cases is a `try` around
//!   its scrutinee alone (one `TryWith`): its value's cases run after the trap is popped, so
//!   a call there is a tail call and what they raise passes the `exception` cases by.
//! - **Floats are boxed where ocamlopt boxes them**: a new float passed, returned or stored
//!   counts `FloatBox` (see `boxing.rs`); arithmetic inside one expression stays unboxed. A
//!   read from a float array or a record of floats is a new (unboxed) float; a store into one
//!   takes the double unboxed.
//! - **Records and arrays are blocks like tuples.** Building a record, a reference (`ref e`)
//!   or an array literal counts `TupleHead` + `TupleElem` per field (the same inline
//!   allocation); reading a field or `!r` counts `TupleMatch`. A record whose fields are all
//!   floats and a `float array` are flat blocks of doubles (1 + n words). Stores count
//!   `FieldSet` (an immediate or a flat double) or `CamlModify` (a value that may be a
//!   pointer: the write barrier; `CamlModifyYoung` by the chance that the block is still in
//!   the minor heap, where `caml_modify` returns at once); `a.(i)` and `a.(i) <- v` count `ArrayGet` / `ArraySet`, which
//!   include the bounds check, as `Array.length` counts `ArrayLength`. `Array.make n x` is a C
//!   call, `ArrayMake` + `ArrayMakeWord` × n; beyond 256 elements it allocates directly in the
//!   major heap ([`Allocation::direct_major_words`]). `Array.copy`/`append`/`sub`/`concat`/
//!   `blit`/`fill` are array.ml's code around the runtime's copies (`lower_array`):
//!   `ArrayCopy` per `caml_array_gather`, `BytesCopy` per blit or fill, and per element a
//!   `memcpy`/`memmove` word, a plain store, a `caml_initialize` (`ArrayInitWord`), a
//!   `caml_modify` or an inline barrier (`ArrayBarrierWord`), by whether the destination is a
//!   float array, young or old.
//! - **Strings.** A char is an immediate. `s.[i]` / `String.get` / `Bytes.get` count
//!   `StringGet`, `Bytes.set` `StringSet`, `String.length` `StringLength` (inline code: a
//!   header load, the padding byte, a bounds check); the `unsafe_` forms `StringUnsafeGet`
//!   and `BytesUnsafeSet` (no check, but the index untagged). The Stdlib's string functions written in OCaml (`^`, `Bytes.make`,
//!   `Char.chr`, …) are counted through their 4.13 code (`prelude.rs`), the others
//!   (`String.init`, `String.concat`, `Bytes.map`, `Char.lowercase_ascii`, …) through the
//!   installed `string.ml`, `bytes.ml`, `char.ml` (`stdlib_link`); their C externals count
//!   `BytesCreate`, and `BytesCopy` + `BytesCopyWord` per 8 bytes moved or filled. The
//!   wrappers ocamlopt inlines even at `-inline 0` (`Bytes.to_string`, `String.make`,
//!   `String.init`, …) count
//!   the call they make, not their own. A string of n bytes is 1 + (n + 8)/8 words.
//! - **A reference that does not escape is a variable** (Simplif's `eliminate_ref`): `let x =
//!   ref e in …` where `x` is only read with `!`, set with `:=`, `incr`ed or `decr`ed, outside
//!   any function, counts `LetData` once; `!x` and `x := v` are then free and `incr x` is an
//!   `IntAdd`. A float one stays unboxed. `incr r` on a real reference, and `r := !r + c` /
//!   `r.f <- r.f + c` on one variable, are one add to memory: `AddToField`.
//! - **Loops.** A `for` loop counts its entry test (`IntCondGT` for `to`, `IntCondLT` for
//!   `downto`) and `ForIter` per iteration; a `while` loop `WhileIter` per iteration, its
//!   condition counted each time it runs.
//! - **Allocation is counted, not fitted**: [`CountResult::allocation`] holds the exact words a
//!   run allocates (ocamlopt's block layouts), how long they live, and the words a store into
//!   an array allocated major put into the remembered set, from which
//!   [`Allocation::promoted_words`] gives the expected promotion for any minor-heap size.
//! - **Reads beyond the cache**: every block read records how many words were touched since
//!   the block's last touch; from these reuse times the run's footprint says how many distinct
//!   words passed through the cache meanwhile, and `FarLoad` counts the expected misses of the
//!   machine's level-2 cache among reads that the prefetcher does not stream ([`cache`],
//!   [`reuse`]). The native stack's frames are followed apart, as a sweep of the stack
//!   pointer: `FarStackWord` counts the words of frame a recursion deeper than the cache
//!   fetches back (the machine's `native_stack`).
//! - **Evaluation order** is right to left for arguments, tuple fields and operands, as in
//!   `ocamlopt`; it matters for which exception escapes first, and for where a value is read
//!   for the last time (so for how long it lives).
//! - **The run.** `input size` and the top-level definitions are evaluated without counting;
//!   `run x` is counted, plus one `Base`; the driver's call of `run` itself is in `Base`.
//!
//! ## Robustness
//! Errors are values, never panics: syntax, unsupported constructs and type errors name
//! `file:line:col` before anything runs; match failure, division by zero and uncaught
//! exceptions name the position where they happened (and whether it was in `input` or
//! `run`). Evaluation runs on reusable threads with a 1 GiB stack: a non-tail `map` over
//! 100 000 elements runs (about 1 KiB of stack per level of OCaml recursion), and the
//! interpreter stops with "recursion too deep" before the stack runs out. Deep values are
//! freed, compared and digested without recursion. The parser and the front end are fuzzed
//! (`tests/fuzz.rs`).
//!
//! ## Speed
//! Variables are resolved to frame slots at load time, frames live on one value stack (no
//! environment is copied), tail calls loop in place, and closed functions are called without
//! building a closure value. The IR is then compiled once into a tree of specialised Rust
//! closures (`exec`), so that running a construct is one indirect call doing that
//! construct's work, and values are shaped so that Rust passes them in registers (`value`).
//! `cargo bench -p semantics --bench interp` reports constructs per second as criterion's
//! throughput (fapp-like code: about 80 million per second of CPU time on the 2-core
//! development machine, twice the tree-walking interpreter it replaced; `array_loop`, a `for`
//! loop reading and writing an int array, 70 to 100 million);
//! `examples/count_speed.rs` measures one program.
//!
//! ## Layout
//! `lexer` → `parser` (+ `parser_expr`, `parser_types`, `parser_pat`, `parser_imperative`) →
//! `tail` (tail-position tags) → `infer` (+ `infer_decl`, `infer_imperative`,
//! `infer_inline_record`, `types`) →
//! `static_handler` (local functions called once, then the tail tags again) → `compile` (+ `compile_app`, `compile_pat`, `compile_imperative`,
//! `compile_inline_record`, `expr_shapes`, `fv`: the AST to the IR) →
//! `ir` → `lower` (+ `lower_data`, `lower_imperative`: the IR lowered to closures) run by
//! `machine` (+ `machine_ops`, `value`), orchestrated by `program` on `worker` threads;
//! `lower_string` the string and `bytes` primitives; `catalogue` is the list of constructs,
//! `prims` the Stdlib primitives, `prelude` the Stdlib functions written in OCaml, `stdlib_source` the `List.…`, `Array.…`,
//! `String.…`, `Bytes.…`, `Char.…`, `Int.…` and `Float.…` functions a program calls, taken from
//! the installed compiler's own `list.ml`, `array.ml`, `string.ml`, … (`stdlib_link` follows
//! their aliases and externals).

mod allocation;
pub mod allocator;
mod ast;
mod boxing;
pub mod branch_memory;
mod branch_trace;
mod by_function;
pub mod cache;
mod callees;
mod two_way;

mod catalogue;
mod chain;
mod comballoc;
mod compile;
mod compile_app;
mod compile_fun;
mod compile_imperative;
mod compile_inline_record;
mod compile_pat;
mod cse_walk;
mod error;
mod exhaustive;
mod expr_shapes;
mod float_call;
mod frame;
mod fv;
mod heap;
mod infer;
mod infer_decl;
mod infer_imperative;
mod infer_inline_record;
mod inline;
mod ir;
mod issue;
mod labels;
mod latency_table;
mod lexer;
mod liveness;
mod loop_carried;
mod lower;
mod lower_array;
mod lower_call;
mod lower_data;
mod lower_imperative;
mod lower_string;
mod machine;
mod machine_ops;
mod open_module;
mod parser;
mod parser_app;
mod parser_expr;
mod parser_imperative;
mod parser_module;
mod parser_pat;
mod parser_types;
mod poll;
mod prelude;
mod prim_constants;
mod prims;
mod program;
mod remembered;
mod return_stack;
mod reuse;
mod scoped_walk;
mod shared_checks;
mod shared_quotients;
mod static_handler;
mod stdlib_link;
mod stdlib_source;
mod table_jump;
mod tagged;
mod tail;
mod types;
mod user_module;
mod value;
mod worker;

pub use allocation::{minor_heap_words, Allocation, LifetimeBucket};
pub use ast::Pos;
pub use by_function::{FunctionCounts, OUTSIDE};
pub use cache::Touches;
pub use catalogue::{catalogue, catalogue_fingerprint, construct, Construct};
pub use error::SemanticsError;
pub use program::{CountResult, Program};
