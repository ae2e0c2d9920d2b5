(* mlcost-control
   description: build a binary search tree by inserting n pseudo-random keys (path copying)
   sizes: 50 200 500 1000 2000 4000 8000
*)

type tree = Leaf | Node of tree * int * tree

let next s = (s * 1103515245 + 12345) land 1073741823

let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) ((s lsr 8) mod 1000000 :: acc)

let input n = randoms n 29 []

let rec insert x t =
  match t with
  | Leaf -> Node (Leaf, x, Leaf)
  | Node (l, k, r) when x < k -> Node (insert x l, k, r)
  | Node (l, k, r) when x > k -> Node (l, k, insert x r)
  | Node _ -> t

let rec build l t =
  match l with
  | [] -> t
  | x :: rest -> build rest (insert x t)

let run l = build l Leaf
