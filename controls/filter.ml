(* mlcost-control
   description: filter out the multiples of k from a pseudo-random int list (closure over k)
   sizes: 1000 4000 16000 50000 80000 120000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) ((s lsr 8) mod 10000 :: acc)

(* about four elements in five pass *)
let input n = (5, randoms n 7 [])

let rec filter p l =
  match l with
  | [] -> []
  | x :: t -> if p x then x :: filter p t else filter p t

let run q = match q with (k, l) -> filter (fun x -> x mod k <> 0) l
