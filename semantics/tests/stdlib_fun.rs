//! `Fun`, read from the installed `fun.ml` as `List` is: `Fun.id` (`%identity`) is no code,
//! `const`, `flip` and `negate` are the Stdlib's functions, called or partially applied like
//! the program's own; `Fun.protect` (which needs `Printexc`) is refused with its place in
//! `fun.ml`.

mod common;

use common::count;

const PIPELINE: &str = "
let input n = List.init n (fun i -> i * 7 mod 23)
let run l =
  let kept = List.filter (Fun.negate (fun x -> x mod 3 = 0)) l in
  let same = List.map Fun.id kept in
  let ones = List.map (Fun.const 1) same in
  List.fold_left (Fun.flip (fun x acc -> acc + x)) (Fun.id 0) (same @ ones)
";

#[test]
fn fun_agrees_with_native_code_on_results_and_words() {
    common::assert_agrees_with_native("fun_pipeline.ml", PIPELINE, &[0, 1, 10, 1000]);
    for size in [0, 10, 300] {
        let program = semantics::Program::from_source("t.ml", PIPELINE).unwrap();
        assert_eq!(
            program.count(size as i64).unwrap().allocation.words,
            common::native_words(PIPELINE, size).0,
            "words at size {size}"
        );
    }
}

#[test]
fn fun_id_is_no_code_and_flip_is_inlined() {
    let input = "let input n = n\n";
    assert_eq!(
        count(&format!("{input}let run n = Fun.id (n + 1)"), 5),
        count(&format!("{input}let run n = n + 1"), 5)
    );
    // `Fun.flip f x y` is `f y x`, and small enough that Closure inlines it from the Stdlib's
    // `.cmx` even at `-inline 0` (`-S` of `Fun.flip sub n 1`: no call of `flip`, a jump
    // to `sub`): one subtraction and the transfer to `sub`, no call of `flip`.
    let flipped = count(
        &format!("{input}let[@inline never] sub a b = a - b\nlet run n = Fun.flip sub n 1"),
        5,
    );
    assert_eq!(flipped.get("IntSub"), Some(&1), "{flipped:?}");
    assert_eq!(flipped.get("FunApp"), None, "{flipped:?}");
}

#[test]
fn fun_protect_is_refused_where_fun_ml_needs_printexc() {
    let source = "let input n = n\nlet run n = Fun.protect ~finally:(fun () -> ()) (fun () -> n)";
    let error = common::refusal(source);
    assert!(
        error.contains("fun.ml:") && error.contains("module `Printexc`"),
        "{error}"
    );
}
