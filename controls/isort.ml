(* mlcost-control
   description: insertion sort of a pseudo-random int list
   sizes: 30 50 100 200 400 700 1000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) ((s lsr 8) mod 10000 :: acc)

let input n = randoms n 42 []

(* [x - y <= 0] rather than [x <= y]: the subtraction tells ocamlopt that the elements are ints,
   so the test is one machine comparison and not a call to the polymorphic compare *)
let rec insert x l =
  match l with
  | [] -> [x]
  | y :: t -> if x - y <= 0 then x :: l else y :: insert x t

let rec isort l =
  match l with
  | [] -> []
  | x :: t -> insert x (isort t)

let run l = isort l
