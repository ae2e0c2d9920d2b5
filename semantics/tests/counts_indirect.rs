//! Calls and tail calls through a closure's code pointer (`IndirectCall`, `IndirectJump`): by
//! hand, and against the `call *` and `jmp *` of the real compiler's assembly.

mod common;

use common::count_of;

const ID_AND_ADD: &str = "let[@inline never] id x = x
let[@inline never] add a b = a + b
";

fn program(body: &str) -> String {
    format!("{ID_AND_ADD}{body}")
}

#[test]
fn a_parameter_applied_to_one_argument_is_called_through_its_code_pointer() {
    // `map f l` on n elements: n calls of `f`, each a `call *`; the recursion itself is a
    // direct call of a known function.
    let source = program(
        "let rec map f l = match l with [] -> [] | x :: t -> let y = f x in y :: map f t
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)
let input n = range n []
let run l = map id l",
    );
    assert_eq!(count_of(&source, 7, "IndirectCall"), 7);
    assert_eq!(count_of(&source, 7, "FunApp"), 14);
    assert_eq!(count_of(&source, 7, "IndirectJump"), 0);
}

#[test]
fn a_known_function_is_called_directly() {
    let source = program(
        "let rec loop n acc = if n = 0 then acc else loop (n - 1) (id acc + 1)
let input n = n
let run n = loop n 0",
    );
    assert_eq!(count_of(&source, 9, "FunApp"), 9);
    assert_eq!(count_of(&source, 9, "IndirectCall"), 0);
    assert_eq!(count_of(&source, 9, "IndirectJump"), 0);
}

#[test]
fn a_tail_call_of_a_parameter_is_a_jump_through_its_code_pointer() {
    // `apply f x = f x`, called n times directly: n `jmp *`.
    let source = program(
        "let[@inline never] apply f x = f x
let rec loop f n = if n = 0 then 0 else loop f (apply f (n - 1))
let input n = n
let run n = loop id n",
    );
    assert_eq!(count_of(&source, 6, "IndirectJump"), 6);
    assert_eq!(count_of(&source, 6, "IndirectCall"), 0);
}

#[test]
fn several_arguments_go_through_caml_apply_not_the_code_pointer() {
    // `f acc n` with an unknown two-argument `f`: a direct call of `caml_apply2` (ApplyN),
    // whose jump to the code is part of ApplyN's dispatch.
    let source = program(
        "let rec loop f n acc = if n = 0 then acc else loop f (n - 1) (f acc n)
let input n = n
let run n = loop add n 0",
    );
    assert_eq!(count_of(&source, 5, "ApplyN"), 5);
    assert_eq!(count_of(&source, 5, "IndirectCall"), 0);
    assert_eq!(count_of(&source, 5, "IndirectJump"), 0);
}

#[test]
fn a_partial_application_of_an_unknown_function_forwards_through_a_stub() {
    // `f 1` with `f` unknown: one `call *` into `caml_curry2`, which builds the closure. Each
    // of the n calls of `g` is a `call *` into `caml_curry2_1`, which jumps to `add` through
    // the code pointer it holds: n IndirectCall, n IndirectJump.
    let source = program(
        "let rec loop g n = if n = 0 then 0 else loop g (g (n - 2))
let input n = (n, add)
let run (n, f) = loop (f 1) n",
    );
    assert_eq!(count_of(&source, 8, "IndirectCall"), 9);
    assert_eq!(count_of(&source, 8, "IndirectJump"), 8);
}

#[test]
fn a_partial_application_of_a_known_function_jumps_to_it_directly() {
    // `add 1` with `add` known: ocamlopt builds a closure of its own whose code jumps to `add`
    // by name. The n calls of `g` still enter it through the code pointer.
    let source = program(
        "let rec loop g n = if n = 0 then 0 else loop g (g (n - 2))
let input n = n
let run n = loop (add 1) n",
    );
    assert_eq!(count_of(&source, 8, "IndirectCall"), 8);
    assert_eq!(count_of(&source, 8, "IndirectJump"), 0);
}

#[test]
fn a_tupled_function_passed_as_a_value_enters_through_its_tuplifying_stub() {
    // `f p` with `f` a tupled function reached as a value: `call *` into `caml_tuplify2`,
    // which loads the components and jumps to the code through the closure.
    let source = "let[@inline never] sum (a, b) = a + b
let rec loop f n acc = if n = 0 then acc else loop f (n - 1) (acc + f (n, n))
let input n = n
let run n = loop sum n 0";
    assert_eq!(count_of(source, 4, "IndirectCall"), 4);
    assert_eq!(count_of(source, 4, "IndirectJump"), 4);
}

/// Each helper runs once from `run`: `apply` tail-calls its parameter, `call` and `twice`
/// call theirs, `twice` then tail-calls it, `call2` goes through `caml_apply2`.
const HELPERS: &str = "let[@inline never] id x = x
let[@inline never] add a b = a + b
let[@inline never] apply f x = f x
let[@inline never] call f x = f x + 1
let[@inline never] call2 f x = f x x + 1
let[@inline never] twice f x = f (f x)
let input n = n
let run n = apply id n + call id n + call2 add n + twice id n + id n";

#[test]
fn the_indirect_transfers_counted_are_those_in_ocamlopts_assembly() {
    let assembly = common::assembly("helpers", HELPERS);
    let sites = |mnemonic: &str| {
        assembly
            .lines()
            .filter(|line| line.trim().starts_with(&format!("{mnemonic}\t*")))
            .count() as u64
    };
    // Every site in the module runs exactly once.
    assert_eq!(count_of(HELPERS, 3, "IndirectCall"), sites("call"));
    assert_eq!(count_of(HELPERS, 3, "IndirectJump"), sites("jmp"));
    assert_eq!(sites("call"), 2, "call and twice");
    assert_eq!(sites("jmp"), 2, "apply and twice");
}
