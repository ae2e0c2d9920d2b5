//! `Stack` and `Buffer`, read from `stack.ml` and `buffer.ml` as nested modules (their types
//! and exceptions qualified as a program's own module's are), and `x = C` with `C` a constant
//! constructor, which ocamlopt compiles to a word compare whatever `x`'s type.

mod common;

use common::count;

const STACK: &str = "
let input n = List.init n (fun i -> i * 7 mod 23)
let run l =
  let s = Stack.create () in
  List.iter (fun x -> Stack.push x s) l;
  let top = match Stack.top_opt s with Some x -> x | None -> -1 in
  let n = Stack.length s in
  let total = ref 0 in
  while not (Stack.is_empty s) do
    total := !total + Stack.pop s
  done;
  let empty = try Stack.pop s with Stack.Empty -> -7 in
  (top, n, !total, empty, Stack.pop_opt s)
";

const BUFFER: &str = "
let input n = List.init n (fun i -> i * 37)
let run l =
  let b = Buffer.create 4 in
  List.iter (fun x -> Buffer.add_string b (string_of_int x); Buffer.add_char b ',') l;
  let whole = Buffer.contents b in
  let len = Buffer.length b in
  let first = if len > 0 then Buffer.nth b 0 else ' ' in
  Buffer.truncate b (len / 2);
  Buffer.add_substring b \"abcdef\" 1 3;
  let half = Buffer.contents b in
  Buffer.clear b;
  Buffer.add_buffer b b;
  (String.length whole, first, half, Buffer.length b)
";

#[test]
fn stack_and_buffer_agree_with_native_code_on_results_and_words() {
    for (name, source) in [("stack.ml", STACK), ("buffer.ml", BUFFER)] {
        common::assert_agrees_with_native(name, source, &[0, 1, 10, 1000]);
        // At 300 the buffer outgrows the minor heap's largest block (256 words): its last
        // `Bytes.create` is allocated directly in the major heap.
        common::assert_words_agree(name, source, &[0, 10, 300]);
    }
}

#[test]
fn small_stack_and_buffer_functions_are_inlined_as_ocamlopt_inlines_them() {
    let source = "let input n = (Stack.create (), Buffer.create 16, n)
let run (s, b, n) =
  Stack.push n s;
  Buffer.add_char b 'a';
  Stack.length s + Buffer.length b + (if Stack.is_empty s then 1 else 0) + Stack.top s";
    let asm = common::assembly("inlined", source);
    assert!(asm.contains("camlStdlib__Stack__push"), "push is a call");
    for inlined in ["length", "is_empty", "top"] {
        assert!(
            !asm.contains(&format!("camlStdlib__Stack__{inlined}")),
            "{inlined}"
        );
    }
    assert!(!asm.contains("camlStdlib__Buffer__add_char"), "add_char");
    assert!(
        !asm.contains("caml_equal"),
        "is_empty's `s.c = []` is a word compare"
    );
    let counts = count(source, 3);
    // `run`'s own call and `push`'s: no other function is called while the buffer has room.
    assert_eq!(counts.get("FunApp"), Some(&2), "{counts:?}");
    assert_eq!(counts.get("PolyCompare"), None, "{counts:?}");
    assert_eq!(counts.get("IntCondEq"), Some(&1), "{counts:?}");
}

#[test]
fn comparing_with_a_constant_constructor_is_a_word_compare() {
    let input = "let input n = List.init n (fun i -> Some i)\n";
    for run in [
        "let run l = l = []",
        "let run l = [] <> l",
        "let run l = List.hd l <> None",
    ] {
        let source = format!("{input}{run}");
        let counts = count(&source, 4);
        assert_eq!(counts.get("PolyCompare"), None, "{run}: {counts:?}");
        assert_eq!(counts.get("IntCondEq"), Some(&1), "{run}: {counts:?}");
        let asm = common::assembly("constant", &source);
        assert!(
            !asm.contains("caml_equal") && !asm.contains("caml_notequal"),
            "{run}"
        );
        common::assert_agrees_with_native("constant.ml", &source, &[1, 3]);
    }
    // A pair is not a constant constructor, nor an exception, and `compare` is not specialised.
    for run in [
        "let run l = List.hd l = Some 3",
        "let run l = compare l [] = 0",
        "let run l = (try ignore (List.hd l); Exit with e -> e) = Not_found",
    ] {
        let counts = count(&format!("{input}{run}"), 4);
        assert_eq!(counts.get("PolyCompare"), Some(&1), "{run}: {counts:?}");
    }
}

#[test]
fn buffer_functions_needing_other_modules_are_refused_at_their_line() {
    let source = "let input n = n\nlet run n = let b = Buffer.create n in Buffer.add_utf_8_uchar b (Uchar.of_int 65); Buffer.length b";
    let error = common::refusal(source);
    assert!(
        error.contains("buffer.ml:") && error.contains("Uchar"),
        "{error}"
    );
}
