(* The order native code evaluates operands in, seen through effects: a tuple or a call's
   arguments right to left, a matched tuple's components left to right (each is a `let` in
   ocamlopt's Lambda). *)
let log = ref []

let[@inline never] f x =
  log := x :: !log;
  x

let input n = n

let run n =
  log := [];
  let built = (f n, f (n + 1)) in
  let matched = match (f (n + 2), f (n + 3)) with (a, b) -> a - b in
  (fst built + snd built + matched, !log)
