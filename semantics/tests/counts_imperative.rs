//! Hand-computed counts, words and results for records, references, arrays and loops, as
//! ocamlopt 4.13 compiles them (see the catalogue's rules and `compile_imperative`). Every
//! count assertion compares the whole count map (of the source-level constructs: see
//! `common`).

mod common;

use common::{expect, source_level};
use semantics::Program;

fn result(source: &str, size: i64) -> semantics::CountResult {
    let program = Program::from_source("test.ml", source).unwrap_or_else(|e| panic!("{e}"));
    program.count(size).unwrap_or_else(|e| panic!("{e}"))
}

/// The digest of the constant `value` (an OCaml expression), computed by the interpreter.
fn digest_of(value: &str) -> String {
    result(&format!("let input n = n\nlet run _ = {value}"), 0).digest
}

#[test]
fn a_tuple_of_a_stdlib_float_constant_is_allocated() {
    // `neg_infinity` is a field of the Stdlib's module block (`stdlib.ml` computes it with
    // `float_of_bits`), not a constant: `(0.0, neg_infinity)` is built where it is evaluated,
    // a header and two fields (measured: `horner_poly`'s fold, 3 words a run more than the
    // interpreter had counted), while `(0.0, 1.0)` is a static block.
    let fold = |init: &str| {
        format!(
            "
let input n = Array.make n 0.25
let run xs = Array.fold_left (fun (s, m) x -> (s +. x, if x > m then x else m)) {init} xs"
        )
    };
    let words = |init: &str| result(&fold(init), 10).allocation.words;
    assert_eq!(words("(0.0, neg_infinity)"), words("(0.0, 1.0)") + 3);
}

#[test]
fn references_bound_with_and_are_variables_each() {
    // ocamlopt nests `let a = e1 and b = e2 in …` as two lets (Translcore), so Simplif
    // eliminates each `ref`: two registers, no block, no field load or store. Before the
    // parser nested them, the pair counted 3 `TupleMatch` and 2 `FieldSet` an iteration and 4
    // words.
    let source = "
let input n = n
let run n =
  let a = ref 0 and b = ref 1 in
  for i = 1 to n do a := !a + !b + i; b := !a land 7 done;
  !a";
    let r = result(source, 10);
    let want = expect(&[
        ("Base", 1),
        ("LetData", 2),
        ("IntCondGT", 1),
        ("ForIter", 10),
        ("IntAdd", 20),
        ("IntLand", 10),
        ("BackEdgePoll", 9),
    ]);
    assert_eq!(source_level(r.counts), want);
    assert_eq!(r.allocation.words, 0);
    // Where a later right-hand side names what an earlier binding binds, the bindings stay
    // simultaneous (the `x` of `y = x` is the outer one): the result says which `x` it read.
    let simultaneous = "
let input n = n
let run n = let x = n + 1 in let x = x * 10 and y = x in x + y";
    assert_eq!(result(simultaneous, 4).digest, digest_of("55"));
}

#[test]
fn a_local_reference_that_does_not_escape_is_a_variable() {
    // Simplif's eliminate_ref: `s` is a register; `s := !s + i` is one addition.
    let source = "
let input n = n
let run n = let s = ref 0 in for i = 1 to n do s := !s + i done; !s";
    let r = result(source, 10);
    let want = expect(&[
        ("Base", 1),
        ("LetData", 1),
        ("IntCondGT", 1),
        ("ForIter", 10),
        ("IntAdd", 10),
        // The poll at the back edge, after the exit test: every iteration but the last.
        ("BackEdgePoll", 9),
    ]);
    assert_eq!(source_level(r.counts), want);
    assert_eq!(r.allocation.words, 0);
    assert_eq!(r.digest, digest_of("55"));
    // An empty loop runs its entry test only.
    let empty = result(source, 0);
    assert_eq!(empty.counts.get("ForIter"), None);
    assert_eq!(empty.counts["IntCondGT"], 1);
}

#[test]
fn a_reference_passed_to_a_function_stays_a_block() {
    let source = "
let[@inline never] bump r = incr r
let input n = n
let run n = let r = ref 0 in for _ = n downto 1 do bump r done; decr r; !r";
    let r = result(source, 5);
    let want = expect(&[
        ("Base", 1),
        ("LetData", 1),
        ("TupleHead", 1),
        ("TupleElem", 1),
        ("IntCondLT", 1),
        ("ForIter", 5),
        ("BackEdgePoll", 4), // every iteration but the last: the call does not spare the poll
        ("FunApp", 5),
        ("AddToField", 6),
        ("TupleMatch", 1),
    ]);
    assert_eq!(source_level(r.counts), want);
    assert_eq!(r.allocation.words, 2);
    assert_eq!(r.digest, digest_of("4"));
}

#[test]
fn a_float_reference_stays_unboxed_and_a_while_loop_counts_its_iterations() {
    // `x` is an unboxed mutable variable: no FloatBox inside the loop, one when returned.
    let source = "
let input n = n
let run n =
  let x = ref 1.0 in
  let i = ref 0 in
  while !i < n do x := !x *. 0.5; incr i done;
  !x";
    let r = result(source, 3);
    let want = expect(&[
        ("Base", 1),
        ("LetData", 2),
        ("IntCondLT", 4),
        ("WhileIter", 3),
        ("BackEdgePoll", 3), // a `while` polls after each run of its body
        ("FloatMult", 3),
        ("IntAdd", 3),
        ("FloatBox", 1),
    ]);
    assert_eq!(source_level(r.counts), want);
    assert_eq!(r.allocation.words, 2);
    assert_eq!(r.digest, digest_of("0.125"));
}

#[test]
fn array_reads_and_writes_are_bounds_checked_accesses() {
    let source = "
let input n = n
let run n =
  let a = Array.make n 0 in
  for i = 0 to n - 1 do a.(i) <- i done;
  let s = ref 0 in
  for i = 0 to Array.length a - 1 do s := !s + a.(i) done;
  !s";
    let r = result(source, 4);
    let want = expect(&[
        ("Base", 1),
        ("LetData", 2),
        ("ArrayMake", 1),
        ("ArrayMakeWord", 4),
        ("IntCondGT", 2),
        ("IntSub", 2),
        ("ForIter", 8),
        ("BackEdgePoll", 3 + 3), // two loops of four iterations
        ("ArraySet", 4),
        ("ArrayLength", 1),
        ("ArrayGet", 4),
        ("IntAdd", 4),
    ]);
    assert_eq!(source_level(r.counts), want);
    assert_eq!(r.allocation.words, 5);
    assert_eq!(r.digest, digest_of("6"));
}

#[test]
fn an_index_out_of_bounds_raises_invalid_argument() {
    let source = "
let input n = n
let run n =
  let a = [| n; n |] in
  try a.(n) with Invalid_argument m -> if m = \"index out of bounds\" then -1 else -2";
    let r = result(source, 2);
    assert_eq!(r.digest, digest_of("-1"));
    assert_eq!(r.counts["ArrayGet"], 1);
    assert_eq!(r.counts["TupleHead"], 1);
    assert_eq!(r.counts["TupleElem"], 2);
    let uncaught =
        Program::from_source("t.ml", "let input n = n\nlet run n = (Array.make n 0).(n)")
            .unwrap()
            .count(3)
            .unwrap_err()
            .to_string();
    assert!(
        uncaught.contains("Invalid_argument(\"index out of bounds\")"),
        "{uncaught}"
    );
    assert!(uncaught.contains("t.ml:2:"), "{uncaught}");
}

#[test]
fn long_arrays_go_to_the_major_heap_and_float_arrays_are_flat() {
    // 300 > Max_young_wosize: 301 words straight into the major heap, never promoted.
    let source = "
let input n = n
let run n = let a = Array.make n 1.5 in let b = Array.make 3 0 in (a, b)";
    let r = result(source, 300);
    assert_eq!(r.allocation.direct_major_words, 301);
    // b (4 words) and the result tuple (3 words) are minor.
    assert_eq!(r.allocation.words, 301 + 4 + 3);
    assert!(r.allocation.promoted_words(1 << 18) < 1.0);
    let small = result(source, 10);
    assert_eq!(small.allocation.direct_major_words, 0);
    assert_eq!(small.allocation.words, 11 + 4 + 3);
    // The empty array is the atom, whatever its element type.
    assert_eq!(
        result("let input n = n\nlet run n = Array.make n 2.0", 0).digest,
        digest_of("[||]")
    );
}

#[test]
fn records_are_blocks_and_float_records_are_flat() {
    let source = "
type r = { mutable n : int; mutable l : int list; name : int }
type f = { mutable x : float; y : float }
let input n = n
let run n =
  let r = { n = 0; l = []; name = 3 } in
  let p = { x = 1.0; y = 2.0 } in
  for i = 1 to n do r.n <- r.n + i; r.l <- i :: r.l; p.x <- p.x +. p.y done;
  (r.n, { r with n = 5 }, p)";
    // Per iteration: r.n, r.l, p.x and p.y read (TupleMatch 4), r.n and p.x set (FieldSet 2),
    // r.l set to a new cell (Cons 1, and a call of caml_modify into r, which `run` built a
    // few words before: CamlModifyYoung 1); then r.n and the copy's two kept fields.
    let r = result(source, 3);
    let want = expect(&[
        ("Base", 1),
        ("LetData", 2),
        ("TupleHead", 4),
        ("TupleElem", 11),
        ("IntCondGT", 1),
        ("ForIter", 3),
        ("TupleMatch", 15),
        ("FieldSet", 6),
        ("CamlModifyYoung", 3),
        ("Cons", 3),
        ("IntAdd", 3),
        ("FloatAdd", 3),
        // r with p, and the copy with the tuple: one allocation each (the loop between them
        // is a branch, and its cell follows the caml_modify of the iteration before).
        ("AllocMerged", 2),
    ]);
    assert_eq!(source_level(r.counts), want);
    // r 4, p 3 (flat), the copy 4, the tuple 4, three cons cells 9.
    assert_eq!(r.allocation.words, 24);
    let by_hand = "
type r = { mutable n : int; mutable l : int list; name : int }
type f = { mutable x : float; y : float }
let input n = n
let run _ = (6, { n = 5; l = [3; 2; 1]; name = 3 }, { x = 7.0; y = 2.0 })";
    assert_eq!(r.digest, result(by_hand, 0).digest);
}

#[test]
fn record_patterns_read_the_fields_they_name() {
    let source = "
type p = { a : int; b : int; c : int }
let[@inline never] f { a; c; _ } = a + c
let input n = { a = n; b = 2; c = 3 }
let run r = match r with { b = 2; _ } -> f r | _ -> 0";
    let r = result(source, 7);
    let want = expect(&[
        ("Base", 1),
        ("PatternMatch", 1),
        ("TupleMatch", 3),
        ("TailApp", 1),
        ("IntAdd", 1),
    ]);
    assert_eq!(source_level(r.counts), want);
    assert_eq!(r.digest, digest_of("10"));
}

#[test]
fn in_place_updates_count_what_amd64_selection_and_cse_leave() {
    // `c.hits <- c.hits + 2` and `r := !r - 1` are one add to memory each (Ioffset_loc);
    // `h.(b) <- h.(b) + 1` checks its bounds once: the store reuses the read's check.
    let source = "
type c = { mutable hits : int; name : int }
let input n = (n, ref 10, { hits = 0; name = 1 }, Array.make 4 0)
let run (n, r, c, h) =
  c.hits <- 0;
  for i = 1 to n do
    c.hits <- c.hits + 2;
    r := !r - 1;
    let b = i land 3 in
    h.(b) <- h.(b) + 1
  done;
  (c.hits, h.(0))";
    let r = result(source, 8);
    let want = expect(&[
        ("Base", 1),
        ("TupleMatch", 5),
        ("FieldSet", 1 + 8),
        ("IntCondGT", 1),
        ("ForIter", 8),
        ("BackEdgePoll", 7),
        ("AddToField", 16),
        ("LetData", 8),
        ("IntLand", 8),
        ("ArrayGet", 8 + 1),
        ("IntAdd", 8),
        ("TupleHead", 1),
        ("TupleElem", 2),
    ]);
    assert_eq!(source_level(r.counts), want);
    assert_eq!(r.digest, digest_of("(16, 2)"));
    // With a call in the value, the store checks its bounds again.
    let called = "
let[@inline never] succ_of x = x + 1
let input n = Array.make 4 n
let run (h : int array) = h.(1) <- succ_of h.(1); h.(1)";
    let r = result(called, 5);
    assert_eq!(r.counts["ArraySet"], 1);
    assert_eq!(r.counts.get("FieldSet"), None);
}

#[test]
fn unsafe_accesses_are_the_load_or_the_store_alone() {
    let source = "
let input n = Array.make 3 n
let run (a : int array) = Array.unsafe_set a 1 (Array.unsafe_get a 0 + 1); Array.unsafe_get a 1";
    let r = result(source, 4);
    let want = expect(&[
        ("Base", 1),
        ("TupleMatch", 2),
        ("IntAdd", 1),
        ("FieldSet", 1),
    ]);
    assert_eq!(source_level(r.counts), want);
    assert_eq!(r.digest, digest_of("5"));
}

#[test]
fn cse_shares_a_read_or_a_check_until_a_call_an_allocation_or_a_store() {
    // Each function read off `ocamlopt -S -inline 0` (4.13). f1: the call between the read and
    // the store makes the store check again (ArrayGet 1, ArraySet 1). f2: the store into a.(0)
    // makes the second a.(i) check again (ArrayGet 2, ArraySet 1). f3: the a.(i) of the
    // `then` branch is the value the condition read (ArrayGet 1). h3: the store reuses the
    // read's check (FieldSet 1), the read after the store checks again (ArrayGet 2). h2: a
    // call between Bytes.get and Bytes.set (StringGet 1, StringSet 1). rot: Bytes.set checks
    // before it computes its byte, so it shares the check of the read its condition tested
    // (StringGet 1, FieldSet 1).
    let source = "
let[@inline never] g x = x + 1
let f1 (a : int array) i = let x = a.(i) in let y = g x in a.(i) <- y
let f2 (a : int array) i = let x = a.(i) in a.(0) <- 3; x + a.(i)
let f3 (a : int array) i = if i > 0 && a.(i) > 3 then a.(i) else 0
let h3 (a : int array) i = let x = a.(i) in a.(i) <- x + 1; a.(i)
let h2 b i = let c = g (Char.code (Bytes.get b i)) in Bytes.set b i (Char.unsafe_chr c)
let rot b i = let c = Bytes.get b i in if c >= 'a' then Bytes.set b i (Char.chr (Char.code c + 1))
let input n = (Array.make 3 5, Bytes.make 3 'a')
let run (a, b) = f1 a 2; h2 b 1; rot b 2; f2 a 2 + f3 a 2 + h3 a 1";
    let counts = Program::from_source("shared.ml", source)
        .unwrap()
        .count(1)
        .unwrap()
        .counts;
    assert_eq!(counts["ArrayGet"], 1 + 2 + 1 + 2);
    assert_eq!(counts["ArraySet"], 1 + 1);
    assert_eq!(counts["FieldSet"], 1 + 1);
    assert_eq!(counts["StringGet"], 1 + 1);
    assert_eq!(counts["StringSet"], 1);
}

#[test]
fn for_and_while_loops_poll_at_their_back_edge_unless_they_allocate() {
    // Read off `ocamlopt -S` (Debian's 4.13.1): `cmp (%r14), %r15; ja` back to the head. A
    // `for` polls after the exit test of each iteration but the last, a `while` after each
    // run of its body; a call in the body does not spare the poll, nor does an inner loop; a
    // body that allocates on every path needs none (the allocation tests the same limit).
    let source = "
let[@inline never] f x = x + 1
let plain (a : int array) = let s = ref 0 in for i = 0 to Array.length a - 1 do s := !s + a.(i) done; !s
let calls n = let s = ref 0 in for _ = 0 to n do s := f !s done; !s
let allocs n = let l = ref [] in for i = 0 to n do l := i :: !l done; !l
let nested n = let s = ref 0 in for _ = 0 to n do for j = 0 to n do s := !s + j done done; !s
let wplain n = let i = ref 0 in while !i < n do incr i done; !i
let input n = n
let run n = plain (Array.make n 1) + calls n + List.hd (allocs n) + nested n + wplain n";
    // n = 5: plain 4 (5 iterations), calls 5 (6), allocs 0, nested 5 + 6 × 5, wplain 5.
    let r = result(source, 5);
    assert_eq!(r.counts.get("BackEdgePoll"), Some(&(4 + 5 + 5 + 6 * 5 + 5)));
}
