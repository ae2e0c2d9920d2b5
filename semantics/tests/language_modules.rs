//! A program's own modules: `module M = struct … end` is compiled by ocamlopt into the unit's
//! own code, so a program written with modules counts exactly as the same code written at top
//! level; names resolve as OCaml scopes them; the native binary agrees on the result.

mod common;

use semantics::Program;

fn counts(source: &str, size: i64) -> semantics::CountResult {
    Program::from_source("t.ml", source)
        .unwrap_or_else(|e| panic!("{e}"))
        .count(size)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The digest of `run` for a program whose `run` ignores its input.
fn digest(source: &str) -> String {
    counts(source, 0).digest
}

const STACK_MODULE: &str = "
module Stack = struct
  type 'a t = { mutable items : 'a list; mutable size : int }
  exception Empty
  let create () = { items = []; size = 0 }
  let push s x = s.items <- x :: s.items; s.size <- s.size + 1
  let pop s = match s.items with
    | [] -> raise Empty
    | x :: rest -> s.items <- rest; s.size <- s.size - 1; x
  let rec drain s acc = if s.size = 0 then acc else drain s (acc + pop s)
end
let input n = List.init n (fun i -> i * 7 mod 13)
let run l =
  let s = Stack.create () in
  List.iter (Stack.push s) l;
  let total = Stack.drain s 0 in
  total + (try Stack.pop s with Stack.Empty -> -1)
";

const STACK_FLAT: &str = "
type 'a stack_t = { mutable items : 'a list; mutable size : int }
exception Stack_empty
let stack_create () = { items = []; size = 0 }
let stack_push s x = s.items <- x :: s.items; s.size <- s.size + 1
let stack_pop s = match s.items with
  | [] -> raise Stack_empty
  | x :: rest -> s.items <- rest; s.size <- s.size - 1; x
let rec stack_drain s acc = if s.size = 0 then acc else stack_drain s (acc + stack_pop s)
let input n = List.init n (fun i -> i * 7 mod 13)
let run l =
  let s = stack_create () in
  List.iter (stack_push s) l;
  let total = stack_drain s 0 in
  total + (try stack_pop s with Stack_empty -> -1)
";

#[test]
fn a_module_counts_as_the_same_code_written_at_top_level() {
    let flat = counts(STACK_FLAT, 500);
    assert!(flat.counts["FunApp"] >= 1000, "push and pop per element");
    let modular = counts(STACK_MODULE, 500);
    assert_eq!(modular.counts, flat.counts);
    assert_eq!(modular.digest, flat.digest);
    assert_eq!(modular.allocation.words, flat.allocation.words);
}

#[test]
fn values_resolve_as_ocaml_scopes_them() {
    // Inside `M`, `x` is the program's until `M` defines its own; outside, `x` is the
    // program's and `M.x` the module's; a `let` inside a function hides both.
    let source = "
let x = 1
module M = struct
  let y = x
  let x = 20
  let z = x + y
  let f x = x * 1000
  let rec count n = if n = 0 then 0 else 1 + count (n - 1)
end
let input _ = ()
let run () = (x, M.x, M.y, M.z, M.f 3, M.count 4)
";
    assert_eq!(
        digest(source),
        digest("let input _ = ()\nlet run () = (1, 20, 1, 21, 3000, 4)")
    );
}

#[test]
fn constructors_types_and_fields_resolve_as_ocaml_scopes_them() {
    // The module's `A` and `t` hide the program's inside it and after an `open`; outside they
    // are reached as `M.A`, `M.t`, `r.M.f`, `{ M.f = … }`.
    let source = "
type t = A | B
type r = { f : int }
module M = struct
  type t = A of int | C
  type r = { f : int; g : int }
  let get (v : t) = match v with A n -> n | C -> 0
  let make n = { f = n; g = 2 * n }
end
let input _ = ()
let outer (v : t) = match v with A -> 1 | B -> 2
let run () =
  let m : M.r = M.make 5 in
  let plain = { f = 7 } in
  let built = { M.f = 1; g = 4 } in
  let via_open = let open M in get (A 9) in
  (outer A, M.get (M.A 3), M.get M.C, m.M.f + m.M.g, plain.f, built.M.g, via_open, M.(get C))
";
    assert_eq!(
        digest(source),
        digest("let input _ = ()\nlet run () = (1, 3, 0, 15, 7, 4, 9, 0)")
    );
}

#[test]
fn nested_modules_aliases_signatures_and_opens() {
    let source = "
module type COUNTER = sig
  type t
  type u
  val zero : t
end
module Geometry : sig
  module Units : sig
    val scale : int
    val apply : int -> int
  end
  val area : int -> int -> int
end = struct
  module Units = struct
    let scale = 10
    let apply x = x * scale
  end
  let area w h = Units.apply w * h
end
module IntOrd : COUNTER with type t = int and type u := bool = struct
  type t = int
  let zero = 0
end
module G = Geometry
module L = List
open Geometry
let input n = L.init n (fun i -> i)
let run l =
  let a = L.fold_left (fun acc x -> acc + area x 2) 0 l in
  let b = G.area 3 4 in
  let c = Geometry.Units.apply 5 + Geometry.Units.scale in
  (a, b, c, Units.apply IntOrd.zero)
";
    let expected = "
let input n = List.init n (fun i -> i)
let run l = (List.fold_left (fun acc x -> acc + x * 10 * 2) 0 l, 120, 60, 0)
";
    for size in [0, 10] {
        assert_eq!(counts(source, size).digest, counts(expected, size).digest);
    }
}

#[test]
fn mutually_recursive_types_in_a_module() {
    let source = "
module Tree = struct
  type tree = Leaf | Node of forest
  and forest = tree list
  let rec size t = match t with Leaf -> 1 | Node f -> 1 + forest_size f
  and forest_size f = match f with [] -> 0 | t :: rest -> size t + forest_size rest
end
let input n = Tree.Node (List.init n (fun _ -> Tree.Node [Tree.Leaf; Tree.Leaf]))
let run t = Tree.size t
";
    assert_eq!(
        counts(source, 4).digest,
        digest("let input _ = ()\nlet run () = 13")
    );
}

#[test]
fn modules_agree_with_the_native_binary() {
    let source = format!(
        "{STACK_MODULE}
module Stats = struct
  type summary = {{ lo : int; hi : int; total : int }}
  let empty = {{ lo = max_int; hi = min_int; total = 0 }}
  let add s x = {{ lo = min s.lo x; hi = max s.hi x; total = s.total + x }}
  module Show = struct
    let pad n = String.make (1 + abs n mod 5) 'x'
    let width s = String.length (pad s.total)
  end
end
let run l =
  let s = List.fold_left Stats.add Stats.empty l in
  (run l, s.Stats.total, Stats.Show.width s, Stats.(s.hi - s.lo))
"
    );
    common::assert_agrees_with_native("modules.ml", &source, &[0, 1, 7, 100, 1000]);
}

#[test]
fn what_modules_the_subset_lacks_is_refused_with_its_position() {
    let cases = [
        (
            "module F (X : sig end) = struct end\nlet input n = n\nlet run n = n",
            "1:10",
            "functors",
        ),
        (
            "module List = struct let x = 1 end\nlet input n = n\nlet run n = n",
            "1:8",
            "hide the Stdlib's",
        ),
        (
            "module rec M = struct end\nlet input n = n\nlet run n = n",
            "1:1",
            "recursive modules",
        ),
        (
            "let input n = n\nlet run n = Hashtbl.hash n",
            "2:13",
            "module `Hashtbl`",
        ),
        (
            "module M = struct type t = A end\nlet input n = n\nlet run n = M.B",
            "3:15",
            "module `M` has no constructor `B`",
        ),
        (
            "module M = struct let x = 1 end\nlet input n = n\nlet run n = M.y + n",
            "3:13",
            "M.y",
        ),
        (
            "module type S = sig module N : sig end end\nmodule M : S with module N = List = struct module N = List end\nlet input n = n\nlet run n = n",
            "2:19",
            "`with module` constraints",
        ),
    ];
    for (source, pos, message) in cases {
        let error = common::refusal(source);
        assert!(
            error.contains(&format!("bad.ml:{pos}")) && error.contains(message),
            "{source}: {error}"
        );
    }
}

/// `let module`: the structure's items are `let`s around the body, and Translmod's block of
/// its values (one field a value, one a module declared in it) is allocated before the body.
const LOCAL_MODULES: &str = "
let input n = List.init n (fun i -> (i * 37) mod 101)
let run l =
  let module Acc = struct
    let scale = List.length l
    let add acc x = acc + x * scale
    let rec sum acc = function [] -> acc | x :: t -> sum (add acc x) t
  end in
  let module Steps = struct
    module Fold = struct
      let rec go f acc = function [] -> acc | x :: t -> go f (f acc x) t
    end
    let total l = Fold.go (fun a x -> a + x land 7) 0 l
  end in
  let module One = struct let rec count i acc = if i = 0 then acc else count (i - 1) (acc + i land 3) end in
  let module L = List in
  Acc.sum 0 l + Steps.total l + One.count (L.length l) 0
";

#[test]
fn a_local_module_counts_as_its_lets_and_its_block() {
    let written_as_lets = "
let input n = List.init n (fun i -> (i * 37) mod 101)
let run l =
  let scale = List.length l in
  let add acc x = acc + x * scale in
  let rec sum acc = function [] -> acc | x :: t -> sum (add acc x) t in
  let _acc = (scale, add, sum) in
  sum 0 l
";
    let local = "
let input n = List.init n (fun i -> (i * 37) mod 101)
let run l =
  let module Acc = struct
    let scale = List.length l
    let add acc x = acc + x * scale
    let rec sum acc = function [] -> acc | x :: t -> sum (add acc x) t
  end in
  Acc.sum 0 l
";
    let expected = counts(written_as_lets, 200);
    let got = counts(local, 200);
    assert_eq!(got.counts, expected.counts);
    assert_eq!(got.digest, expected.digest);
    // By hand: the block of 3 values (4 words), and the closures of `add` (capturing `scale`)
    // and `sum` (capturing `add`), each of arity 2: header, `caml_curry2`, the arity word, the
    // code pointer and the captured value, 5 words.
    assert_eq!(got.allocation.words, 4 + 5 + 5);
    assert_eq!(
        got.allocation.words,
        common::native_words(local, 200).0,
        "the native run allocates the same words"
    );
}

#[test]
fn local_modules_agree_with_the_native_binary() {
    common::assert_agrees_with_native("local_modules.ml", LOCAL_MODULES, &[0, 1, 7, 100, 1000]);
    for size in [0, 5, 300] {
        assert_eq!(
            counts(LOCAL_MODULES, size as i64).allocation.words,
            common::native_words(LOCAL_MODULES, size).0,
            "words at size {size}"
        );
    }
}

#[test]
fn a_local_module_is_visible_in_its_body_only() {
    let outside =
        "let input n = n\nlet run n = (let module M = struct let f x = x + 1 end in M.f n) + M.f 1";
    let error = common::refusal(outside);
    assert!(
        error.contains("bad.ml:2:68") && error.contains("module `M`"),
        "{error}"
    );
    // An inner `M` hides the top-level one in its body, and only there.
    let shadowing = "module M = struct let f x = x * 3 end\nlet input n = n\nlet run n = let a = M.f n in let b = (let module M = struct let f x = x + 1 end in M.f n) in a + b + M.f 1";
    let program = Program::from_source("t.ml", shadowing).unwrap();
    let direct =
        Program::from_source("t.ml", "let input n = n\nlet run n = n * 3 + (n + 1) + 3").unwrap();
    assert_eq!(
        program.count(5).unwrap().digest,
        direct.count(5).unwrap().digest
    );
    for (source, pos, message) in [
        (
            "let input n = n\nlet run n = let module M = struct type t = A end in n",
            "2:13",
            "a type or an exception declared in a local module",
        ),
        (
            "let input n = n\nlet run n = let exception E in n",
            "2:13",
            "local exceptions",
        ),
        (
            "let input n = n\nlet run n = let module rec M = struct end in n",
            "2:13",
            "recursive modules",
        ),
    ] {
        let error = common::refusal(source);
        assert!(
            error.contains(&format!("bad.ml:{pos}")) && error.contains(message),
            "{source}: {error}"
        );
    }
}
