//! Float boxing, exact words and lifetimes, with hand-computed figures (ocamlopt 4.13's
//! layouts; the native agreement of the words is checked against the runtime in the
//! validation of every control).

mod common;

use semantics::Program;

fn result(source: &str, size: i64) -> semantics::CountResult {
    Program::from_source("t.ml", source)
        .unwrap()
        .count(size)
        .unwrap()
}

#[test]
fn floats_box_where_they_leave_an_expression_as_a_value() {
    // Per iteration: `f (a +. 1.0)` boxes the argument (2 words), f's return of `x *. 2.0`
    // boxes (2 words), the cons cell holds f's result, already boxed (3 words). `y` is a
    // let-bound new float used twice as a value: boxed at each use (2 × 2 words); its use in
    // `y +. 1.0` is unboxed.
    let source = "
let[@inline never] f (x : float) = x *. 2.0
let[@inline never] g (a : float) (b : float) = a
let rec loop n (a : float) acc =
  if n = 0 then acc
  else
    let y = a +. 3.0 in
    loop (n - 1) a (f (a +. 1.0) :: g y y :: (if y +. 1.0 > 0.0 then acc else acc))
let input n = (n, 2.5)
let run (n, a) = match loop n a [] with [] -> 0 | _ -> 1";
    let r = result(source, 10);
    assert_eq!(r.counts["FloatBox"], 10 * 4);
    // Per iteration: 4 boxes (8 words), 2 cons cells (6 words).
    assert_eq!(r.allocation.words, 10 * (8 + 6));
}

#[test]
fn a_float_stored_in_a_reference_cell_or_a_mixed_record_is_boxed_with_the_barrier() {
    // A field that is not flat holds a pointer to a boxed double: `r.x <- e` and `t := e`
    // box the new float (2 words) and store it with `caml_modify` (`-S`: `subq $16, %r15`,
    // `call caml_modify`), unless the record is all floats (flat, one `movsd`) or the
    // reference is a local variable (ocamlopt turns it into a mutable variable, unboxed).
    // (program, words of the record or reference, floats boxed, caml_modify calls) at n = 30.
    let cases = [
        (
            "type r = { mutable x : float; mutable k : int }
let input n = n
let run n = let r = { x = 0.0; k = 0 } in for i = 1 to n do r.x <- r.x +. float_of_int i done; r.x",
            // the record, 3 words; `r.x` returned is the last box, already a value
            3,
            30,
            30,
        ),
        (
            // The reset stores the constant 0.0, a static boxed float: a barrier, no box.
            "let input n = ref 0.0
let run t = t := 0.0; for i = 1 to 30 do t := !t +. float_of_int i done; !t",
            0,
            30,
            31,
        ),
        (
            "type p = { mutable x : float; mutable y : float }
let input n = n
let run n = let p = { x = 0.0; y = 1.0 } in for i = 1 to n do p.x <- p.y +. float_of_int i done; p.x",
            // a flat record; the result is boxed once when read out of it
            3,
            1,
            0,
        ),
        (
            "let input n = n
let run n = let t = ref 0.0 in for i = 1 to n do t := !t +. float_of_int i done; !t",
            // no cell: the result is boxed once
            0,
            1,
            0,
        ),
    ];
    for (source, fixed, boxes, modifies) in cases {
        let r = result(source, 30);
        let count = |c: &str| r.counts.get(c).copied().unwrap_or(0);
        // The calls, whether into a young block (the record `run` built) or an old one
        // (`input`'s reference).
        let calls = count("CamlModify") + count("CamlModifyYoung");
        assert_eq!(calls, modifies, "{source}");
        assert_eq!(count("FloatBox"), boxes, "{source}");
        assert_eq!(r.allocation.words, fixed + 2 * boxes, "{source}");
        assert_eq!(
            r.allocation.words,
            common::native_words(source, 30).0,
            "{source}"
        );
    }
}

#[test]
fn a_closure_nested_in_a_recursive_function_captures_it_when_allocated_anyway() {
    // `f` captures `n`, so it is allocated at each level of `walk`; it names `walk` too,
    // which inside `walk`'s body is a variable of ocamlopt's Lambda (the function's own
    // closure): a header, the code pointer, the closure info, `n` and `walk`, 5 words (read off
    // `ocamlopt -S`: a closure header of 4 fields). With the two cells it maps, 11 words a
    // level, 10 levels: 110 (the runtime's minor words per run, measured: 110).
    let source = "
let rec walk n l =
  if n = 0 then List.length l
  else
    let rec f = function [] -> [] | x :: t -> if x < 0 then [walk 0 t] else (x + n) :: f t in
    walk (n - 1) (f l)
let input n = n
let run n = walk n [1; 2]";
    assert_eq!(result(source, 10).allocation.words, 110);
    // A closure that captures nothing stays static, naming `walk` or not: no allocation but
    // the cells.
    let closed = "
let rec walk n l =
  if n = 0 then List.length l
  else walk (n - 1) (List.map (fun x -> if x < 0 then walk 0 [] else x + 1) l)
let input n = n
let run n = walk n [1; 2]";
    assert_eq!(result(closed, 10).allocation.words, 10 * 6);
}

#[test]
fn closures_partial_applications_and_exceptions_have_their_exact_size() {
    // `fun x -> x + k + m` (arity 1, 2 captures): header, code, info, 2 values = 5 words.
    // `add3 k` (a known 3-ary function given 1 argument): header, code, info, full-application
    // pointer (2 still missing), the argument, the function = 6 words.
    // `Failure "x"`-like `E (n, n)`: header, identity, 2 arguments = 4 words.
    let source = "
exception E of int * int
let[@inline never] add3 a b c = a + b + c
let[@inline never] apply f x = f x
let rec loop n k m acc =
  if n = 0 then acc
  else
    let h = fun x -> x + k + m in
    let p = add3 k in
    let e = try raise (E (n, n)) with E (a, _) -> a in
    loop (n - 1) k m (acc + apply h n + p 1 2 + e)
let input n = n
let run n = loop n 1 2 0";
    let r = result(source, 7);
    assert_eq!(r.allocation.words, 7 * (5 + 6 + 4));
}

#[test]
fn a_list_that_outlives_the_run_is_promoted_and_garbage_is_not() {
    // `keep` returns its list: every cell lives to the end of the run. `churn` drops each
    // cell at once. Same words, very different survival.
    let keep = "
let rec build n acc = if n = 0 then acc else build (n - 1) (n :: acc)
let input n = n
let run n = build n []";
    let churn = "
let rec loop n acc = if n = 0 then acc else match [n] with x :: _ -> loop (n - 1) (acc + x) | [] -> acc
let input n = n
let run n = loop n 0";
    let (keep, churn) = (result(keep, 100_000), result(churn, 100_000));
    assert_eq!(keep.allocation.words, 300_000);
    assert_eq!(churn.allocation.words, 300_000);
    let heap = 1 << 18;
    // keep: the cell born at clock 3i lives 300 000 − 3i words, capped at H.
    let expected: f64 = (0..100_000u64)
        .map(|i| 3.0 * ((300_000 - 3 * i).min(heap) as f64) / heap as f64)
        .sum();
    let promoted = keep.allocation.promoted_words_at(heap as f64);
    assert!(
        (promoted - expected).abs() / expected < 0.02,
        "{promoted} vs {expected}"
    );
    assert!(churn.allocation.promoted_words(heap) < 10.0);
}

#[test]
fn a_matched_cell_lives_until_its_once_used_field_is_read() {
    // `x` is used once, after the recursive call: native code reads it as `field 0 l` there
    // (the compiler substitutes once-used pattern variables), so every input cell lives
    // until its frame returns — after all the deeper frames have allocated their output
    // cells. Input cell i (from the head) is born at clock 3(n−1−i) while `build` runs and
    // dies at 3n + 3(n−i): it lives 3(n+1) words. Output cell i is born at 3n + 3(n−1−i)
    // and lives to the end of the run at 6n: 3(i+1) words.
    let source = "
let rec build n acc = if n = 0 then acc else build (n - 1) (n :: acc)
let rec double l = match l with [] -> [] | x :: t -> let r = double t in 2 * x :: r
let input n = n
let run n = double (build n [])";
    let n = 1000u64;
    let r = result(source, n as i64);
    assert_eq!(r.allocation.words, 6 * n);
    let heap = 1500u64;
    let share = |lifetime: u64| 3.0 * lifetime.min(heap) as f64 / heap as f64;
    let inputs = n as f64 * share(3 * (n + 1));
    let outputs: f64 = (0..n).map(|i| share(3 * (i + 1))).sum();
    let expected = inputs + outputs;
    // Were each input cell released at the match, input cell i would live only 3(i+1)
    // words and the total would be 2 × outputs, 14% less.
    let promoted = r.allocation.promoted_words_at(heap as f64);
    assert!(
        (promoted - expected).abs() / expected < 0.03,
        "{promoted} vs {expected} (released at the match: {})",
        2.0 * outputs
    );
}

#[test]
fn minor_collections_scan_the_frames_live_at_each_allocation() {
    // `build` recurses without a tail call: the cell of `build k` is allocated while the
    // frames of build n … build k are live, n − k + 1 of them; `run` tail-calls it and has
    // no frame. Σ_k 3 (n − k + 1) = 3 n (n + 1) / 2 frame-words.
    let deep = "
let rec build n = if n = 0 then [] else n :: build (n - 1)
let input n = n
let run n = build n";
    let r = result(deep, 10);
    assert_eq!(r.allocation.frame_words, 3 * 10 * 11 / 2);
    // The counts carry the expectation for the runtime's minor heap, rounded.
    let heap = semantics::minor_heap_words();
    let r = result(deep, 3000);
    // Collections come every I < H words (a major cycle's end cuts a filling short).
    let interval = r.allocation.collection_interval_words(heap);
    assert!(interval < heap as f64);
    let frames = (3 * 3000 * 3001 / 2) as f64 / interval;
    assert_eq!(r.counts["ScannedFrame"], frames.round() as u64);
    assert_eq!(
        r.counts.get("PromotedWord").copied().unwrap_or(0),
        r.allocation.promoted_words(heap).round() as u64
    );
    assert!(r.allocation.promoted_words(heap) > 0.0);
    // The same list with an accumulator: one frame (the loop's own) at every allocation.
    let flat = "
let rec build n acc = if n = 0 then acc else build (n - 1) (n :: acc)
let input n = n
let run n = build n []";
    let r = result(flat, 10);
    assert_eq!(r.allocation.frame_words, 3 * 10);
    // Expected frames walked per run: frame-words over the words between collections. For 30
    // words and a heap of 15 those are 30 / (2 + cycles / 2): 2 collections, and half a one for
    // each major cycle, a cycle every 5 slices, a slice every 15 words allocated (the 30, and
    // the p words promoted).
    let p = r.allocation.promoted_words_at(15.0);
    assert!(p > 0.0);
    let interval = 30.0 / (2.0 + (30.0 + p) / 75.0 / 2.0);
    assert!((r.allocation.collection_interval_words(15) - interval).abs() < 1e-9);
    assert!((r.allocation.scanned_frames(15) - 30.0 / interval).abs() < 1e-9);
    // A function that allocates has a frame of its own (the collector may be called from it),
    // on top of its callers'.
    let nested = "
let[@inline never] pair x = (x, x)
let rec walk n = if n = 0 then 0 else (match pair n with (a, _) -> a) + walk (n - 1)
let input n = n
let run n = walk n";
    let r = result(nested, 4);
    // `pair` allocates 3 words above walk 4 … walk 1, at depths 2 … 5: 3 · (2+3+4+5).
    assert_eq!(r.allocation.frame_words, 3 * 14);
}

#[test]
fn arrays_beyond_256_words_are_major_words_and_smaller_ones_are_not() {
    let source = "
let rec loop k len acc = if k = 0 then acc else loop (k - 1) len (acc + Array.length (Array.make len k))
let input n = n
let run n = loop 3 n 0";
    // 3 arrays of 257 words plus a header each, allocated straight in the major heap.
    let r = result(source, 257);
    assert_eq!(r.counts["MajorWord"], 3 * 258);
    assert_eq!(r.allocation.direct_major_words, 3 * 258);
    assert_eq!(r.counts.get("PromotedWord"), None);
    // 256 words is Max_young_wosize: still the minor heap.
    let r = result(source, 256);
    assert_eq!(r.counts.get("MajorWord"), None);
    assert_eq!(r.counts["ArrayMakeWord"], 3 * 256);
}

#[test]
fn a_matched_call_result_lives_until_its_last_field_is_read() {
    // `match pair n with (a, b) -> use_ a 100 + use_ b 100`: a and b are read once, so native
    // code keeps the tuple and reads `field 0` / `field 1` of it where they are used. The
    // operands of `+` run right to left: `use_ b` first, with the tuple (and so `a`) held;
    // the tuple dies at the read of `a`, before `use_ a` runs.
    // Clock, n = 10: b's cells 0→30, a's 30→60, the tuple 60→63; `use_ b` churns 100 cells
    // (63→363, dead at once); b dies when `use_ b` returns (363), the tuple at the read of a
    // (363); `use_ a` churns 363→663, and a dies at 663.
    let source = "
let rec build n acc = if n = 0 then acc else build (n - 1) (n :: acc)
let[@inline never] pair n = (build n [], build n [])
let rec len l = match l with [] -> 0 | _ :: t -> 1 + len t
let[@inline never] churn k = build k []
let[@inline never] use_ l k = ignore (churn k); len l
let input n = n
let run n = match pair n with (a, b) -> use_ a 100 + use_ b 100";
    let a = result(source, 10).allocation;
    assert_eq!(a.words, 30 + 30 + 3 + 300 + 300);
    // Σ words × age: b's cells 3·Σ(363 − 3i) = 10 485; a's 3·Σ(633 − 3i) = 18 585; the tuple
    // 3·303 = 909 (3·3 if it died at the match, 3·603 if it lived through `use_ a`); each
    // churned list 3·Σ_{i<100}(300 − 3i) = 45 450.
    let word_age: u64 = a.lifetimes.iter().map(|b| b.word_age).sum();
    assert_eq!(word_age, 10_485 + 18_585 + 909 + 2 * 45_450);
}

#[test]
fn a_returned_float_put_into_a_list_lives_with_its_cell() {
    // Per element: the argument of `half` boxed (2 words, dead when the next block is
    // allocated: age 2), `half`'s result boxed by `half` (2 words) and taken by the cons cell
    // (3 words), which lives to the end of the run. Element k (k = 0…n−1) is built from clock
    // 7k: argument box 7k, result box 7k + 2, cell 7k + 4; all cells die at 7n.
    let source = "
let[@inline never] half (x : float) = x *. 0.5
let rec build n acc = if n = 0 then acc else build (n - 1) (half (float_of_int n) :: acc)
let input n = n
let run n = match build n [] with [] -> 0 | _ -> 1";
    let a = result(source, 10).allocation;
    assert_eq!(a.words, 10 * 7);
    // Cell and box together, 5 words from the box's birth: 5·Σ(70 − 7k − 2) = 5·365; the
    // argument boxes 10·2·2. (Were the result box to die at once: 3·Σ(70 − 7k − 4) + 20·2.)
    let word_age: u64 = a.lifetimes.iter().map(|b| b.word_age).sum();
    assert_eq!(word_age, 5 * 365 + 40);
}
