(* mlcost-control
   description: merge sort of a pseudo-random int list (alternating split, recursive merge)
   sizes: 100 400 1600 3000 4000 8000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) ((s lsr 8) mod 100000 :: acc)

let input n = randoms n 23 []

(* deal the elements alternately onto two piles *)
let rec split l a b =
  match l with
  | [] -> (a, b)
  | x :: t -> split t b (x :: a)

(* [x - y <= 0] rather than [x <= y]: ints for ocamlopt, no polymorphic compare *)
let rec merge l1 l2 =
  match l1 with
  | [] -> l2
  | x :: t1 ->
    begin match l2 with
      | [] -> l1
      | y :: t2 -> if x - y <= 0 then x :: merge t1 l2 else y :: merge l1 t2
    end

let rec msort l =
  match l with
  | [] | [_] -> l
  | _ -> (match split l [] [] with (a, b) -> merge (msort a) (msort b))

let run l = msort l
