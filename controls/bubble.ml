(* mlcost-control
   description: bubble sort of a pseudo-random int list (passes until sorted)
   sizes: 20 50 100 200 300 400
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) ((s lsr 8) mod 10000 :: acc)

let input n = randoms n 3 []

(* [x - y <= 0] rather than [x <= y]: ints for ocamlopt, no polymorphic compare *)
let rec sorted l =
  match l with
  | [] | [_] -> true
  | x :: (y :: _ as rest) -> if x - y <= 0 then sorted rest else false

(* one pass: the larger of each adjacent pair moves right *)
let rec pass l =
  match l with
  | x :: (y :: t as rest) ->
    if x - y <= 0 then x :: pass rest else y :: pass (x :: t)
  | _ -> l

let rec bsort l = if sorted l then l else bsort (pass l)

let run l = bsort l
