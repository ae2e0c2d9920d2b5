//! An integer the iteration before stored, loaded after a multiply whose product it is added
//! to (`q + n * n`: ocamlopt evaluates the right operand first, so the load issues after the
//! `imul`): the load waits for the store, 8 cycles with the load, counted as forwarding
//! (`ForwardChainCycle`). Loaded first (`n * n + q`), loaded once where the pattern binds it
//! (a field read twice), or added to a product a `let` computed before, it is renamed away
//! and costs nothing more than the add. Hand-computed from the latency and instruction tables
//! of `counts_chain.rs`, read as differences between sizes 6 iterations apart, in sixths of a
//! cycle, divided among the kinds as `counts_chain_kinds.rs` says.

mod common;

use common::{chain_kinds_per_six as per_six, share_of as part};

fn triple(fields: &str) -> String {
    format!(
        "
let rec stats n acc =
  if n = 0 then acc else (match acc with (c, s, q) -> stats (n - 1) {fields})
let input n = n
let run n = stats n (0, 0, 0)"
    )
}

#[test]
fn a_tuple_field_loaded_after_a_multiply_waits_for_its_store() {
    // `q + n * n`: the late load 8 and the add 1, 9 cycles (54 sixths), against IntCondEq 2,
    // IntSub 1, IntMult 3, IntAdd 3, SelfTailApp 1, TupleElem 3, TupleHead 5, TupleMatch 3:
    // 21. Without the forwarding the chain is the add alone, so 8/9 of the 33 sixths beyond
    // issue are forwarding.
    let forward = part(33, 8, 9);
    assert_eq!(forward, 29);
    let late = triple("(c + 1, s + n, q + n * n)");
    assert_eq!(per_six(&late, 200), [33 - forward, 0, 0, 0, forward]);
}

#[test]
fn a_field_loaded_before_the_multiply_costs_only_the_add() {
    // The same instructions; every chain is one add, under the 21 sixths of issue.
    let first = triple("(c + 1, s + n, n * n + q)");
    assert_eq!(per_six(&first, 200), [0; 5]);
    // Read twice, `q` is loaded once where the pattern binds it, before the multiply.
    let twice = triple("(c + q, s + n, q + n * n)");
    assert_eq!(per_six(&twice, 200), [0; 5]);
    // A product bound before is ready long before the load; a multiply by a literal is an
    // `lea`, no `imul`.
    let bound = "
let rec stats n acc =
  if n = 0 then acc
  else (match acc with (c, s, q) -> let m = n * n in stats (n - 1) (c + 1, s + n, q + m))
let input n = n
let run n = stats n (0, 0, 0)";
    assert_eq!(per_six(bound, 200), [0; 5]);
    assert_eq!(per_six(&triple("(c + 1, s + n, q + n * 5)"), 200), [0; 5]);
}

#[test]
fn a_record_field_the_loop_stores_waits_when_loaded_after_a_multiply() {
    // `r.q <- r.q + i * i`: 9 cycles, against ForIter 5, AddToField 1 (`r.c <- r.c + 1`),
    // FieldSet 1, IntMult 3, IntAdd 1, TupleMatch 1 (the field's load), BackEdgePoll 2: 14,
    // so 40 sixths beyond issue, 8/9 of them forwarding. `i * i + r.q` carries the add alone.
    let record = |update: &str| {
        format!(
            "
type acc = {{ mutable c : int; mutable q : int }}
let input n = n
let run n =
  let r = {{ c = 0; q = 0 }} in
  for i = 1 to n do
    r.c <- r.c + 1;
    r.q <- {update}
  done;
  r.q + r.c"
        )
    };
    let forward = part(40, 8, 9);
    assert_eq!(forward, 35);
    assert_eq!(
        per_six(&record("r.q + i * i"), 200),
        [40 - forward, 0, 0, 0, forward]
    );
    assert_eq!(per_six(&record("i * i + r.q"), 200), [0; 5]);
}
