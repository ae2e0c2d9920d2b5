(* mlcost-control
   description: smallest and largest element of an int list, pairs built with fst and snd
   sizes: 1000 4000 16000 50000 100000 200000 300000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) ((s lsr 8) mod 1000000 :: acc)

let input n = randoms n 13 []

(* [x - y < 0] rather than [x < y]: ints for ocamlopt, no polymorphic compare *)
let rec minmax l acc =
  match l with
  | [] -> acc
  | x :: t ->
    let lo = fst acc in
    let hi = snd acc in
    if x - lo < 0 then minmax t (x, hi)
    else if hi - x < 0 then minmax t (lo, x)
    else minmax t acc

let run l =
  match l with
  | [] -> (0, 0)
  | x :: t -> minmax t (x, x)
