//! What a call costs beyond the call instruction, with hand-computed counts: the values kept
//! across it (`Spill`), the callee's stack frame (`Frame`) and the arity check of an unknown
//! function applied to several arguments (`ApplyN`). Each rule was read off `ocamlopt -S
//! -inline 0` output (4.13, amd64); the training templates `spill`, `frame` and `applyn`
//! check the same shapes in the assembly of every build.

use semantics::Program;

fn counts(source: &str, size: i64) -> std::collections::BTreeMap<String, u64> {
    Program::from_source("t.ml", source)
        .unwrap()
        .count(size)
        .unwrap()
        .counts
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .collect()
}

fn get(counts: &std::collections::BTreeMap<String, u64>, name: &str) -> u64 {
    counts.get(name).copied().unwrap_or(0)
}

#[test]
fn a_non_tail_recursion_keeps_its_operand_and_sets_up_a_frame_per_level() {
    // `n * fact (n - 1)`: `n` is needed after the call, stored before it and loaded back after
    // it (2 spills per call: `ocamlopt -S`, `movq %rax, (%rsp)` … `movq (%rsp), %rbx`). `fact` calls, so
    // it has a frame: entered once from `run` (a tail call from another function) and once
    // per recursive call. `run` only tail-calls: no frame.
    let c = counts(
        "let rec fact n = if n = 0 then 1 else n * fact (n - 1)
let input n = n
let run n = fact n",
        10,
    );
    assert_eq!(get(&c, "FunApp"), 10);
    assert_eq!(get(&c, "Spill"), 2 * 10);
    assert_eq!(get(&c, "Frame"), 11);
    assert_eq!(get(&c, "ApplyN"), 0);
}

#[test]
fn a_fold_checks_the_arity_of_its_function_and_keeps_the_rest_of_the_list() {
    // `fold f (f acc x) t`: arguments right to left, so `t` is loaded first and kept across
    // `f acc x` with `f`, each stored and loaded back (4 spills, as `ocamlopt -S` shows); `x`
    // is read as `field 0 l` before the call, so the cell
    // itself is not kept. `f` is a parameter: caml_apply2 checks its arity (ApplyN). `fold`
    // loops by self tail calls: one frame per run. `add` is a leaf.
    let c = counts(
        "let add a b = a + b
let rec fold f acc l = match l with [] -> acc | x :: t -> fold f (f acc x) t
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let input n = range n []
let run l = fold add 0 l",
        20,
    );
    assert_eq!(get(&c, "ApplyN"), 20);
    assert_eq!(get(&c, "Spill"), 4 * 20);
    assert_eq!(get(&c, "Frame"), 1);
    assert_eq!(get(&c, "FunApp"), 20);
}

#[test]
fn known_calls_and_single_arguments_need_no_arity_check() {
    // `f x` with one argument goes through the code pointer directly; `add2 a b` is known.
    let c = counts(
        "let add2 a b = a + b
let rec loop f n acc = if n = 0 then acc else loop f (n - 1) (add2 (f n) acc)
let input n = n
let run n = loop (fun x -> x + 1) n 0",
        8,
    );
    assert_eq!(get(&c, "ApplyN"), 0);
    // `add2` (size 2, two parameters) is inlined: the only call is `f n`.
    assert_eq!(get(&c, "FunApp"), 8);
    // `add2 (f n) acc`: `acc` is evaluated first and kept across `f n`, with `f` and `n`
    // (both needed for the loop's next arguments): each stored once, before `f n`, and loaded
    // back once after it (`ocamlopt -S`: three stores before `call *%rdi`, three loads after
    // it): 6.
    assert_eq!(get(&c, "Spill"), 8 * 6);
}

#[test]
fn an_allocating_leaf_has_a_frame_and_a_computing_leaf_has_none() {
    let c = counts(
        "let pair n = (n, n)
let double n = n + n
let rec loop n acc = if n = 0 then acc else match pair n with (a, b) -> loop (n - 1) (acc + double a + b)
let input n = n
let run n = loop n 0",
        6,
    );
    // loop (framed: it calls) once, pair (allocates) per iteration; double never.
    assert_eq!(get(&c, "Frame"), 1 + 6);
    assert_eq!(get(&c, "FunApp"), 12);
}

#[test]
fn only_a_known_function_tail_calling_itself_is_a_loop() {
    // `down` jumps back to its own head n times (SelfTailApp); `run`'s call of it leaves
    // `run` for another function (TailApp). `ping` and `pong` tail-call each other: neither
    // call is from the callee's own code, so all n + 1 are TailApp, `run`'s included.
    let own = counts(
        "let rec down n acc = if n = 0 then acc else down (n - 1) (acc + 2)
let input n = n
let run n = down n 0",
        7,
    );
    assert_eq!(get(&own, "SelfTailApp"), 7);
    assert_eq!(get(&own, "TailApp"), 1);
    let ring = counts(
        "let rec ping n = if n = 0 then 0 else pong (n - 1)
and pong n = if n = 0 then 1 else ping (n - 1)
let input n = n
let run n = ping n",
        7,
    );
    assert_eq!(get(&ring, "SelfTailApp"), 0);
    assert_eq!(get(&ring, "TailApp"), 8);
}

#[test]
fn a_loop_polls_at_its_head_unless_every_way_round_allocates() {
    // Read off `ocamlopt -S -inline 0`: `a` conses on even n only, so its head polls (entry
    // plus 10 jumps back: 11); `b` builds a pair and a cons each time round, `c` boxes the
    // float it passes back, `d` conses on every arm that loops: none of them polls.
    let c = counts(
        "let rec a n acc = if n = 0 then acc else if n mod 2 = 0 then a (n - 1) (n :: acc) else a (n - 1) acc
let rec b n acc = if n = 0 then acc else let x = (n, n) in b (n - 1) (fst x :: acc)
let rec c n (acc : float) = if n = 0 then acc else c (n - 1) (acc +. 1.0)
let rec d n acc = match acc with [] -> d (n - 1) [n] | _ :: _ when n = 0 -> acc | l -> d (n - 1) (n :: l)
let input n = n
let run n = (a n [], b n [], c n 0.0, d n [])",
        10,
    );
    assert_eq!(get(&c, "SelfTailApp"), 40);
    assert_eq!(get(&c, "LoopPoll"), 11);
}

#[test]
fn what_a_tuple_match_binds_is_not_kept_across_the_calls_that_compute_it() {
    // `match (f a, f b) with …`: one component is kept across the other's call, and the
    // other's argument across the first call: 2 stores and 2 loads (`ocamlopt -S`: `b`
    // stored before `f a`, `f a`'s result stored before `f b`, both loaded back). The
    // variables the arms bind (`q`, `p`, `p`, `q`: four slots) do not exist yet; before, each
    // counted once per call.
    let c = counts(
        "let[@inline never] f x = x * 2
let g a b = match (f a, f b) with (0, q) -> q | (p, 0) -> p | (p, q) -> p + q
let input n = n
let run n = g n (n + 1)",
        5,
    );
    assert_eq!(get(&c, "Spill"), 4);
}
