(* mlcost-control
   description: quicksort of a pseudo-random int list (first element as pivot, append)
   sizes: 100 400 1600 4000 8000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) ((s lsr 8) mod 100000 :: acc)

let input n = randoms n 17 []

let rec append l1 l2 =
  match l1 with
  | [] -> l2
  | x :: t -> x :: append t l2

(* [x - p < 0] rather than [x < p]: ints for ocamlopt, no polymorphic compare *)
let rec partition p l lo hi =
  match l with
  | [] -> (lo, hi)
  | x :: t ->
    if x - p < 0 then partition p t (x :: lo) hi else partition p t lo (x :: hi)

let rec qsort l =
  match l with
  | [] -> []
  | p :: t ->
    (match partition p t [] [] with
     | (lo, hi) -> append (qsort lo) (p :: qsort hi))

let run l = qsort l
