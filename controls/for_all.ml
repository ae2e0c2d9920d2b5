(* mlcost-control
   description: for_all x in the list, x lsr bits = 0 (closure over bits; every element passes)
   sizes: 1000 4000 16000 64000 200000 400000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) ((s lsr 8) mod 10000 :: acc)

(* all values are below 2^14 *)
let input n = (14, randoms n 9 [])

let rec for_all p l =
  match l with
  | [] -> true
  | x :: t -> p x && for_all p t

let run q = match q with (bits, l) -> for_all (fun x -> x lsr bits = 0) l
