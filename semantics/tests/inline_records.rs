//! Inline records (`C of { f : a; mutable g : b }`): the constructor's block holds the fields,
//! `C r` names that block, `r.g` is found from `r`'s type; and `Queue`, whose cells are one,
//! read from `queue.ml` as a nested module.

mod common;

use common::{count, refusal};

const QUEUE: &str = "
let bfs n =
  let q = Queue.create () in
  Queue.add 0 q;
  let total = ref 0 in
  while not (Queue.is_empty q) do
    let i = Queue.take q in
    total := !total + i;
    if 2 * i + 1 < n then Queue.add (2 * i + 1) q;
    if 2 * i + 2 < n then Queue.push (2 * i + 2) q
  done;
  !total

let input n = n
let run n =
  let q = Queue.create () in
  for i = 1 to n do Queue.add i q done;
  let s = Queue.fold ( + ) 0 q in
  let c = Queue.copy q in
  let first = match Queue.peek_opt c with Some x -> x | None -> -1 in
  let seen = ref 0 in
  Queue.iter (fun x -> seen := !seen + x) c;
  let len = Queue.length q in
  let t = Queue.create () in
  Queue.transfer q t;
  let e = try Queue.pop q with Queue.Empty -> -7 in
  let last = match Queue.take_opt t with Some x -> x | None -> 0 in
  (bfs n, s, first, !seen, len, e, Queue.length t, last)
";

/// A program's own inline records: a mutable one, relinked through the name `Cons last`
/// binds, and immutable ones of several constructors (one field named alike in two).
const OWN: &str = "
type 'a cell = Nil | Cons of { content : 'a; mutable next : 'a cell }
type shape = Circle of { r : int } | Rect of { w : int; r : int } | Dot
type point = { next : int; r : float }

let rec build n acc = if n = 0 then acc else build (n - 1) (Cons { next = acc; content = n })
let rec sum = function Nil -> 0 | Cons { content; next } -> content + sum next
let rec last = function Nil -> Nil | Cons c as cell -> if c.next = Nil then cell else last c.next
let area = function Circle { r } -> 3 * r * r | Rect s -> s.w * s.r | Dot -> 0

let input n = n
let run n =
  let l = build n Nil in
  let before = sum l in
  (match last l with Cons c -> c.next <- Cons { content = 100; next = Nil } | Nil -> ());
  let p = { next = n; r = 1.5 } in
  let shapes = [Circle { r = n }; Rect { w = n; r = 2 }; Dot] in
  (before, sum l, p.next, p.r, List.fold_left (fun a s -> a + area s) 0 shapes)
";

#[test]
fn queue_and_own_inline_records_agree_with_native_code_on_results_and_words() {
    for (name, source) in [("queue.ml", QUEUE), ("own.ml", OWN)] {
        common::assert_agrees_with_native(name, source, &[0, 1, 2, 10, 1000]);
        common::assert_words_agree(name, source, &[0, 10, 1000]);
    }
}

#[test]
fn an_inline_record_is_its_constructors_block() {
    // Each cell: a header and two fields, a `VariantHead` and two `VariantElem`s, whether its
    // record is mutable (a `Mut` block here) or not.
    let mutable = "type t = Nil | Cons of { x : int; mutable tl : t }
let rec build n = if n = 0 then Nil else Cons { tl = build (n - 1); x = n }
let input n = n
let run n = match build n with Cons c -> c.tl <- Nil; c.x | Nil -> 0";
    let counts = count(mutable, 5);
    assert_eq!(counts.get("VariantHead"), Some(&5), "{counts:?}");
    assert_eq!(counts.get("VariantElem"), Some(&10), "{counts:?}");
    // `c.tl <- Nil` (a pointer type's store: `caml_modify`, into a cell `run` has just built)
    // and the read `c.x`.
    assert_eq!(counts.get("CamlModifyYoung"), Some(&1), "{counts:?}");
    assert_eq!(counts.get("CamlModify"), None, "{counts:?}");
    assert_eq!(counts.get("TupleMatch"), Some(&1), "{counts:?}");
    let program = semantics::Program::from_source("m.ml", mutable).unwrap();
    assert_eq!(program.count(5).unwrap().allocation.words, 15);

    // A constant immutable inline record is static data, as a constant constructor block is;
    // a mutable one is allocated at each evaluation.
    let constant = |mutability: &str| {
        format!(
            "type t = A of {{ {mutability} v : int }} | B
let get = function A r -> r.v | B -> 0
let input n = n
let run n = let s = ref 0 in for _ = 1 to n do s := !s + get (A {{ v = 3 }}) done; !s"
        )
    };
    let words = |source: &str| {
        semantics::Program::from_source("c.ml", source)
            .unwrap()
            .count(4)
            .unwrap()
            .allocation
            .words
    };
    let immutable = constant("");
    let fresh = constant("mutable");
    assert_eq!(
        words(&fresh) - words(&immutable),
        4 * 2,
        "4 blocks of 2 words"
    );
    for source in [&immutable, &fresh] {
        common::assert_agrees_with_native("c.ml", source, &[4]);
        let (minor, major) = common::native_words(source, 4);
        assert_eq!(words(source), minor + major, "{source}");
    }
}

#[test]
fn queue_functions_are_inlined_or_called_as_ocamlopt_does() {
    let source = "let input n = (Queue.create (), n)
let run (q, n) =
  Queue.add n q;
  Queue.push 3 q;
  let a = Queue.take q in
  let b = Queue.peek q in
  a + b + Queue.length q + (if Queue.is_empty q then 1 else 0)";
    let asm = common::assembly("queued", source);
    // `push` is `add`: ocamlopt calls `add` directly through the alias.
    assert_eq!(asm.matches("call\tcamlStdlib__Queue__add").count(), 2);
    assert_eq!(asm.matches("call\tcamlStdlib__Queue__take").count(), 1);
    for inlined in ["peek", "length", "is_empty"] {
        assert!(
            !asm.contains(&format!("camlStdlib__Queue__{inlined}")),
            "{inlined}"
        );
    }
    let counts = count(source, 3);
    assert_eq!(counts.get("FunApp"), Some(&3), "{counts:?}");
    assert_eq!(
        counts.get("ApplyN"),
        None,
        "no call through a closure: {counts:?}"
    );
}

#[test]
fn inline_records_are_refused_where_ocaml_refuses_them_or_this_tool_does_not_follow() {
    let decl = "type t = A of { x : int; y : int } | B\n";
    // Their fields are not in the program's namespace: only a value known to be the record
    // reaches them.
    let e = refusal(&format!(
        "{decl}let input n = n\nlet run n = let f r = r.x in n"
    ));
    assert!(e.contains("unbound record field x"), "{e}");
    let e = refusal(&format!("{decl}let input n = n\nlet run n = A (n, n)"));
    assert!(e.contains("takes an inline record"), "{e}");
    let e = refusal(&format!("{decl}let input n = n\nlet run n = A {{ x = n }}"));
    assert!(e.contains("some record fields are undefined: y"), "{e}");
    let e = refusal("exception E of { code : int }\nlet input n = n\nlet run n = n");
    assert!(
        e.contains("unsupported: an exception with an inline record"),
        "{e}"
    );
    // Queue's phrases are taken by the `Queue.f` the program writes.
    let e = refusal("let input n = n\nlet run n = let open Queue in let q = create () in n");
    assert!(
        e.contains("opening `Queue`") && e.contains("qualified names"),
        "{e}"
    );
}
