(* mlcost-control
   description: map a pseudo-random int list to bools (positive -> true), as in the paper
   sizes: 1000 4000 16000 40000 70000 100000
*)

(* Linear congruential generator modulo 2^30; the high bits feed the values. *)
let next s = (s * 1103515245 + 12345) land 1073741823

let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) (((s lsr 8) mod 10000 - 5000) :: acc)

let input n = randoms n 42 []

let positive x = x > 0

let rec map f l =
  match l with
  | [] -> []
  | x :: t -> f x :: map f t

let run l = map positive l
