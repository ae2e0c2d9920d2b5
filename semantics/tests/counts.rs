//! Exact construct counts, computed by hand from the counting rules (see the catalogue), for
//! small programs that each isolate one rule. Every assertion compares the whole count map, so
//! a construct counted by mistake fails the test as surely as one missed. What native code adds
//! around calls and jumps (`Spill`, `Frame`, `JumpMiss`) is left out of these maps and
//! pinned by `counts_calls.rs` and `counts_branches.rs`.

mod common;

use common::{count, expect, source_level};
use semantics::Program;

#[test]
fn paper_factorial_example() {
    // §2: "11 * T_FunApp + 11 * T_IntEq + 10 * T_IntSub + 10 * T_IntMult + 1 * T_letrec".
    let source = "let rec fact n = if (n = 0) then 1 else n * fact (n-1);;\n(fact 10);;";
    let program = Program::script_from_source("fact.ml", source).unwrap();
    let result = program.count_script().unwrap();
    assert_eq!(
        source_level(result.counts),
        expect(&[
            ("FunApp", 11),
            ("IntCondEq", 11),
            ("IntSub", 10),
            ("IntMult", 10),
            ("LetRec", 1)
        ])
    );
}

const FAPP: &str = "
let[@inline never] id n = n
let rec fapp x = if x = 0 then 0 else fapp (id (id (id (id (x - 1)))))
let input n = n
let run n = fapp n";

const FINTADD: &str = "
let rec fintadd x = if x = 0 then 0 else x + x + x + x + fintadd (x - 1)
let input n = n
let run n = fintadd n";

#[test]
fn fapp_counts_are_closed_forms_of_n() {
    let program = Program::from_source("fapp.ml", FAPP).unwrap();
    for n in [0u64, 1, 2, 1000, 20000] {
        let counts = source_level(program.count(n as i64).unwrap().counts);
        // n + 1 tests; n subtractions; four calls to id per step; the recursive call is a
        // self tail call (a loop), `run`'s call of fapp a tail call of another function.
        let want = expect(&[
            ("Base", 1),
            ("IntCondEq", n + 1),
            ("IntSub", n),
            ("FunApp", 4 * n),
            ("SelfTailApp", n),
            ("TailApp", 1),
            // fapp allocates nothing: its head polls on entry and at each jump back.
            ("LoopPoll", n + 1),
        ]);
        assert_eq!(counts, want, "n = {n}");
    }
}

#[test]
fn fintadd_counts_are_closed_forms_of_n() {
    let program = Program::from_source("fintadd.ml", FINTADD).unwrap();
    for n in [0u64, 1, 5, 1000, 20000] {
        let counts = source_level(program.count(n as i64).unwrap().counts);
        let want = expect(&[
            ("Base", 1),
            ("IntCondEq", n + 1),
            ("IntAdd", 4 * n),
            ("IntSub", n),
            ("FunApp", n),
            ("TailApp", 1),
        ]);
        assert_eq!(counts, want, "n = {n}");
    }
}

#[test]
fn tail_and_non_tail_recursion() {
    let source = "
let rec sum_tr acc n = if n = 0 then acc else sum_tr (acc + n) (n - 1)
let rec sum n = if n = 0 then 0 else n + sum (n - 1)
let input n = n
let run n = (sum_tr 0 n, sum n)";
    let n = 50;
    let want = expect(&[
        ("Base", 1),
        ("FunApp", n + 2), // both first calls (inside a tuple) and sum's n recursive calls
        ("SelfTailApp", n), // sum_tr's recursive calls: a loop
        ("LoopPoll", n + 1), // that allocates nothing, so it polls on entry and per jump
        ("IntCondEq", 2 * n + 2),
        ("IntAdd", 2 * n),
        ("IntSub", 2 * n),
        ("TupleHead", 1),
        ("TupleElem", 2),
    ]);
    assert_eq!(count(source, n as i64), want);
}

#[test]
fn tail_position_passes_through_match_and_boolean_operators() {
    let source = "
let rec all_pos = function [] -> true | x :: l -> x > 0 && all_pos l
let rec init n = if n = 0 then [] else n :: init (n - 1)
let input n = init n
let run l = all_pos l";
    let k = 30;
    // Per element: one test tells `[]` from `::` (the last arm of the exhaustive match is
    // where it falls through), one >, and the recursive call in tail position: the `&&` is
    // `if x > 0 then all_pos l else false`, no flag built (no BoolAnd); the final `[]` is one
    // test more. `run`'s call is a tail call of another function.
    let want = expect(&[
        ("Base", 1),
        ("PatternMatch", k + 1),
        ("IntCondGT", k),
        ("SelfTailApp", k),
        ("TailApp", 1),
        ("LoopPoll", k + 1), // the walk allocates nothing: entry and k jumps back poll
    ]);
    assert_eq!(count(source, k as i64), want);
}

#[test]
fn a_call_inside_try_is_not_a_tail_call() {
    let source = "
let rec loop n = if n = 0 then 0 else try loop (n - 1) with Not_found -> 1
let input n = n
let run n = loop n";
    let n = 20;
    let want = expect(&[
        ("Base", 1),
        ("IntCondEq", n + 1),
        ("IntSub", n),
        ("TryWith", n),
        ("FunApp", n),
        ("TailApp", 1),
    ]);
    assert_eq!(count(source, n as i64), want);
}

#[test]
fn closures_with_zero_one_and_three_free_variables() {
    let source = "
let apply f x = f x
let k = 10
let input n = n
let run n =
  let a = n + 1 in
  let b = n + 2 in
  let c0 = apply (fun x -> x) n in
  let c1 = apply (fun x -> x + a) n in
  let c3 = apply (fun x -> x + a + b + n) n in
  let ck = apply (fun x -> x + k) n in
  c0 + c1 + c3 + ck";
    // Closed functions (no variable, or only the top-level k) are static: no FunDef.
    let want = expect(&[
        ("Base", 1),
        ("LetData", 6),
        ("IntAdd", 2 + 1 + 3 + 1 + 3),
        ("FunDef", 2),
        ("Closure", 1 + 3),
        ("FunApp", 4),
        ("TailApp", 4),      // `f x` in apply
        ("IndirectJump", 4), // the same, through the closure's code pointer
    ]);
    assert_eq!(count(source, 7), want);
}

#[test]
fn let_bound_functions_count_let_lambda_and_allocate_only_when_open() {
    // Named twice (a function named once is its body at the call: counts_local_functions.rs).
    let open = "let input n = n\nlet run n = let f x = x + n in f 1 + f 2";
    assert_eq!(
        count(open, 3),
        expect(&[
            ("Base", 1),
            ("LetLambda", 1),
            ("FunDef", 1),
            ("Closure", 1),
            ("FunApp", 2),
            ("IntAdd", 3)
        ])
    );
    let closed = "let input n = n\nlet run n = let g x = x + 1 in g n + g 1";
    assert_eq!(
        count(closed, 3),
        expect(&[("Base", 1), ("LetLambda", 1), ("FunApp", 2), ("IntAdd", 3)])
    );
    // Named once: the argument bound where the call was, nothing else.
    let once = "let input n = n\nlet run n = let f x = x + n in f 1";
    assert_eq!(
        count(once, 3),
        expect(&[("Base", 1), ("LetData", 1), ("IntAdd", 1)])
    );
    // A local `let rec` capturing n: one closure block, one captured variable.
    let rec_open = "let input n = n\nlet run n = let rec loop i acc = if i = 0 then acc else loop (i - 1) (acc + n) in loop n 0";
    let n = 12;
    let want = expect(&[
        ("Base", 1),
        ("LetRec", 1),
        ("FunDef", 1),
        ("Closure", 1),
        ("SelfTailApp", n),  // the closure's code jumps back to its own head
        ("TailApp", 1),      // `loop n 0`, run's tail call
        ("LoopPoll", n + 1), // the head's poll: on entry and at each jump back
        ("IntCondEq", n + 1),
        ("IntSub", n),
        ("IntAdd", n),
    ]);
    assert_eq!(count(rec_open, n as i64), want);
}

#[test]
fn tuples_built_and_destructured() {
    let source = "
let swap (a, b) = (b, a)
let input n = n
let run n =
  let (x, y) = swap (n, n + 1) in
  let p = (x, y, n) in
  let (u, v, w) = p in
  let (s, t) = (u, v) in
  fst (s, t) + snd (w, x) + u";
    let want = expect(&[
        ("Base", 1),
        ("FunApp", 1),
        ("IntAdd", 3),
        // swap is tupled (its parameter is a tuple pattern): called with the tuple written
        // out, it takes n and n + 1 in registers, as ocamlopt compiles it, so (n, n + 1) is
        // never built nor read.
        ("TupleHead", 4), // swap's result, p, (s, t), (w, x)
        ("TupleElem", 2 + 3 + 2 + 2),
        ("TupleMatch", 2 + 3 + 1 + 1), // (x, y), (u, v, w), fst, snd
        ("LetData", 1 + 2),            // p, and `let (s, t) = (u, v)` builds no tuple: two bindings
        // p, (w, x) and (s, t): one allocation, no call between (ocamlopt's Comballoc).
        ("AllocMerged", 2),
    ]);
    assert_eq!(count(source, 4), want);
}

#[test]
fn nested_patterns_count_arms_tried_and_tuple_fields_read() {
    let source = "
let rec f = function
  | [] -> 0
  | [ (0, _) ] -> 1
  | (a, Some b) :: (_, None) :: rest -> a + b + f rest
  | (a, _) :: rest -> a + f rest
let input n = [ (1, Some 2); (3, None); (n - n, None) ]
let run l = f l";
    // Call 1: arms 1, 2 (reads the first pair's first field: `_` is never loaded) and 3
    // (reads both fields of the first pair, the second field of the second) tried.
    // Call 2 on [(0, None)]: arms 1 and 2 (reads the pair's first field) tried.
    let want = expect(&[
        ("Base", 1),
        ("PatternMatch", 5),
        ("TupleMatch", 1 + 3 + 1),
        ("IntAdd", 2),
        ("FunApp", 1),
        ("TailApp", 1),
    ]);
    assert_eq!(count(source, 9), want);
}

#[test]
fn guards_or_patterns_and_as() {
    let source = "
let classify x = match x with 0 | 1 -> 0 | n when n mod 2 = 0 -> 1 | n -> 2
let input n = n
let run n = match [ n ] with (x :: _ as l) -> classify x + classify (x + 1) | [] -> 0";
    // classify 5: the or-pattern arm's test and the guarded arm (guard false); the last arm,
    // `n`, is reached without a test. classify 6: the same two. The run's match: its first
    // arm, one test; [n] is one cons.
    let want = expect(&[
        ("Base", 1),
        ("Cons", 1),
        ("PatternMatch", 1 + 2 + 2),
        ("IntModPow2", 2),
        ("IntCondEq", 2),
        ("IntAdd", 2),
        ("FunApp", 2),
    ]);
    assert_eq!(count(source, 5), want);
}

#[test]
fn comparisons_are_specialised_by_type() {
    let source = "
let rec mem x = function [] -> false | y :: l -> y = x || mem x l
let rec mem_int (x : int) = function [] -> false | y :: l -> y = x || mem_int x l
let input n = [ 1; 2; 3; n ]
let run l = (mem 3 l, mem_int 3 l, [ 1 ] = [ 1 ], (1, 2) < (1, 3), 1.5 < 2.5, \"a\" = \"b\", true = false, compare 1 2)";
    // mem is polymorphic, so `y = x` calls caml_equal even though it is used at int. Steps:
    // mem's three immediates; [1] = [1]: the cells, 1/1, []/[]; (1, 2) < (1, 3): the pairs,
    // 1/1, 2/3; two strings. mem and mem_int each run three times (3 is the third element),
    // and each run is one test against `[]`: the `::` arm is the exhaustive match's last.
    let want = expect(&[
        ("Base", 1),
        ("PatternMatch", 3 + 3),
        ("PolyCompare", 3 + 3),
        ("PolyCompareStep", 3 + 3 + 3 + 1),
        // The pairs of blocks among them: the two cells, the two tuples, the two strings.
        ("PolyCompareBlock", 1 + 1 + 1),
        // caml_equal's answer decides mem's `||`: compared with true, then a jump.
        ("BoolTest", 3),
        ("IntCondEq", 3 + 1),
        // The tuple's `1.5 < 2.5` and `true = false` are flags kept as values; `y = x` decides
        // its `||`.
        ("CondValue", 2),
        // Each `… || mem x l` is returned: a jump, no flag (no BoolOr).
        ("SelfTailApp", 4), // `|| mem x l` on 1 and 2, in each function: loops
        ("LoopPoll", 6),    // that allocate nothing: each entered once and jumped back twice
        ("FunApp", 2),
        ("FloatCondLT", 1),
        ("IntCompare", 1),
        ("TupleHead", 1),
        ("TupleElem", 8),
    ]);
    assert_eq!(count(source, 4), want);
}

#[test]
fn partial_and_over_application() {
    let source = "
let add3 x y z = x + y + z
let apply f x = f x
let id x = x
let input n = n
let run n =
  let g = add3 n in
  let h = g 1 in
  let a = h 2 in
  let b = apply (add3 1 2) 3 in
  let c = id add3 1 2 3 in
  a + b + c";
    let want = expect(&[
        ("Base", 1),
        ("LetData", 5),
        // add3 n and add3 1 2: closures of k + 1 fields, built inline (known function); g 1:
        // a call to an unknown function of arity 2, which allocates.
        ("FunDef", 3),
        ("Closure", 2 + 2 + 3),
        // g 1, h 2, apply, id, and the over-application's second call.
        ("FunApp", 5),
        // h 2's and f x's forwarding jumps, and `f x` itself in apply.
        ("TailApp", 3),
        // g 1 and h 2 call unknown closures with one argument (`call *`); h 2's stub, built
        // by caml_curry2 for an unknown function, forwards through the code pointer, and so
        // does `f x` in apply (add3 1 2 is ocamlopt's own closure, which jumps by name).
        ("IndirectCall", 2),
        ("IndirectJump", 2),
        // `id add3` returns a function the compiler does not know, applied to 3 arguments
        // through caml_apply3.
        ("ApplyN", 1),
        ("IntAdd", 8),
    ]);
    assert_eq!(count(source, 10), want);
}

#[test]
fn constants_are_static_and_build_nothing() {
    let source =
        "let input n = n\nlet run n = ([ 1; 2; 3 ], (1, \"a\"), Some 4, [ n; 1; 2 ], (n, 1), None)";
    let want = expect(&[
        ("Base", 1),
        ("Cons", 1),
        ("TupleHead", 2),
        ("TupleElem", 6 + 2),
        ("AllocMerged", 2), // the three blocks are one allocation
    ]);
    assert_eq!(count(source, 3), want);
}

#[test]
fn variants_and_exceptions() {
    let source = "
exception E of int
type t = A | B of int * int | C of (int * int)
let f x = if x > 0 then raise (E x) else failwith \"neg\"
let input n = n
let run n =
  let v = (try f n with E k -> k | Failure _ -> 0) + (try f (-n) with E k -> k | Failure _ -> 0) in
  [ B (v, n); C (v, n); A ]";
    let want = expect(&[
        ("Base", 1),
        ("LetData", 1),
        ("TryWith", 2),
        ("FunApp", 2),
        ("IntCondGT", 2),
        ("Raise", 2),
        // E x, Failure "neg", B (v, n), C (v, n): the pair in C is a tuple.
        ("VariantHead", 4),
        ("VariantElem", 1 + 1 + 2 + 1),
        ("TupleHead", 1),
        ("TupleElem", 2),
        ("PatternMatch", 1 + 2),
        ("IntUMinus", 1),
        ("IntAdd", 1),
        ("Cons", 2), // [A] is a static tail
        // The pair, C, two cells and B: one allocation of five blocks.
        ("AllocMerged", 4),
    ]);
    assert_eq!(count(source, 5), want);
}

#[test]
fn arithmetic_boolean_and_bit_operations() {
    let source = "
let input n = n
let run n =
  let x = float_of_int n in
  (not (n > 3), n land 3, n lor 4, n lxor 5, n lsl 2, n lsr 1, n asr 1, -n, n / 2, n mod 3, n * 2,
   x *. 2.0 +. 1.0 -. x /. 2.0, -.x, int_of_float x, x >= 1.0 && x <= 9.0 || x <> x)";
    let want = expect(&[
        ("Base", 1),
        ("LetData", 1),
        ("FloatOfInt", 1),
        ("BoolNot", 1),
        ("IntCondGT", 1),
        // `not (n > 3)` is a value: its comparison's flag is materialised. The float tests
        // decide the `&&` and `||` and make none.
        ("CondValue", 1),
        ("IntLand", 1),
        ("IntLor", 1),
        ("IntLxor", 1),
        ("IntLsl", 1),
        ("IntLsr", 1),
        ("IntAsr", 1),
        ("IntUMinus", 1),
        ("IntDivPow2", 1), // constant operands: see counts_constant_ops.rs
        ("IntModConst", 1),
        ("IntMultConst", 1),
        ("FloatMult", 1),
        ("FloatAdd", 1),
        ("FloatSub", 1),
        ("FloatDiv", 1),
        ("FloatUMinus", 1),
        ("IntOfFloat", 1),
        ("FloatCondGE", 1),
        ("FloatCondLE", 1),
        // The `||` is a value; the `&&` decides its first branch, so it is two jumps and no
        // BoolAnd. x <> x is not evaluated: the && is true.
        ("BoolOr", 1),
        ("TupleHead", 1),
        ("TupleElem", 15),
        ("FloatBox", 2), // the two new floats stored in the tuple
        // The boxes and the tuple are one allocation: the `||`, evaluated first (right to
        // left), is the last branch before them.
        ("AllocMerged", 2),
    ]);
    assert_eq!(count(source, 5), want);
}

#[test]
fn match_on_a_tuple_builds_no_tuple() {
    let source = "
let rec merge l1 l2 = match l1, l2 with
  | [], l | l, [] -> l
  | h1 :: t1, h2 :: t2 -> if h1 <= h2 then h1 :: merge t1 l2 else h2 :: merge l1 t2
let input n = ([ 1; 3 ], [ n ])
let run (a, b) = merge a b";
    let want = expect(&[
        ("Base", 1),
        ("TupleMatch", 2), // run's parameter
        // merge [1; 3] [2] and merge [3] [2]: the last arm, one arm tried before it;
        // merge [3] []: the first arm (its or-pattern's second alternative).
        ("PatternMatch", 3),
        ("PolyCompare", 2), // merge is polymorphic: `<=` is caml_lessequal, as in ocamlopt
        ("PolyCompareStep", 2), // of two immediates each
        ("BoolTest", 2),    // caml_lessequal's answer decides the `if`
        ("Cons", 2),
        ("FunApp", 2),
        ("TailApp", 1),
    ]);
    assert_eq!(count(source, 2), want);
}

#[test]
fn append_is_the_stdlib_function() {
    // `@` is a real, non-tail-recursive function: one call per element of the left list.
    let source = "let input n = n\nlet run n = [ n; n ] @ [ 3 ]";
    let want = expect(&[
        ("Base", 1),
        ("Cons", 2 + 2),
        ("TailApp", 1),
        ("FunApp", 2),
        // One test against `[]` per call: the `::` arm is the exhaustive match's last.
        ("PatternMatch", 2 + 1),
        ("AllocMerged", 1), // [n; n]'s two cells; `@`'s cells each follow a call
    ]);
    assert_eq!(count(source, 1), want);
}

#[test]
fn counting_is_deterministic_and_independent_of_previous_runs() {
    let program = Program::from_source("fintadd.ml", FINTADD).unwrap();
    let first = program.count(300).unwrap();
    program.count(5000).unwrap();
    assert_eq!(program.count(300).unwrap(), first);
}

#[test]
fn count_result_serialises_as_documented() {
    let program = Program::from_source("fact.ml", "let input n = n\nlet run n = n * n").unwrap();
    let json = serde_json::to_value(program.count(21).unwrap()).unwrap();
    assert_eq!(json["size"], 21);
    assert_eq!(json["counts"]["IntMult"], 1);
    assert_eq!(json["counts"]["Base"], 1);
    assert_eq!(json["digest"].as_str().map(str::len), Some(16));
}

#[test]
fn deep_non_tail_recursion_works() {
    // A non-tail map over 100 000 elements, as the native program handles it.
    let source = "
let rec map f = function [] -> [] | a :: l -> let r = f a in r :: map f l
let rec init i n = if i = n then [] else i :: init (i + 1) n
let input n = init 0 n
let run l = map (fun x -> x + 1) l";
    let counts = count(source, 100_000);
    assert_eq!(counts["Cons"], 100_000);
    assert_eq!(counts["FunApp"], 200_000);
}
