//! The catalogue of constructs: the one list that `training-gen`, `fit` and the reports read
//! (through [`catalogue`]) and that the interpreter counts (through [`Counter`]). Adding a
//! construct is one line here, one counting rule in the compiler or interpreter, and one
//! training template.
//!
//! The first 37 entries are the paper's (§5); the others extend the language
//! the paper left as future work (user variants, exceptions, bit operations, polymorphic
//! comparison), each with the reason it is a construct of its own; the last ones split what
//! ocamlopt compiles differently — arithmetic by a constant, and the walk of a structural
//! comparison; the string and `bytes` constructs, the self tail call and its poll, the copies
//! of arrays, then the two-way branch mispredicted, close the list.

/// One construct whose cost the model learns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Construct {
    /// Name used in counts, templates and reports (`"FunApp"`).
    pub name: &'static str,
    /// Group for display (`"calls"`, `"int"`, …).
    pub group: &'static str,
    /// What the construct is, and for constructs beyond the paper's, why it is one.
    pub description: &'static str,
    /// When exactly the interpreter counts it.
    pub rule: &'static str,
}

macro_rules! catalogue {
    ($( $name:ident { $group:literal, $description:literal, $rule:literal } )*) => {
        /// Index of a construct in [`CATALOGUE`]: what the interpreter increments.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(u8)]
        pub(crate) enum Counter { $($name),* }

        pub(crate) const COUNTER_COUNT: usize = [$(stringify!($name)),*].len();

        /// The counter of index `i` (the inverse of `Counter as usize`).
        pub(crate) const fn counter_at(i: usize) -> Counter {
            const ALL: [Counter; COUNTER_COUNT] = [$(Counter::$name),*];
            ALL[i]
        }

        static CATALOGUE: [Construct; COUNTER_COUNT] = [
            $(Construct { name: stringify!($name), group: $group, description: $description, rule: $rule }),*
        ];
    };
}

catalogue! {
    FunApp { "calls", "a function call (not in tail position)",
        "once per saturated application not in tail position, whatever the number of arguments (native code calls an n-ary function directly); an over-application counts one FunApp for the saturated part, then applies the result; see PartialApp rules under FunDef" }
    TailApp { "calls", "a tail call (compiled as a jump)",
        "once per saturated application in tail position (tagged by a pass before evaluation), except a known function's call of itself, which is a loop (SelfTailApp); also once when a partial application's closure forwards to the original function (caml_curry's jump)" }
    FunDef { "calls", "allocation of a closure",
        "once per closure allocated at run time: a local `fun`/`function`/`let f x = …` that captures at least one variable, once per function of a `let rec` group that captures variables, and once per partial application; closed functions are static data in ocamlopt's output and count nothing" }
    Closure { "calls", "one captured variable stored in a closure",
        "once per free variable captured at closure creation (free variables are computed statically; top-level values, constants and closed functions are not captured, as in ocamlopt); a partial application of k arguments stores k + 1 values" }
    LetData { "bindings", "a `let` binding of a non-function value",
        "once per evaluated `let p = e` whose right-hand side is not a function and whose pattern is not a tuple (tuple patterns count TupleMatch instead, as in the paper's TUPLEMATCH rule); `let (p1, …, pn) = (e1, …, en)` counts as n bindings since no tuple is built" }
    LetLambda { "bindings", "a `let` binding of a function",
        "once per evaluated non-recursive `let f x = …` / `let f = fun …`, whether or not it allocates (FunDef/Closure count the allocation)" }
    LetRec { "bindings", "a `let rec` binding",
        "once per function bound by an evaluated `let rec` (the paper's factorial: one LetRec)" }
    BoolNot { "bool", "boolean negation", "once per evaluated `not e` whose result is a value (returned, passed, stored or bound); in a condition (the test of an `if` or `while`, a guard, or the operand of `&&`, `||` or `not` there) ocamlopt swaps the branch's targets and it runs no instruction" }
    BoolAnd { "bool", "short-circuit `&&`", "once per evaluated `e1 && e2` whose result is kept as a value (passed, stored or bound), whether or not `e2` runs; in a condition it is its operands' branches, and returned it is `if e1 then e2 else false` in tail position: no instruction of its own" }
    BoolOr { "bool", "short-circuit `||`", "once per evaluated `e1 || e2` whose result is kept as a value (passed, stored or bound), whether or not `e2` runs; in a condition it is its operands' branches, and returned it is `if e1 then true else e2` in tail position: no instruction of its own" }
    IntUMinus { "int", "integer negation", "once per `- e` on a non-literal (`-1` is a constant), and per `abs` of a negative int (ocamlopt inlines `stdlib.ml`'s `if x >= 0 then x else -x`)" }
    IntAdd { "int", "integer addition", "once per `+` (and `succ`)" }
    IntSub { "int", "integer subtraction", "once per `-` (and `pred`)" }
    IntMult { "int", "integer multiplication", "once per `*` neither of whose operands is an integer constant (see IntMultConst)" }
    IntDiv { "int", "integer division (with its zero check)", "once per `/` whose divisor is not an integer constant (see IntDivPow2, IntDivConst), and once per `/ 0`, which raises Division_by_zero" }
    IntMod { "int", "integer remainder (with its zero check)", "once per `mod` whose divisor is not an integer constant (see IntModPow2, IntModConst), and once per `mod 0`, which raises Division_by_zero" }
    IntCondEq { "int", "equality test on an immediate type",
        "once per `=` or `<>` whose operands have an immediate type (int, char, bool, unit, variants without arguments), and once per `==` / `!=` at any type (a word compare)" }
    IntCondLT { "int", "`<` on an immediate type", "once per `<` at an immediate type" }
    IntCondLE { "int", "`<=` on an immediate type", "once per `<=` at an immediate type" }
    IntCondGT { "int", "`>` on an immediate type", "once per `>` at an immediate type" }
    IntCondGE { "int", "`>=` on an immediate type", "once per `>=` at an immediate type, and per `abs` (its inlined test `x >= 0`)" }
    FloatUMinus { "float", "float negation — and `abs_float`, the same single mask instruction (`andpd` where `-.` has `xorpd`)", "once per `-. e` on a non-literal and per `abs_float`" }
    FloatAdd { "float", "float addition", "once per `+.`" }
    FloatSub { "float", "float subtraction", "once per `-.`" }
    FloatMult { "float", "float multiplication", "once per `*.`" }
    FloatDiv { "float", "float division", "once per `/.`" }
    FloatCondEq { "float", "float equality test", "once per `=` or `<>` at type float" }
    FloatCondLT { "float", "float `<`", "once per `<` at type float" }
    FloatCondLE { "float", "float `<=`", "once per `<=` at type float" }
    FloatCondGT { "float", "float `>`", "once per `>` at type float" }
    FloatCondGE { "float", "float `>=`", "once per `>=` at type float" }
    PatternMatch { "data", "one case of a pattern match tried",
        "once per arm tried by `match`, `function` or a `try` handler, in order until one matches (its pattern matches and its guard, if any, holds), except the last arm of an exhaustive `match` or `function` when it has no guard: ocamlopt's match compiler reaches it where the other arms' tests fail, without a test of its own (`[] -> … | x :: t -> …` is one compare whichever arm runs; exhaustiveness over the guard-free arms, nested patterns included, see exhaustive.rs); a `try` handler is never exhaustive; once per refutable `let` pattern. Once an arm's constructor has matched and only its guard failed, the arms below with that constructor and fields that test nothing, wildcards, other constructors and constants count nothing: ocamlopt tests the constructor once and tries the guards in turn (`| Node (l, k, r) when x < k -> … | Node (l, k, r) when x > k -> …`)" }
    TupleHead { "data", "allocation of a tuple", "once per tuple built at run time (constant tuples are static data; `match (a, b) with` builds none, nor does a known call `f (x, y)` of a function whose parameter is a tuple pattern, which takes the components: ocamlopt's tupled functions)" }
    TupleElem { "data", "one field of a tuple built", "once per field of each tuple built at run time" }
    TupleMatch { "data", "one field read out of a tuple",
        "once per field of a tuple pattern matched against a tuple value (in `let`, parameters and `match`), and once per `fst` / `snd`" }
    Cons { "data", "allocation of a list cell `::`", "once per `::` cell built at run time, including each element of a non-constant list literal" }
    Base { "run", "the fixed cost of one measured run", "once per run" }
    VariantHead { "data", "allocation of a constructor block (`Some x`, `Node (l, v, r)`, an exception with arguments) — a variant is a block like a tuple, but its tag is a real store and it is built from a constructor, not a tuple expression, so it gets its own constant",
        "once per non-constant constructor applied at run time (constant constructors are immediates; constructors of constants are static data)" }
    VariantElem { "data", "one argument stored in a constructor block — the per-field cost, as TupleElem for tuples",
        "once per argument of each constructor block built at run time" }
    PolyCompare { "compare", "a structural comparison through the runtime (`caml_equal`, `caml_compare`, …) — a C call that walks both values, one to two orders of magnitude costlier than a word compare",
        "once per `=`, `<>`, `<`, `<=`, `>`, `>=` or `compare` whose operand type is not immediate and not float after type inference (lists, tuples, options, strings, type variables): what ocamlopt's type-directed specialisation leaves generic" }
    IntCompare { "int", "`compare` on an immediate type — ocamlopt inlines it as a three-way word compare, cheaper than the C call and unlike a single test",
        "once per `compare` at an immediate type" }
    FloatCompare { "float", "`compare` on floats — inlined three-way float compare with NaN handling",
        "once per `compare` at type float" }
    IntLand { "int", "bitwise and — one ALU instruction on tagged ints, unlike multiplication or division", "once per `land`" }
    IntLor { "int", "bitwise or", "once per `lor`" }
    IntLxor { "int", "bitwise exclusive or (needs re-tagging, unlike land/lor)", "once per `lxor`, and per `lnot` (`stdlib.ml`'s `x lxor (-1)`, inlined: an `xor` and the re-tagging `or`)" }
    IntLsl { "int", "left shift — untag, shift, retag: costlier than land", "once per `lsl`" }
    IntLsr { "int", "logical right shift", "once per `lsr`" }
    IntAsr { "int", "arithmetic right shift", "once per `asr`" }
    FloatOfInt { "float", "int-to-float conversion (cvtsi2sd plus boxing where the result escapes) — needed to build float data from a size", "once per `float_of_int` / `float`" }
    IntOfFloat { "float", "float-to-int truncation (cvttsd2si)", "once per `int_of_float` / `truncate`" }
    FloatBox { "float", "boxing a float: ocamlopt computes floats unboxed in registers and allocates a 2-word block (header, double) when one leaves its expression as a value — an allocation and a store, costlier than the arithmetic that made the float, and invisible in the source",
        "once per new float (the result of float arithmetic, `-.`, `float_of_int`, or a `let`-bound variable holding one) passed to a function, returned, or stored in a tuple, list cell, constructor, exception or closure; pushed into the branches of `if`/`match`/`let`, so only branches that compute a float box; a `let`-bound new float is boxed again at each such use; parameters, fields and constants are already boxed and count nothing" }
    Raise { "exceptions", "raising an exception — a jump to the nearest handler, which is cheap in OCaml and nothing like a call",
        "once per `raise`, `failwith` or `invalid_arg` evaluated (failwith/invalid_arg also count the VariantHead/VariantElem of the exception they build); exceptions raised by the runtime (Division_by_zero, Match_failure) count only the operation that raised" }
    TryWith { "exceptions", "entering a `try … with` — pushing and popping a trap frame on the stack",
        "once per `try` evaluated, and per `match` with `exception` cases (the trap covers its scrutinee only); the handler's arms count PatternMatch when an exception is caught" }
    IntMultConst { "int", "multiplication by an integer constant — ocamlopt 4.13 folds the constant into the instruction: `n * 2^k` is an `lea` or a shift, `n * c` one `imul` by an immediate and a re-tagging add; IntMult untags, multiplies and re-tags",
        "once per `*` one of whose operands (either side) is an integer constant — a literal, `max_int`/`min_int` or a `let`-bound constant, which ocamlopt propagates — except `* 0` and `* 1`, which compile to nothing and count nothing, and `* (-1)`, a negation that counts IntUMinus" }
    IntDivPow2 { "int", "division by a constant power of two — shifts and an add that round towards zero (5–6 instructions, then a negation for a negative divisor): no `idiv`, no zero check",
        "once per `/` whose divisor is an integer constant ±2^k with k ≥ 1; `/ 1` counts nothing, `/ (-1)` counts IntUMinus, `/ 0` counts IntDiv and raises Division_by_zero; a constant dividend over a variable divisor is IntDiv" }
    IntDivConst { "int", "division by any other constant — a multiply-high by the divisor's reciprocal (one-operand `imul` of a 64-bit magic number), shifts and an add (8 instructions): no `idiv`, no zero check",
        "once per `/` whose divisor is an integer constant other than 0, ±1 and ±2^k" }
    IntModPow2 { "int", "remainder by a constant power of two — shifts, an `and` and a subtraction (8 instructions): no `idiv`, no zero check",
        "once per `mod` whose divisor is an integer constant ±2^k with k ≥ 1 (the divisor's sign does not change `mod`); `mod 1` and `mod (-1)` count nothing (the result is 0), `mod 0` counts IntMod and raises Division_by_zero" }
    IntModConst { "int", "remainder by any other constant — the reciprocal division, an `imul` by the divisor and a subtraction (12 instructions, two multiplies): no `idiv`",
        "once per `mod` whose divisor is an integer constant other than 0, ±1 and ±2^k" }
    PolyCompareStep { "compare", "one pair of values examined by the runtime's structural comparison — one iteration of `do_compare_val`'s loop (runtime/compare.c, OCaml 4.13): two immediates, or the tags and sizes of two blocks, two boxed floats or a `memcmp` of two strings. PolyCompare is the C call; this is its walk, which grows with the values compared",
        "once per pair of values the runtime examines, the root pair included: a pair of blocks with equal tags and sizes goes on to their fields, pair by pair, left to right (a list cell's head, then its tail), depth first; the walk stops at the first pair that differs (two different immediates, an immediate and a block, different tags or sizes, floats or strings). `compare` does not descend into two physically equal values; `=`, `<>`, `<`, … do (compare.c's `total` flag), except for strings. A string pair is one step whatever its length: on two values typed string ocamlopt calls `caml_string_equal` / `caml_string_compare` (runtime/str.c) instead of `caml_equal`, one C call that compares the words (or `memcmp`s the bytes); its per-word part, a few cycles per 8 bytes, is not separated, since the keys programs compare are short and a length or first-word difference stops it at once" }
    ApplyN { "calls", "applying an unknown function to two or more arguments: ocamlopt 4.13 cannot call its code directly, so it calls (or, in tail position, jumps to) the runtime's `caml_applyN`, which loads the closure's arity, compares it with N and jumps to the code — seven instructions more than a known call. With one argument there is nothing to check and the call goes straight through the code pointer",
        "once per saturated application of N ≥ 2 arguments to a function value the compiler does not know at the call (a parameter, a tuple field, a list element, a function returned by another), in addition to its FunApp or TailApp; also when such an application completes a partial application" }
    Spill { "calls", "a value kept across a call: OCaml's native calling convention saves no register for the caller, so every variable still needed after a non-tail call, and every operand already computed when a later operand calls, is stored in the stack frame before the call and loaded back after it. The source shows no trace of it; in `n * fact (n - 1)` it is the cost of `n`",
        "one per store and one per load: at each non-tail call (FunApp), a store of each variable read after the call returns that has not been stored since it was last written (ocamlopt stores a variable once, before the first call it must survive), a load of each such variable read before the next call (one load after the last call before each read: `make`'s `x`, kept across three calls of `rank`, is stored once and loaded once), and a store and a load of each operand of the enclosing operators, calls and constructors that native code evaluates before the call (right to left; a call's function last) and that is not a constant or a variable, at the last call before the construct uses it; a pattern variable read once counts through its matched block (see the liveness pass)" }
    Frame { "calls", "setting up and removing a function's stack frame (a `sub` and an `add` of the stack pointer): ocamlopt 4.13 gives a frame to any function that makes a non-tail call, may allocate (calling the collector), polls the minor heap's limit at the head of a loop (a `for`, a `while`, a tail call to itself), raises, pushes a handler or calls C; a leaf that only computes and tail-calls other functions has none",
        "once per entry into such a function by a call or by a tail call from another function; a function's tail call to itself jumps past the prologue and counts nothing" }
    JumpMiss { "control", "a jump through a table whose target the processor mispredicted: a `match` on three or more constructors is compiled to a table jump, and when its target changes with the data — the constructor of each node of a random tree — the indirect-branch predictor misses, about 10 ns each here, more than the whole match costs when predicted. Two-way branches are BranchMiss",
        "once per `match` compiled to a table jump — its arms test at least three different constructors or constants at the top — whose chosen arm differs from what a model predictor expects on the third of three identical runs (the arm last chosen at the same match after the same six previous table jumps, which learns a constant or short cyclic pattern, memorises the arms of a short run, and misses three in four of a long run of four random arms); a script is counted on one cold run" }
    ReturnMiss { "control", "a return the processor mispredicted: returns are predicted from a ring of the last 32 return addresses, which a non-tail recursion deeper than that overwrites on its way down; a return beyond the 32nd on the way back reads what a deeper level or a call made on the way back left there: once per level when a call is made then (`f x :: map f t`, `f a (fold_right f l acc)`, `insert x (sort t)`), and wherever the entry 32 levels down holds another call site (a tree walk or `collatz` recursing from two sites). 0.5–6 ns, depending on the code around it. Separate because it depends on the depth and on where the calls are, which no count of calls sees: the same `map` with `f` called before the recursive call pays nothing (see semantics/src/return_stack.rs)",
        "once per return from a non-tail call (FunApp) whose call site is not the one the model's ring of 32 return addresses holds at its top: a call writes its site above the top and moves the top up, a return reads the top and moves it down; tail calls write nothing; a raise moves the top neither way; a call into the runtime's C code (CamlModify, PolyCompare, ArrayMake, ArrayCopy, BytesCreate, BytesCopy) writes the entry above the top; the driver's call of `run` starts the ring afresh, and its own return is not counted" }
    ForIter { "loops", "one iteration of a `for` loop — after the body, ocamlopt copies the counter, adds 2 (a tagged 1) and compares the old value with the bound (Cmmgen's `Ufor`): a move, an add, a compare and a branch back; the entry test before the first iteration is an ordinary compare (IntCondGT for `to`, IntCondLT for `downto`)",
        "once per execution of a `for` loop's body; once per `for` evaluated also IntCondGT (`to`) or IntCondLT (`downto`), the test that skips an empty loop; the bounds are evaluated once, the lower first" }
    WhileIter { "loops", "one iteration of a `while` loop — the jump back to the test; the test's own compare and branch are its condition's constructs",
        "once per execution of a `while` loop's body (the condition is counted each time it runs, by what it computes)" }
    ArrayGet { "arrays", "reading `a.(i)` — ocamlopt 4.13 loads the header, compares the index with the length (one `cmp` and a `jbe` to `caml_ml_array_bound_error`) and loads the element; on a `float array` the double is loaded unboxed (boxed only where it escapes: FloatBox)",
        "once per `a.(i)` or `Array.get a i` evaluated on an int, pointer or float array (an index out of bounds raises Invalid_argument \"index out of bounds\" after counting it), except a read of an element already read with nothing between that calls, allocates, stores, joins two branches or changes the index (`if a.(i) > 0 then a.(i)`, `while … && a.(!j) > x do … a.(!j) …`): ocamlopt's CSE keeps the value in a register and the read counts nothing (see shared_checks.rs); `Array.unsafe_get`, the load alone, counts TupleMatch. On an array whose element type is a type variable (the code of array.ml: `Array.iter`, `Array.fold_left`, …) ocamlopt tests the tag at run time instead — a header load, a compare and a branch, the bounds check's shape — so a generic `unsafe_get` counts ArrayGet, a generic `a.(i)` ArrayGet and ArrayLength, and a double read from a float array that way FloatBox besides (the type says 'a: it leaves boxed)" }
    ArraySet { "arrays", "writing `a.(i) <- v` — the same bounds check, then one store (an unboxed double in a `float array`); a pointer array's store is a call to `caml_modify` instead, counted as CamlModify besides",
        "once per `a.(i) <- v` or `Array.set a i v` evaluated, except when `a` and `i` are variables (or `!r`, or either plus or minus a constant) and `a.(i)` was read, by `v` or before it, with nothing between that calls, allocates, stores or joins two branches (`h.(b) <- h.(b) + 1`; see shared_checks.rs): ocamlopt's CSE then reuses the read's header load and bounds check, and the store counts FieldSet (or CamlModify) alone, as `Array.unsafe_set` does. A generic store (element type a type variable, as in array.ml's `init` and `map`) counts ArraySet for the tag test (and ArrayLength when checked), then CamlModify unless the array holds flat doubles: the type cannot tell an int from a pointer" }
    ArrayLength { "arrays", "`Array.length a` — a header load and a shift, no call",
        "once per `Array.length a` evaluated" }
    ArrayMake { "arrays", "`Array.make n x` — a call into the runtime's `caml_make_vect` (C), which allocates the block (in the major heap directly beyond 256 words) and fills it; this is the call, ArrayMakeWord the filling",
        "once per `Array.make` evaluated" }
    ArrayMakeWord { "arrays", "one element filled by `caml_make_vect` — the C loop's store per word, the part of `Array.make` that grows with n",
        "n per `Array.make n x` evaluated, and per element `Array.fill` writes into a float array or one the run allocated in the minor heap (`caml_array_fill`'s plain store loop, the same as `caml_make_vect`'s)" }
    FieldSet { "records", "a store into a mutable record field or a reference that cannot hold a pointer (`r.f <- v` at an immediate type or into a float record, `r := v` on an `int ref` that is a real block): one `mov`",
        "once per `r.f <- v` or `r := v` whose value has an immediate type (int, char, bool, unit, constant-only variants), or into a record of floats, and once per array or `Bytes.set` store whose bounds check CSE shared (see ArraySet, StringSet); a reference that ocamlopt turned into a variable counts nothing for `:=`" }
    CamlModify { "records", "the write barrier: storing a value that may be a pointer into a mutable block calls `caml_modify` (runtime/memory.c), which records old-to-young pointers — a call, far costlier than a store",
        "once per `r.f <- v`, `r := v` or `a.(i) <- v` whose value's type is not immediate and not a float stored flat (lists, records, strings, boxed floats in a polymorphic or non-float record, type variables), and per element `caml_array_blit` (`Array.blit`) moves into an array of values the run did not allocate in the minor heap, whatever the element type: the runtime calls `caml_modify` for each" }
    AddToField { "records", "adding a constant to an int field in place — `incr r` and `decr r` on a reference that stays a block (`Poffsetref`), and `r := !r + c`, `r.f <- r.f + c` on one variable, which ocamlopt's amd64 instruction selection turns into one `add` to memory (`Ioffset_loc`): no load, no separate store",
        "once per `incr r` / `decr r` on a real reference (one that escapes into a function, a data structure or a call), and once per `r := !r ± c` or `r.f <- r.f ± c` whose block is the same variable on both sides and `c` an integer literal (nothing else is counted for it: no field read, addition or FieldSet); on a reference ocamlopt turned into a variable, `incr`/`decr` are IntAdd / IntSub" }
    FarLoad { "memory", "a read of a heap block that the processor's level-2 cache no longer holds: a list or tree walked once per run over more data than the cache (512 KiB per core here) waits on the next level for each block not prefetched. Separate because it depends on how much data the run touches, not on which construct reads: the same `match` on a cons is 1 ns within the cache and several times that beyond it",
        "per read of a block (a cons, tuple, variant or record matched or projected; an array element does not count) that the prefetcher does not stream — its block lies more than 512 words (a 4 KiB page) from the last far read of each of 8 streams — the probability that a cache of C words with random replacement lost it: 1 − e^(−I/C), I the words inserted into the cache since the block's last touch — the distinct words touched since (the run's average footprint over a window of that many words touched, allocations new, every read weighed by the probability it missed), a fixed point taken from everything missing downward (semantics/src/reuse.rs); a block built before the run is first read a whole run after the last run read it; the sum is rounded. C is the machine's level-2 data cache (from /sys; `MLCOST_CACHE_BYTES` overrides it), so this count, unlike the others, depends on the machine" }
    MemoryLoad { "memory", "a FarLoad the last level does not serve either: a read of a heap block, not streamed, that waits on the memory rather than the level 3. Separate from FarLoad because it costs several times as much (a search tree walked at random costs about 20 ns a node beyond the level 2 at 0.8 MB and 25–30 ns at 3.8 MB on the AMD host, measured) and because the level 3 is shared: what a run keeps of it depends on its neighbours, not only on its own data",
        "as FarLoad's rule, against a cache of the run's share of the last level (a sixteenth of the level 3 from /sys, 2 MiB here; `MLCOST_LAST_LEVEL_SHARE_BYTES` overrides it) instead of the level 2: the expected reads, not streamed, that miss it, summed and rounded; each is also a FarLoad" }
    FarStreamWord { "memory", "a word of a heap block the level-2 cache no longer holds, read where the prefetcher streams it: a list walked in the order it was built, over more data than the last-level cache holds, waits on the memory's bandwidth rather than its latency (from the level 3 the prefetcher hides it). Separate from FarLoad because a stream pays per word, not per block, much less, and only beyond the last level (nothing on the Intel host this was first measured on, about 0.7 ns a word beyond 32 MB on the AMD host, none within 5 MB), and from the constructs that read because it depends on how much data the run walks",
        "per read of a block (as FarLoad's: an array element does not count) that the prefetcher streams — within 512 words of the last far read of one of its 8 streams — the block's words times the share of a stream a last-level cache of L words shared with other cores no longer holds after D distinct words passed through it (the footprint of FarLoad's rule): none up to L/4, all from 3L/4, (D − L/4)/(L/2) between (measured on the AMD host: see semantics/src/cache.rs); summed over the run and rounded. L is the machine's level-3 cache (from /sys; `MLCOST_LAST_LEVEL_CACHE_BYTES` overrides it), so this count depends on the machine as FarLoad does" }
    PromotedWord { "gc", "a word a minor collection finds alive and copies to the major heap, where it is then allocated, marked and swept: what makes collections cost with what survives. A list built and kept to the end of the run costs several times a list of garbage once it outgrows the minor heap. Separate because it depends on how long blocks live, not on which construct built them",
        "the expected words promoted per run, rounded: Σ over the blocks the run allocates in the minor heap of w · min(a, H) / H, w the block's words (header included) and a its age at death in words allocated since its birth, for a minor heap of H words (the runtime's, 256 Ki words unless OCAMLRUNPARAM's `s` says otherwise); closures and blocks allocated directly in the major heap are never promoted" }
    ScannedFrame { "gc", "a native stack frame walked by a minor collection: OCaml 4 scans the whole stack at every minor collection, looking each return address up in the frame table (6.6 ns per frame measured here), so a deep non-tail recursion that allocates — `List.map`, `append`, `fold_right` building a list — pays for its depth at every collection. Separate because it grows with depth × allocation, which no other count sees",
        "the expected frames walked per run, rounded: Σ over the words allocated in the minor heap of the frames live at that allocation (functions with a frame, by `Frame`'s rule, under way), divided by the minor heap's H words, as a collection falls on each allocated word with probability 1/H" }
    MajorWord { "gc", "a word allocated directly in the major heap — an array of more than 256 words (`Array.make`), which `caml_alloc_shr` places in the major heap's free list; the major collector must then mark and sweep it, and a large block is often fresh memory the run writes for the first time. Separate because its cost is the major collector's and the memory's, not the filling loop's: a 300 000-word array costs several nanoseconds a word beyond the store that fills it",
        "per word (header included) of each block allocated directly in the major heap during the run: arrays of more than 256 words (Max_young_wosize)" }
    ChainCycle { "latency", "a cycle of the dependence chain a loop carries from one iteration to the next: the construct costs are throughput costs (their templates mostly run independent operations), while a loop whose every iteration waits on the last — `acc * n`, a Horner step `acc *. x +. c` through a boxed float, `s := next !s` — runs at the speed of that chain. Separate because the same operations cost several times more on a chain than beside it. Counted only where the chain binds: beyond the cycles the iteration takes to issue its instructions, which the other constructs already price",
        "per iteration of a loop, the cycles by which the longest chain it carries exceeds the iteration's issue — its instructions (`semantics/src/issue.rs`'s table, callees included) at 6 a cycle (this core's rename width); fractions carry over to the next iteration; an iteration of a recursive function ends where its self call enters it again, and the first begins at its entry. The chain is the longest of dependent operations it carries, found statically (`semantics/src/chain.rs`): at each call of a function by itself in tail position, the longest latency from a parameter to the argument passed in its place; at each non-tail call of a function by itself, the latency from its result to the function's return value, weighed when the call returns against the instructions issued since a self call of the function last entered or returned (a level of the way back), except in a tree recursion (more than one self call site), whose ways down and back interleave and which weighs it when the call enters against all since the last entry; in a linear recursion (one self call site), also the way down — the longest latency from a parameter to the argument in its place, weighed when the call enters — once the recursion is more than 32 levels deep (shallower, it overlaps the code around it); at each iteration of a `for` or `while`, the latencies from each variable the body assigns to the values assigned to each; of all these, the slowest cycle per iteration (Karp's maximum cycle mean: a value feeding itself is a cycle of one iteration, two feeding each other — Mandelbrot's `zr` and `zi` — carry their round trip over two); and in loops and tail recursions, from the float result an iteration computed last through a `float_of_int` of the next (`cvtsi2sd` waits for its register's last writer) to the next iteration's last float result. A loop instance (a `for` or `while` run, a call of a tail-recursive function from outside) counts its chain in full only past its first 512 instructions, over which it ramps in from nothing (the reorder window: the code after a short loop overlaps its chain, so Horner over 13 coefficients point after point counts almost none), unless its iteration divides floats (the float divider is shared: `FloatDiv`, `FloatSqrt`; the cycles an instance dividing integers leaves out ramping in are DivisionRampCycle), or the branch just before it was mispredicted (the pipeline restarts at the instance: the ramp's cycles are counted after all once the run's branches are replayed). Latencies in cycles of ocamlopt's amd64 sequences, calibrated on the chain templates: add, sub, and, or 1 (a retagging `add $1` is free on this core); xor, shifts 2; mul 4 through its left operand, 5 through its right one, which ocamlopt untags on the chain (3 by a constant); div and mod 22 (6 by a power of two, 9 and 14 by another constant); float add, sub 2, mul 4, div 13; an int comparison's value 2; a load (a field, a list cell, an array element, a boxed float read — not a float variable kept unboxed) 5; a float boxed for the next iteration 2 more; in a `for` loop, an array element the iteration stores at `a.(i + c)` and the next loads (`a.(i + c - 1)` counting up: prefix sums) is carried like a variable, its load a store forwarded, 5 + 2; so is, in a `for` or `while` loop, a float field of a record bound before the loop that the body stores (`r.x <- r.y +. 1.0`), read in the same iteration after the store or in the next (an integer field is not: its store and load are renamed away); a tuple or a constructor built of values carries their latencies to the loads of its fields, the store and the load of a field adding nothing (`(b, (a + b) mod p)` matched as `(a, b)` by the next iteration: 15); a call of a known function adds its body's latency, a call through a closure the mean of the bodies of the functions the program lets escape that still expect as many arguments (closures built, functions named as values, partial applications); conditions carry none (branches are predicted); and, per mispredicted `if` or `while` test (BranchMiss) and table jump (JumpMiss: its value's cycles and the tag's load), the cycles its condition takes to compute from what the iteration begins with — its operands' loads, the operations and the calls it waits on (`if p x`: the cell's load and `p`'s body) — which the processor spends on the wrong path before it finds the miss" }
    FloatMergeCycle { "latency", "a cycle of a loop's chain that exists only because `cvtsi2sd`, ocamlopt's `float_of_int`, writes the low half of its register and keeps the high half, so that it waits for the register's last writer — most often the float result the iteration before computed last: Simpson's rule, `s := !s +. f (a +. h *. float_of_int i)`, then runs its iterations one after the other. Separate from ChainCycle because cores differ on it most of all: the core the latency table comes from takes 45 cycles an iteration of that loop, an AMD Zen 3 11, as if the wait were not there",
        "the part of ChainCycle's count, iteration by iteration, that the chain loses when `float_of_int` is walked without the wait (the loop's chain walked again so); whole cycles at the end of the run, taken from ChainCycle" }
    FloatChainCycle { "latency", "a cycle of a loop's chain spent in float operations — add, subtract, multiply, divide, square root, comparisons, conversions: a Horner step, a dot product's accumulator, Newton's iteration. Separate from ChainCycle because float latencies differ from one core to the next in other ratios than the integer ones (the table's core adds in 2 cycles and multiplies in 4; Zen 3 does both in 3), and one price per cycle for both kinds underpredicts float loops on one core and integer ones on the other",
        "the part of ChainCycle's count, iteration by iteration, that the chain (without FloatMergeCycle's part) loses when its float operations are walked at no cycles (scaled down with DivisionChainCycle's and ForwardChainCycle's where together they would exceed it); whole cycles at the end of the run, taken from ChainCycle. The cycles a mispredicted branch spends waiting for its condition stay ChainCycle, whatever they wait on" }
    DivisionChainCycle { "latency", "a cycle of a loop's chain spent in an integer division or remainder by a variable (`idiv`, whose latency depends on the core and the operands' size: 22 cycles in the table, about 11 on Zen 3 for the small operands of `gcd` and `digit_sum`). Separate from ChainCycle because a division is a chain's longest operation by far, and its ratio to an add is what moves most between cores: priced with the other cycles, Euclid's `gcd` was overpredicted 1.9× on Zen 3",
        "the part of ChainCycle's count, iteration by iteration, that the chain (without FloatMergeCycle's part) loses when IntDiv and IntMod are walked at no cycles (scaled down with FloatChainCycle's and ForwardChainCycle's where together they would exceed it); whole cycles at the end of the run, taken from ChainCycle. The cycles a mispredicted branch spends waiting for its condition stay ChainCycle, whatever they wait on" }
    ForwardChainCycle { "latency", "a cycle of a loop's chain spent waiting for a value the iteration before stored to memory: a float accumulator boxed by one iteration and unboxed by the next (`dot a b (acc +. x *. y)`), a float field or an array element stored for the next iteration. The load waits on the store's forwarding, which cores do at very different speeds (the table's core 7 cycles with the load, Zen 3 about 8 for a double, against 4 to 5 for a load from the cache). Separate from FloatChainCycle, with which it was counted until session 28, because the float operations and the forwarding change by other ratios from one core to the next",
        "the part of ChainCycle's count, iteration by iteration, that the chain (without FloatMergeCycle's part) loses when the load of a boxed float's contents and the box's store, a float field's forwarded load or an array element's forwarded load are walked at no cycles (scaled down with FloatChainCycle's and DivisionChainCycle's where together they would exceed it); whole cycles at the end of the run, taken from ChainCycle" }
    DivisionRampCycle { "latency", "a cycle of chain that a short loop instance dividing integers (`idiv`) leaves out as it ramps in, the code after it overlapping it — Euclid's `gcd` pair after pair. Whether two `idiv` chains overlap is the core's: the Intel host of session 20 ran them one at a time (`gcd` −52% with its ramp left out), Zen 3 runs two at once (one chain of remainders 4.4 ns a remainder, two interleaved 2.4 each; `gcd` at 30 and 200 pairs, its exits predicted, +51% with its chain bound in full, at 5000 pairs, its exits mispredicted, −3%). Separate so that the fit prices what binds: from nothing where the instances overlap to a division chain's cycle where they queue",
        "per iteration of a loop instance (ChainCycle's rule) whose iteration runs an IntDiv or IntMod and no FloatDiv or FloatSqrt, the cycles its chain would count in full beyond what its ramp counted (the first 512 instructions of the instance), unless the branch just before the instance was mispredicted — then ChainCycle counts them, as for any instance; whole cycles at the end of the run. A recursion's levels that divide bind as before and count none" }
    DividerCycle { "latency", "a cycle the divider is busy beyond what the iteration takes to issue: `divsd` and `sqrtsd` run on one unit that starts a new operation only every 4 or 6 cycles, so a loop of little else than float divisions (`1. /. (1. +. x *. x)` per point) runs at the divider's pace, while one that divides among many other instructions (an n-body step, 65 instructions a pair) hides it entirely. Separate because the same division costs from nothing to several cycles by what surrounds it, which an additive price cannot say (priced apart at a throughput, `FloatDiv` and `FloatSqrt` overpredicted the n-body step by 59%)",
        "per iteration of a loop (as ChainCycle's), the divider's busy cycles — 4 per FloatDiv, 6 per FloatSqrt run in the iteration, callees included — beyond the cycles the iteration takes to issue its instructions at 6 a cycle; fractions carry over" }
    CallShadow { "calls", "an instruction of a loop iteration that issues in the shadow of the iteration's calls: a call and its return hold the front end about five cycles whatever the callee does, and a short iteration's other instructions issue meanwhile (`for_all` runs its call and 27 instructions in 1.8 ns an element). Separate because it takes time away: the structured time model takes each off the ordinary instructions whole and gives back, at a constant of its own, what the machine measured does not hide (`callshadow_*`: 9 to 51 instructions beside one call)",
        "per iteration of a loop (each self call of a recursive function, from the previous one or from the function's entry; each iteration of a `for` or `while`), the iteration's instructions other than control transfers (`semantics/src/issue.rs`'s table, callees included; the control transfers FunApp, TailApp, SelfTailApp, IndirectCall, IndirectJump, PatternMatch and TableJump excluded), up to 18 per FunApp of the iteration (a call through `caml_applyN` is one call and one return: it jumps to the closure's code)" }
    StringGet { "strings", "reading a byte `s.[i]` — ocamlopt 4.13 loads the header, computes the length in bytes from the size and the padding byte, compares the index with it (a `jbe` to `caml_ml_array_bound_error`) and loads the byte with `movzbq`, then tags it: a char is an immediate. Separate from ArrayGet because the bounds check computes a byte length (a shift, a load of the last byte, a subtraction), where an array's compares the word count",
        "once per `s.[i]`, `String.get s i` or `Bytes.get b i` evaluated (an index out of bounds raises Invalid_argument \"index out of bounds\" after counting it), except a read of a byte already read with nothing between that calls, allocates, stores or joins two branches, which counts nothing (CSE, as for ArrayGet); `String.unsafe_get` / `Bytes.unsafe_get`, the load alone, count TupleMatch" }
    StringSet { "strings", "writing a byte `Bytes.set b i c` — the same byte-length bounds check as StringGet, then one `movb`: a char cannot be a pointer, so no write barrier",
        "once per `Bytes.set b i c` evaluated, except after a read of `b.[i]` with nothing between that calls, allocates, stores or joins two branches — the check comes before `c` is computed, so a call in `c` does not count (`let c = Bytes.get b i in if c >= 'a' then Bytes.set b i (Char.chr …)`) — which counts FieldSet, the store alone (CSE; see shared_checks.rs); `Bytes.unsafe_set`, the store alone, counts FieldSet" }
    StringLength { "strings", "`String.length s` / `Bytes.length b` — inline: a header load, a shift to the size in words, a load of the block's last byte (the padding length) and a subtraction; no call. Separate from ArrayLength, which is the header load and shift alone",
        "once per `String.length` / `Bytes.length` evaluated, including those inside the Stdlib's string functions (`^`, `Bytes.copy`, `Bytes.sub`)" }
    BytesCreate { "strings", "`Bytes.create n` — a call into the runtime's `caml_create_bytes` (C), which checks n against Sys.max_string_length, allocates the 1 + (n + 8)/8 words (in the major heap directly beyond 256 words of body) and writes the padding byte; the bytes are left as they are, so it does not grow with n",
        "once per `Bytes.create` evaluated, including those of `^`, `Bytes.make`, `Bytes.copy`, `Bytes.sub`, `String.make`, `String.sub`, `Bytes.to_string`, `Bytes.of_string`" }
    BytesCopy { "strings", "a C call that moves or fills bytes: `caml_blit_string`, `caml_blit_bytes` (a `memmove`) and `caml_fill_bytes` (a `memset`), the externals behind `^`, `Bytes.make`, `Bytes.copy`, `Bytes.sub` and their String versions; this is the call, BytesCopyWord the bytes moved",
        "once per `Bytes.unsafe_blit`, `Bytes.unsafe_blit_string` or `Bytes.unsafe_fill` evaluated — the Stdlib calls them twice in `s1 ^ s2`, once in `Bytes.make`, `Bytes.copy`, `Bytes.sub` — and once per `caml_array_blit` and `caml_array_fill` (`Array.blit`, `Array.fill` after their checks): the same C call around a loop, with a tag test and a generation test more and no allocation" }
    BytesCopyWord { "strings", "eight bytes moved or filled by `memmove` / `memset` inside BytesCopy — the part of `^`, `String.make` or `Bytes.copy` that grows with the length",
        "⌈len / 8⌉ per BytesCopy of `len` bytes; per element `caml_array_blit` moves into a float array or one the run allocated in the minor heap, and per element `caml_array_gather` (ArrayCopy) `memcpy`s into a result of at most 256 elements or a float array" }
    FloatSqrt { "float", "`sqrt x` — ocamlopt's amd64 back end turns the C `sqrt` into an inline `sqrtsd` (after an `xorpd` that breaks a false dependency), no call; a long-latency divide-unit operation like FloatDiv, whose time its two instructions do not tell",
        "once per `sqrt` applied" }
    SelfTailApp { "calls", "a function's tail call of itself — ocamlopt 4.13 compiles it as a loop: the arguments are moved into the parameters' registers and a `jmp` goes back past the prologue to the head of the body (1 instruction when the arguments are computed in place; the poll there, when there is one, is LoopPoll). Separate from TailApp because a tail call of another function also leaves through the epilogue (an `add` to the stack pointer) to the callee's entry, so the two differ in code, and list walks and counting loops, the commonest loops, are self tail calls",
        "once per saturated tail call, counted as TailApp would be, of a known function (one bound by `let rec` or `let`, not a parameter or a data field) by itself — the code the call is made from is the callee's own; a tail call of a sibling of its `let rec` group, of a function value, or through a partial or over-application is TailApp" }
    LoopPoll { "calls", "the poll at the head of a loop closed by a self tail call: `cmp (%r14), %r15` and a `jbe` to `caml_call_gc`, so that a signal or a collection does not wait on a loop forever. ocamlopt omits it when every way round the loop allocates (an allocation compares the same limit), so a list walk polls and a loop consing an accumulator does not; separate from SelfTailApp because the same jump costs 1 instruction in one loop and 3 in the other",
        "once per entry into a function whose self tail calls close a loop that polls — some path from the head of its body to a self tail call allocates nothing (no tuple, cons, constructor, closure, record or boxed float on the way; a call of another function is no poll) — and once per such self tail call (see poll.rs); `for` and `while` loops' polls are in ForIter and WhileIter" }
    ArrayCopy { "arrays", "a call of the runtime's `caml_array_gather` (runtime/array.c, 4.13) through `caml_array_sub`, `caml_array_append` or `caml_array_concat`, the externals behind `Array.copy`, `Array.append`, `Array.sub` and `Array.concat`: the C call, the registration of its roots, a pass over the sources for the total size and whether any is a float array, and the allocation of the result (none when it is empty). Separate from ArrayMake, whose C code allocates and fills from one value, because this one also walks its sources and calls `memcpy` once per source; the elements copied are BytesCopyWord (the same `memcpy`) or ArrayInitWord",
        "once per `caml_array_sub`, `caml_array_append` or `caml_array_concat` evaluated: `Array.sub` and `Array.copy` of a non-empty array call the first, `Array.append` of two non-empty arrays the second (of one empty array, `copy` or `sub` of the other), `Array.concat` the third; the result's 1 + n words are allocated in the minor heap up to 256 elements, else directly in the major heap (MajorWord)" }
    ArrayBarrierWord { "arrays", "one element `caml_array_fill` (`Array.fill`) stores into an array of values in the major heap: its loop copies `caml_modify`'s tests inline — the old value (an element already holding the value is skipped), its generation, the collector's phase, the remembered set for a young value — about 12 instructions and 4 branches an element and no call, where into a young or float array the same call is a plain store loop (ArrayMakeWord), and `caml_array_blit` calls `caml_modify` itself per element (CamlModify)",
        "per element `Array.fill` (`caml_array_fill`) writes into an array of values that the run did not allocate in the minor heap (`input`'s data, top-level values, arrays allocated directly major), whether or not the element already held the value" }
    ArrayInitWord { "arrays", "one element `caml_array_gather` (ArrayCopy) stores into a result of more than 256 elements that is not a float array: the result is allocated directly in the major heap, so instead of one `memcpy` (BytesCopyWord) each element goes through a call of `caml_initialize` (runtime/memory.c), which stores it and tests the block's and the value's generations — about 23 instructions an element under valgrind, twice ArrayBarrierWord's inline loop",
        "per element of an `Array.sub`/`copy`/`append`/`concat` result of more than 256 elements that is not a float array" }
    BranchMiss { "control", "a two-way branch — an `if`, a `while` test, the first operand of `&&` or `||` — that the processor mispredicted in the benchmark's steady state, where every run meets the same outcomes as the last: a modern predictor memorises as many of a run's hard outcomes as it has room for, so a run of a few thousand coin tosses costs almost no miss and a run of a million misses half. Separate from the comparison that decides the branch, because the miss — a pipeline flushed — depends on the data and on the run's length, not on the code. What the wrong path ran before the condition was known is counted apart, as ChainCycle: a miss whose condition waits on a division costs twice one that tests a bit (measured: 11 ns against 5). Not counted: the tests of two-arm matches and the exits of `for` loops, mostly list ends and loop ends that a predictor learns",
        "once per `if`, `while` test and first operand of `&&` or `||` whose outcome a model predictor (branch_trace.rs: two-bit counters and loop counters per site, and two tagged tables on the site and the last 8 and 64 outcomes, of 1024 and 6144 entries, 8 ways, allocated on mispredictions) gets wrong on the third of three identical runs — a loop's exit, whose trip count repeats run after run, is predicted by a loop predictor; a script is counted on one cold run" }
    CondValue { "bool", "a comparison whose boolean is a value — returned (a predicate such as `fun x -> x mod 3 = 0`, as `List.filter`, `exists` and `for_all` take them), passed, stored or bound — rather than branched on. In a condition ocamlopt emits a compare and a conditional jump; as a value it materialises the flag (`setcc`, `movzbq`, a retag with `lea`): two to three instructions more, which the comparison's own constant, learnt from conditions, does not hold",
        "once per evaluated `=`, `<>`, `<`, `<=`, `>`, `>=`, `==` or `!=` on immediates or floats outside a condition (the test of an `if` or `while`, a guard, or the operands of `&&`, `||` and `not` there)" }
    PolyCompareBlock { "compare", "a pair of blocks examined by the runtime's structural comparison: beyond the step every pair takes (PolyCompareStep), `do_compare_val` reads both headers, compares tags and sizes, and pushes the fields to walk or compares the contents (floats, strings). A pair with an immediate in it leaves by the loop's first tests: `compare a x = 0` on ints, as `List.mem` and `List.assoc` are written, runs about 31 instructions of walk where a pair of cells runs 52 (valgrind, `poly_eq_int` against the list variants). Separate because it is what makes comparing structures dearer than comparing keys",
        "once per pair of values the walk examines (PolyCompareStep) of which neither is an immediate — two cells, tuples, constructors, boxed floats or strings — unless `compare` skips them as physically equal; an exception with arguments counts one more for its constructor's identity block" }
    BoolTest { "bool", "a condition decided by a boolean value rather than by a comparison — a variable, a predicate's result (`if p x then`, as `List.filter` and `for_all` test theirs), an array element or field, a polymorphic `=`'s answer: ocamlopt compares it with `true` and jumps (`cmpq $1`, `je`), two instructions that a comparison in the same place folds into its own compare",
        "once per evaluation, in a condition (the test of an `if` or `while`, a guard, an operand of `&&`, `||` or `not` there), of an expression that is not itself a comparison of immediates or floats, `==`, `!=`, `&&`, `||` or `not`" }
    BackEdgePoll { "loops", "the poll of the minor heap's limit at the back edge of a `for` or `while` loop (`cmp (%r14), %r15` and a `ja` back to the head, `caml_call_gc` otherwise; read off Debian's 4.13.1): the `ja` is the loop's jump back, so a `while` that polls runs no other. Separate from LoopPoll, the same test at a self tail call's loop head, because here it shares its place with the loop's own test and jump (ForIter, WhileIter), and there with a call's argument moves",
        "once per iteration of a `for` loop but the last (the poll follows the exit test), once per run of a `while` loop's body, unless every way round the loop allocates (an allocation tests the same limit); a call in the body does not spare it, nor does an inner loop" }
    AllocMerged { "data", "a block allocated together with the blocks before it: ocamlopt's Comballoc pass merges the allocations of one basic block that no call or branch separates — `(x :: rx, y :: ry)`, `[a; b; c]`, `(n, m) :: acc`, a float boxed for the tuple that holds it — into one decrement of the allocation pointer and one test of the heap's limit, each later block found by an `lea` from the first. The block's own construct (Cons, TupleHead, VariantHead, FloatBox, …) carries a whole allocation's instructions; this takes back the three it does not run (`sub`, `cmp`, `jb`), as a fixed −3 in the instruction model. Separate because whether blocks combine depends on what is between them, which no count of blocks sees",
        "once per allocated block that joins an allocation in progress: walking the code in native evaluation order (operands right to left, a call's function last), an allocation begins a run; the next joins it unless a call (of an OCaml function, `caml_applyN` or a C external — `caml_modify`, `caml_compare`, `caml_make_vect`, the string and array externals — or a raise) or a branch (`if`, a `match` with a test, `&&`, `||`, a loop, a division's zero check, `abs`, a refutable `let`) came between, or the run would exceed 257 words (semantics/src/comballoc.rs)" }
    TableJump { "data", "a `match` that ocamlopt dispatches through a jump table — its arms test three or more constructors or constants at the top, as an expression tree's evaluator or a state machine does: the tag loaded from the header, an address read from the table, an indirect jump, about five instructions whichever arm runs. Separate from PatternMatch, which is a test and a branch per arm tried: counted per arm, a five-constructor match cost 2.3 tests a node where its code runs one jump (`expr_eval`, read off `ocamlopt -S`)",
        "once per evaluation of a `match` whose arms test three or more constructors or constants at the top and lead to four or more places (three are a tree of two comparisons, as ocamlopt's Switch builds them); `PatternMatch` is then counted only for the arms of the value's own constructor whose fields test more (`Add (Num 0, e)`) and for arms of no constructor shape (tuples, or-patterns whose alternatives test their fields); a wildcard arm, an or-pattern of bare constructors (`Const _ | Var _`, where the table sends them all) and the arms of other constructors are not tried" }
    IndirectCall { "calls", "a call through a function value's code pointer: a function the compiler does not know at the call — a parameter (`f x` in `List.map`, `List.filter`'s `p x`), a field, a partial application — applied to one argument is called by loading the closure's first field and `call *%reg`. Measured alone (best of 5, 10⁸ iterations): a loop calling `f x` with `f` a parameter runs 6.2 cycles an iteration where the same loop calling `id x` directly runs 2.1, and a second such call adds 3.1 more; a direct call costs about one cycle in a loop this short. Separate from FunApp, whose templates call known functions directly (`call label`): priced as one, the direct calls of `fapp_2` were overpredicted 2.5× and the indirect ones of `fapp_indirect` underpredicted by 25%",
        "once per application, not in tail position, of a function value that is not a known `let`-bound function to exactly one argument, beside its FunApp: of a closure of any arity (one of arity two or more enters `caml_curryN`, which builds the partial application), of a partial application's closure, of a tupled function through its tuplifying entry. With two or more arguments the call goes to `caml_applyN` (ApplyN), which is a direct call" }
    IndirectJump { "calls", "a jump through a code pointer (`jmp *%reg`): the tail call of a function value the compiler does not know, applied to one argument (`let apply f x = f x`), and the jump by which a stub forwards to the function it stands for — the `caml_curryN_k` of a partial application an unknown function built, the `caml_tuplifyN` entry of a tupled function. Measured: a tail call through `apply f x` costs 1.3 cycles more than one of a known function. Separate from TailApp, whose templates jump to known functions (`jmp label`); a known function's partial application is a closure of ocamlopt's own whose code jumps directly, and counts none",
        "once per tail application of an unknown function value to exactly one argument (beside its TailApp), once per forward of a partial application built by `caml_curryN` (beside the TailApp of that jump), once per call through a `caml_tuplifyN` entry" }
    FormatInt { "strings", "`string_of_int n` — stdlib.ml's `format_int \"%d\" n`, a call through `caml_c_call` into the runtime's `caml_format_int` (C, runtime/ints.c): it parses the format, prints the number with the C library's `snprintf` into a buffer and copies it into a fresh string of 1 + (len + 8)/8 words (2 words up to 7 characters, 3 up to 15, 4 up to 20). Separate because it is neither the OCaml code around it nor any other runtime call: the C library's formatting, a few hundred instructions, its own pace; the characters printed are FormatIntChar",
        "once per `format_int` evaluated: once per `string_of_int` (read from stdlib.ml, a call of its own at `-inline 0`), beside that call's FunApp; the string's words are allocated as the runtime allocates them" }
    FormatIntChar { "strings", "a character `caml_format_int` prints (FormatInt): `snprintf`'s conversion produces the digits one by one and the copy moves them, so the call grows with the number's length — measured on this project's AMD host, 136 ns for one digit, 152 for seven, 192 for twenty characters (`formatint_*`, 1 run)",
        "per FormatInt, the length of the string printed (the digits and a minus sign)" }
}

/// Every construct, in a fixed order (the paper's first, then the additions).
pub fn catalogue() -> &'static [Construct] {
    &CATALOGUE
}

/// A fingerprint of the counting rules: FNV-1a (64 bits, hex) over every construct's name,
/// group and rule, in order. Two runs counted by interpreters with the same catalogue have
/// the same one; a construct added, or a rule reworded because it changed, changes it. Written
/// out rather than `DefaultHasher`, whose output may change between Rust releases.
pub fn catalogue_fingerprint() -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for c in CATALOGUE.iter() {
        for part in [c.name, c.group, c.rule] {
            for byte in part.bytes().chain([0]) {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    }
    format!("{hash:016x}")
}

/// The catalogue entry called `name`.
pub fn construct(name: &str) -> Option<&'static Construct> {
    CATALOGUE.iter().find(|c| c.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_match_counters() {
        let mut names: Vec<_> = catalogue().iter().map(|c| c.name).collect();
        assert_eq!(CATALOGUE[Counter::TryWith as usize].name, "TryWith");
        assert_eq!(CATALOGUE[Counter::FunApp as usize].name, "FunApp");
        names.sort();
        names.dedup();
        assert_eq!(names.len(), COUNTER_COUNT);
    }

    #[test]
    fn contains_every_construct_of_the_design_table() {
        let design = [
            "FunApp",
            "TailApp",
            "FunDef",
            "Closure",
            "LetData",
            "LetLambda",
            "LetRec",
            "BoolNot",
            "BoolAnd",
            "BoolOr",
            "IntUMinus",
            "IntAdd",
            "IntSub",
            "IntMult",
            "IntDiv",
            "IntMod",
            "IntCondEq",
            "IntCondLT",
            "IntCondLE",
            "IntCondGT",
            "IntCondGE",
            "FloatUMinus",
            "FloatAdd",
            "FloatSub",
            "FloatMult",
            "FloatDiv",
            "FloatCondEq",
            "FloatCondLT",
            "FloatCondLE",
            "FloatCondGT",
            "FloatCondGE",
            "PatternMatch",
            "TupleHead",
            "TupleElem",
            "TupleMatch",
            "Cons",
            "Base",
        ];
        for name in design {
            let c = construct(name).unwrap_or_else(|| panic!("{name} missing"));
            assert!(!c.rule.is_empty() && !c.description.is_empty());
        }
        assert!(construct("PolyCompare").is_some());
        assert!(construct("Nonsense").is_none());
    }
}
