//! `AllocWriteCycle`: the minor heap's pace of taking the words a loop iteration (or a level
//! of a linear recursion's way back) writes (10 sixths of a cycle a word), counted beyond the
//! iteration's instructions at 4 a cycle (3/2 sixths each) and its chain, by hand.

mod common;

fn alloc_write_cycles(source: &str, size: i64) -> u64 {
    common::count_of(source, size, "AllocWriteCycle")
}

/// Cycles over 600 iterations, the difference between two sizes: what the loop's entry and
/// exit add cancels.
fn over_600(source: &str) -> u64 {
    alloc_write_cycles(source, 1200) - alloc_write_cycles(source, 600)
}

#[test]
fn a_loop_that_builds_a_wide_block_and_little_else_waits_on_its_writes() {
    // A 5-tuple is 6 words: 6 × 10 = 60 sixths of a cycle. The iteration issues TupleMatch 5,
    // IntCondEq 2, IntSub 1, IntAdd 1, TupleHead 5, TupleElem 5, SelfTailApp 1: 20
    // instructions, 30 sixths at 4 a cycle. 30 sixths beyond: 5 cycles an iteration.
    let wide = "
let rec loop n (a, b, c, d, e) =
  if n = 0 then a + b + c + d + e else loop (n - 1) (n, n, n, n, e + n)
let input n = n
let run n = loop n (1, 2, 3, 4, 5)";
    assert_eq!(over_600(wide), 600 * 5);
    assert_eq!(alloc_write_cycles(wide, 1000), 5000);
    // A 9-word block, 26 instructions (TupleMatch 8, TupleElem 8, TupleHead 5, IntAdd 1,
    // IntCondEq 2, IntSub 1, SelfTailApp 1): 90 − 39 = 51 sixths, 8½ cycles.
    let nine = "
let rec loop n (a, b, c, d, e, f, g, h) =
  if n = 0 then a + b + c + d + e + f + g + h
  else loop (n - 1) (n, n, n, n, n, n, n, h + n)
let input n = n
let run n = loop n (1, 2, 3, 4, 5, 6, 7, 8)";
    assert_eq!(over_600(nine), 600 * 51 / 6);
}

#[test]
fn a_pair_an_iteration_among_other_work_hides_its_writes() {
    let pair = "
let rec loop n (a, b) = if n = 0 then a + b else loop (n - 1) (b, a + n)
let input n = n
let run n = loop n (1, 2)";
    // A pair is 3 words, 30 sixths. TupleMatch 2, IntCondEq 2, IntSub 1, IntAdd 1, TupleHead
    // 5, TupleElem 2, SelfTailApp 1: 14 instructions, 21 sixths; 9 sixths beyond.
    assert_eq!(over_600(pair), 600 * 9 / 6);
    // The same pair with an xor-shift of the counter beside it: 15 more instructions, 43½
    // sixths, and the writes keep pace.
    let busy = "
let rec loop n (a, b) =
  if n = 0 then a + b
  else
    let h = n lxor (n lsl 7) in
    let h = h lxor (h lsr 9) in
    loop (n - 1) (b, a + h)
let input n = n
let run n = loop n (1, 2)";
    assert_eq!(alloc_write_cycles(busy, 1000), 0);
}

#[test]
fn a_loop_that_allocates_nothing_counts_none() {
    let sum = "
let rec loop n acc = if n = 0 then acc else loop (n - 1) (acc + n)
let input n = n
let run n = loop n 0";
    assert_eq!(alloc_write_cycles(sum, 1000), 0);
}

#[test]
fn bytes_create_writes_only_its_header_and_last_word() {
    // 1000 bytes are 127 words, of which caml_alloc_string writes 2: 20 sixths, well within
    // the call's 54 instructions. Counted as written, they would be 1270 sixths an iteration.
    let create = "
let rec loop n acc = if n = 0 then acc else loop (n - 1) (acc + Bytes.length (Bytes.create 1000))
let input n = n
let run n = loop n 0";
    assert_eq!(alloc_write_cycles(create, 1000), 0);
    // `Bytes.make` fills what it allocates: its 127 words are written (1270 sixths against
    // the create's 54 instructions, the fill's 34 and its 125 words' 125, the loop's 7, at 3/2
    // sixths each).
    let make = "
let rec loop n acc = if n = 0 then acc else loop (n - 1) (acc + Bytes.length (Bytes.make 1000 'a'))
let input n = n
let run n = loop n 0";
    assert!(alloc_write_cycles(make, 1000) > 100 * 1000);
}

#[test]
fn an_outer_loop_does_not_wait_again_on_its_inner_loops_words() {
    // The inner loop waits 5 cycles an iteration, as above: 50 a call of 10 iterations, 300
    // sixths. The outer iteration allocates nothing of its own (the tuple it passes is a
    // constant, static data): its 60 words are the inner loop's, 600 sixths, against more than
    // 200 instructions at 4 a cycle (300 sixths) plus the 300 the inner loop already waited.
    // Counted again, they would add some 45 cycles an outer iteration.
    let nested = "
let rec inner n (a, b, c, d, e) =
  if n = 0 then a + b + c + d + e else inner (n - 1) (n, n, n, n, e + n)
let rec outer k acc = if k = 0 then acc else outer (k - 1) (acc + inner 10 (1, 2, 3, 4, 5))
let input n = n
let run n = outer n 0";
    assert_eq!(alloc_write_cycles(nested, 100), 100 * 50);
    assert_eq!(alloc_write_cycles(nested, 200), 200 * 50);
}

#[test]
fn a_linear_recursion_waits_on_the_words_its_way_back_allocates_beyond_the_call_hold() {
    // Each level's way back, from one return to the next, conses a pair: TupleHead 5,
    // TupleElem 2, Cons 8 (AllocMerged 0), 15 instructions, 22 sixths at 4 a cycle (rounded
    // down), under the 30 of its call and return's hold; 6 words, 60 sixths: 30 sixths, 5
    // cycles, a level. The deepest level returns `[]`: `n` levels wait `n − 1` times.
    let pairs = "
let rec pairs n = if n = 0 then [] else (n, n) :: pairs (n - 1)
let input n = n
let run n = pairs n";
    assert_eq!(alloc_write_cycles(pairs, 1000), 999 * 5);
    // Two cells a level (6 words): Cons 8 twice, 16 instructions, 24 sixths, under the hold.
    let cells = "
let rec cells n = if n <= 0 then [] else n :: n :: cells (n - 2)
let input n = n
let run n = cells n";
    assert_eq!(alloc_write_cycles(cells, 1000), 499 * 5);
    // One cell a level writes 3 words, 30 sixths: no more than the hold.
    let build = "
let rec build n = if n = 0 then [] else n :: build (n - 1)
let input n = n
let run n = build n";
    assert_eq!(alloc_write_cycles(build, 1000), 0);
    // `^` on the way back: the string's header and last word are the level's own stores (20
    // sixths, under the hold); its body, some 60 words at the top, the C library's blit.
    let join = r#"
let rec words k acc = if k = 0 then acc else words (k - 1) (String.make (1 + k mod 7) 'a' :: acc)
let input n = words n []
let rec join l = match l with [] -> "" | [w] -> w | w :: rest -> w ^ "," ^ join rest
let run l = join l"#;
    assert_eq!(alloc_write_cycles(join, 100), 0);
    // Nine words allocated on the way down (before the self call) are the way down's to wait
    // on, and it has len's 3 levels and more to write them beside; the way back, which
    // allocates nothing, must not take them for its own (90 sixths, 60 beyond the hold).
    let down = "
let rec len l = match l with [] -> 0 | _ :: t -> 1 + len t
let rec down n = if n = 0 then 0 else let s = len [n; n; n] in s + down (n - 1)
let input n = n
let run n = down n";
    assert_eq!(alloc_write_cycles(down, 1000), 0);
}
