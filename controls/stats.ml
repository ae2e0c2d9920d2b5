(* mlcost-control
   description: count, sum and sum of squares of an int list in a triple accumulator
   sizes: 1000 4000 16000 50000 100000 200000 300000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) ((s lsr 8) mod 10000 :: acc)

let input n = randoms n 31 []

let rec stats l acc =
  match l with
  | [] -> acc
  | x :: t -> (match acc with (c, s, q) -> stats t (c + 1, s + x, q + x * x))

let run l = stats l (0, 0, 0)
