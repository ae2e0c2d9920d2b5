//! `ReturnMiss`: the interpreter follows every non-tail call and return with a model of the
//! processor's 32-entry ring of return addresses. A recursion deeper than the ring misses one
//! return per level beyond it when it calls on its way back, none when it calls on its way
//! down or not at all from one call site, and where the entry 32 levels down holds another
//! site when it recurses from two; tail calls write nothing. Counts computed by hand from that
//! rule.

mod common;

fn misses(source: &str, size: i64) -> u64 {
    common::count_of(source, size, "ReturnMiss")
}

const LIST: &str = "let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let input n = range n []
let positive x = x > 0
";

#[test]
fn a_call_on_the_way_back_misses_once_per_level_beyond_32() {
    // `f x :: map f t` evaluates the recursive call first (right to left), then `f x`.
    let map = format!(
        "{LIST}let rec map f l = match l with [] -> [] | x :: t -> f x :: map f t
let run l = map positive l"
    );
    // The stack holds the driver's return and 31 of map's when the recursion is deepest;
    // on the way back each level returns, then calls and returns from `f`: the 32nd return
    // empties the stack, and every return after it follows a call made while it was empty.
    assert_eq!(misses(&map, 1000), 1000 - 32);
    assert_eq!(misses(&map, 40), 40 - 32);
    assert_eq!(misses(&map, 20), 0, "the stack never empties");
}

#[test]
fn calls_on_the_way_down_or_none_at_all_miss_nothing() {
    let before = format!(
        "{LIST}let rec map f l = match l with [] -> [] | x :: t -> let y = f x in y :: map f t
let run l = map positive l"
    );
    assert_eq!(misses(&before, 1000), 0);
    let length = format!(
        "{LIST}let rec len l = match l with [] -> 0 | _ :: t -> 1 + len t\nlet run l = len l"
    );
    assert_eq!(misses(&length, 5000), 0);
}

#[test]
fn a_tail_call_on_the_way_back_pushes_nothing() {
    // `f x (fold_right …)`: the call of `f` is in tail position, a jump that returns
    // straight to fold_right's caller.
    let fold_right = format!(
        "{LIST}let cons x acc = x :: acc
let rec fold_right f l acc = match l with [] -> acc | x :: t -> f x (fold_right f t acc)
let run l = fold_right cons l []"
    );
    assert_eq!(misses(&fold_right, 1000), 0);
}

#[test]
fn a_deep_recursion_called_from_a_loop_misses_its_return_to_the_loop() {
    // `total` is a loop (tail calls) that calls `down`, which recurses 100 deep and returns
    // with no call on its way back. The recursion overwrites the ring's entry for the return
    // into `total` with one of its own: that return misses, once per call.
    let source = "let rec down k = if k = 0 then 0 else 1 + down (k - 1)
let rec total i acc = if i = 0 then acc else total (i - 1) (acc + down 100)
let input n = n
let run n = total n 0";
    assert_eq!(misses(source, 10), 10);
    // 30 deep never empties the stack: nothing misses.
    assert_eq!(misses(&source.replace("down 100", "down 30"), 10), 0);
}

#[test]
fn two_call_sites_miss_where_the_entry_32_levels_down_holds_the_other() {
    // `walk` recurses from one site above `half` and from the other below it, with nothing
    // called on the way back. At the deepest point the ring holds the 32 deepest levels'
    // sites, all the lower site's; every level of the upper half reads one of them.
    let halves = "let rec walk half n = if n = 0 then 0
  else if n > half then 1 + walk half (n - 1) else 2 + walk half (n - 1)
let input n = n
let run n = walk (n / 2) n";
    assert_eq!(misses(halves, 1000), 500);
    // At 60 the 32 deepest calls are made from n = 32 … 1: the upper half's calls from 32
    // and 31 keep their entries, its 28 others read the lower site's.
    assert_eq!(misses(halves, 60), 28);
    // Alternating sites: the entry 32 levels down was written by the same site.
    let alternating = "let rec walk n = if n = 0 then 0
  else if n land 1 = 0 then 1 + walk (n - 1) else 2 + walk (n - 1)
let input n = n
let run n = walk n";
    assert_eq!(misses(alternating, 1000), 0);
    // Within the ring nothing is stale.
    assert_eq!(misses(halves, 30), 0);
}
