//! `open` of a Stdlib module and labelled and optional arguments: both are compiled away before
//! typing (a name the `open` brings in becomes the qualified one, labelled arguments go in
//! their parameters' order), so a program written with them counts exactly as the same
//! program written without them — and the native binary agrees on its result.

mod common;

use common::count;

const INPUT: &str = "let input n = List.init n (fun i -> (i * 37) mod 101)\n";

#[test]
fn an_opened_name_counts_as_the_qualified_one() {
    let qualified =
        format!("{INPUT}let run l = List.length (List.filter (fun x -> x > 50) (List.rev l))");
    let opened = [
        format!("{INPUT}let run l = let open List in length (filter (fun x -> x > 50) (rev l))"),
        format!("{INPUT}let run l = List.(length (filter (fun x -> x > 50) (rev l)))"),
        format!("open List\n{INPUT}let run l = length (filter (fun x -> x > 50) (rev l))"),
    ];
    let expected = count(&qualified, 300);
    assert!(
        expected["FunApp"] > 300,
        "the filter's predicate runs per element"
    );
    for source in &opened {
        assert_eq!(count(source, 300), expected, "{source}");
    }
}

#[test]
fn a_name_bound_inside_the_scope_of_an_open_is_not_the_modules() {
    // `length` bound by the program after the `open`, and by a `let` inside `let open`, is the
    // program's: 1000 + 7, not `List.length`'s 1000 + 1000.
    let source = format!(
        "open List\nlet length _ = 1000\n{INPUT}let run l = length l + (let open Array in let length = 7 in length)"
    );
    let program = semantics::Program::from_source("t.ml", &source).unwrap();
    let shadowed = program.count(50).unwrap();
    let direct = semantics::Program::from_source("t.ml", &format!("{INPUT}let run _ = 1007"))
        .unwrap()
        .count(50)
        .unwrap();
    assert_eq!(shadowed.digest, direct.digest);
    // And the open of an earlier definition: the module's `length` hides the program's.
    let source = format!("let length _ = 1000\nopen List\n{INPUT}let run l = length l");
    let counted = semantics::Program::from_source("t.ml", &source)
        .unwrap()
        .count(50)
        .unwrap();
    let list_length =
        semantics::Program::from_source("t.ml", &format!("{INPUT}let run l = List.length l"))
            .unwrap()
            .count(50)
            .unwrap();
    assert_eq!(counted.digest, list_length.digest);
}

#[test]
fn labelled_arguments_count_as_the_same_arguments_in_order() {
    let positional = format!(
        "let clamp lo hi x = if x < lo then lo else if x > hi then hi else x
let rec fold f init l = match l with [] -> init | x :: t -> fold f (f init x) t
{INPUT}let run l = fold (fun acc x -> acc + clamp 10 90 x) 0 l"
    );
    let labelled = format!(
        "let clamp ~lo ~hi x = if x < lo then lo else if x > hi then hi else x
let rec fold ~f ~init l = match l with [] -> init | x :: t -> fold ~f ~init:(f init x) t
{INPUT}let run l = fold l ~init:0 ~f:(fun acc x -> acc + clamp x ~hi:90 ~lo:10)"
    );
    let expected = count(&positional, 200);
    assert!(
        expected["FunApp"] >= 400,
        "clamp and the closure per element"
    );
    assert_eq!(count(&labelled, 200), expected);
}

#[test]
fn an_optional_argument_is_an_option_built_by_the_caller() {
    // `~step:x` passes `Some x` (an allocation of 2 words per call), a passed-over `?step`
    // passes `None`, `?step:o` passes `o`; the default is a match at the function's entry.
    let written_out = format!(
        "let next step x = let step = match step with Some s -> s | None -> 1 in x + step
{INPUT}let run l = List.fold_left (fun acc x -> next (Some x) acc + next None 0 + next (if x > 50 then Some 2 else None) 1) 0 l"
    );
    let optional = format!(
        "let next ?(step = 1) x = x + step
{INPUT}let run l = List.fold_left (fun acc x -> next ~step:x acc + next 0 + next ?step:(if x > 50 then Some 2 else None) 1) 0 l"
    );
    let expected = count(&written_out, 100);
    let counted = count(&optional, 100);
    assert_eq!(counted, expected);
    let bytes = |source: &str| {
        semantics::Program::from_source("t.ml", source)
            .unwrap()
            .count(100)
            .unwrap()
            .allocation
            .words
    };
    // 100 `Some x` of 2 words (header and field) beyond the input list: `Some 2` is a
    // constant, the closure is closed.
    let without_options = format!("{INPUT}let run l = List.length l");
    assert_eq!(bytes(&optional) - bytes(&without_options), 100 * 2);
}

#[test]
fn opens_and_labels_agree_with_the_native_binary() {
    let source = "
open List
let scale ?(factor = 3) ~offset x = x * factor + offset
let clamp ~lo ~hi x = if x < lo then lo else if x > hi then hi else x
let rec fold ~f ~init l = match l with [] -> init | x :: t -> fold ~f ~init:(f init x) t
let pick ?default x = match default with Some d -> d + x | None -> x
let input n = init n (fun i -> i - n / 2)
let run l =
  let lo = -10 in
  let a = fold ~init:0 ~f:(fun acc x -> acc + clamp x ~hi:10 ~lo) l in
  let b = fold l ~f:(fun acc x -> acc + scale ~offset:1 x) ~init:0 in
  let c = fold ~f:(fun acc x -> acc + scale ~factor:x ~offset:2 1) ~init:0 (rev l) in
  let g = clamp ~lo:0 ~hi:5 in
  let d = fold_left (fun acc x -> acc + g x + pick x + pick ~default:2 x) 0 l in
  let opt = if a > 0 then Some 1 else None in
  let e = Option.value ~default:0 (List.find_opt (fun x -> x > 3) l) in
  let f = Option.fold ~none:1 ~some:(fun x -> 2 * x) (if d > 0 then Some d else None) in
  let s = String.concat \",\" (map (fun x -> String.make (1 + abs x mod 3) (Char.chr 116)) (rev l)) in
  let t = (if String.starts_with ~prefix:\"tr\" s then 1 else 0) + String.(length (uppercase_ascii s)) in
  a + b + c + d + e + f + t + pick ?default:opt 5 + Array.(length (of_list l))
";
    common::assert_agrees_with_native("opens_labels.ml", source, &[0, 1, 7, 100, 1000]);
}

#[test]
fn option_functions_count_as_option_ml_writes_them() {
    // option.ml: `let value o ~default = match o with Some v -> v | None -> default` and
    // `let map f o = match o with None -> None | Some v -> Some (f v)`; the same code written
    // in the program counts the same but for one call an element: `ocamlopt -inline 0 -S`
    // calls the program's `value` and `map` and `Option.map`, but inlines `Option.value`,
    // small enough for the Stdlib's own build to have put its body in option.cmx.
    let written = format!(
        "let value o ~default = match o with Some v -> v | None -> default
let map f o = match o with None -> None | Some v -> Some (f v)
{INPUT}let run l = List.fold_left (fun acc x -> acc + value (map (fun y -> y + 1) (if x > 50 then Some x else None)) ~default:0) 0 l"
    );
    let stdlib = format!(
        "{INPUT}let run l = List.fold_left (fun acc x -> acc + Option.value (Option.map (fun y -> y + 1) (if x > 50 then Some x else None)) ~default:0) 0 l"
    );
    let mut expected = count(&written, 200);
    assert!(expected["FunApp"] >= 400, "value and map per element");
    *expected.get_mut("FunApp").unwrap() -= 200;
    assert_eq!(count(&stdlib, 200), expected);
}
