//! Calls ocamlopt's Closure pass inlines (semantics/src/inline.rs): by hand, and against the
//! calls left in the real compiler's assembly.

mod common;

use common::count_of;

/// Small helpers, each called once by `run` (straight-line code): which of them stay calls.
const HELPERS: &str = "type r = { x : int; mutable y : int }
let add a b = a + b
let getx r = r.x
let konst _ = 0
let fadd (a : float) b = a +. b
let sq x = x * x
let cmp (a : int) b = compare a b
let setr (r : int ref) v = r := v
let sety r v = r.y <- v
let third (_, _, c) = c
let lt (a : int) b = a < b
let add3 a b c = a + b + c
let idf x = x
let deref r = !r
let bump r = r := !r + 2
let peq a b = a = b
let pair a b = (a, b)
let hd2 l = match l with x :: _ -> x | [] -> 0
let[@inline never] kept x = x
let[@inline] forced x = x * x
let item_kept x = x [@@inline never]
let input n = n
let run n =
  let r = { x = n; y = n } and rr = ref n and l = [n] in
  add n 1 + getx r + konst n + int_of_float (fadd 1.0 2.0) + sq n + cmp n 3 + (setr rr n; 0)
  + (sety r n; 0) + third (n, n, n) + (if lt n 2 then 1 else 0) + add3 n n n + idf n
  + deref rr + (bump rr; 0) + (if peq l [] then 1 else 0) + fst (pair n n) + hd2 l
  + kept n + forced n + item_kept n";

/// The helpers whose call ocamlopt keeps: a body larger than its parameter count (`sq` 2,
/// `add3` 4, `bump` 5, `peq` a C call, `pair` a block, `hd2` a test), or `[@inline never]`.
const CALLED: [&str; 8] = [
    "sq",
    "add3",
    "bump",
    "peq",
    "pair",
    "hd2",
    "kept",
    "item_kept",
];

#[test]
fn a_body_no_larger_than_its_parameter_count_is_inlined() {
    // Every helper of `HELPERS` is called once; the eight of `CALLED` remain calls.
    assert_eq!(
        count_of(HELPERS, 5, "FunApp"),
        CALLED.len() as u64,
        "FunApp"
    );
}

#[test]
fn the_calls_left_are_those_ocamlopt_leaves() {
    let assembly = common::assembly("helpers", HELPERS);
    let mut called: Vec<&str> = assembly
        .lines()
        .skip_while(|line| !(line.starts_with("camlHelpers__run_") && line.ends_with(':')))
        .take_while(|line| !line.contains(".cfi_endproc"))
        .filter_map(|line| line.trim().strip_prefix("call\tcamlHelpers__"))
        .map(|target| target.trim_end_matches("@PLT"))
        .map(|target| {
            target
                .rsplit_once('_')
                .map_or(target, |(name, _stamp)| name)
        })
        .collect();
    called.sort_unstable();
    let mut expected = CALLED.to_vec();
    expected.sort_unstable();
    assert_eq!(called, expected);
}

#[test]
fn an_inlined_float_function_boxes_nothing() {
    // Inlined, `fadd (fmul x x) (fmul x 2.0)` is one unboxed expression; called, each result
    // is boxed to be returned: 3 boxes a run.
    let source = |attribute: &str| {
        format!(
            "let{attribute} fadd (a : float) b = a +. b
let{attribute} fmul (a : float) b = a *. b
let input n = float_of_int n
let run x = fadd (fmul x x) (fmul x 2.0) > 1.0"
        )
    };
    assert_eq!(count_of(&source(""), 3, "FloatBox"), 0);
    assert_eq!(count_of(&source(""), 3, "FunApp"), 0);
    assert_eq!(count_of(&source("[@inline never]"), 3, "FloatBox"), 3);
    assert_eq!(count_of(&source("[@inline never]"), 3, "FunApp"), 3);
}

#[test]
fn the_stdlib_inlines_with_its_own_threshold() {
    // `List.hd` (size 10) and `List.length`, a call of `length_aux` (5), are inlined into the
    // program; `max` (14: a polymorphic comparison) is a call.
    let source = "let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let input n = range n []
let run l = List.hd l + List.length l + max (List.hd l) 3";
    // `length_aux` called once (tail-called by nothing: inlined into `run`), `max` once.
    assert_eq!(count_of(source, 6, "FunApp"), 2);
}

#[test]
fn a_tupled_helper_is_inlined_only_with_its_tuple_written_out() {
    let source = |call: &str| {
        format!(
            "let third (_, _, c) = c
let input n = (n, n, n)
let run t = match t with (a, b, c) -> {call}"
        )
    };
    assert_eq!(count_of(&source("third (a, b, c)"), 1, "FunApp"), 0);
    // Through the closure's tuplifying entry: a call.
    assert_eq!(count_of(&source("third t"), 1, "TailApp"), 2);
}

#[test]
fn an_assigned_variable_is_passed_as_it_was_when_the_arguments_ran() {
    // Arguments run right to left: `!r` is read before `(r := 5; 1)` assigns it, inlined or
    // not, so the result is `1 + n`.
    let digest = |source: &str| {
        semantics::Program::from_source("t.ml", source)
            .unwrap()
            .count(3)
            .unwrap()
            .digest
    };
    let inlined = "let add a b = a + b
let input n = n
let run n = let r = ref n in add (r := 5; 1) !r";
    assert_eq!(count_of(inlined, 3, "FunApp"), 0);
    assert_eq!(
        digest(inlined),
        digest("let input n = n\nlet run n = 1 + n")
    );
}
