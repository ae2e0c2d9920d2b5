(* A polymorphic binary search tree with user variants. *)
type 'a tree = Leaf | Node of 'a tree * 'a * 'a tree

let rec insert x = function
  | Leaf -> Node (Leaf, x, Leaf)
  | Node (l, v, r) as t ->
      if x < v then Node (insert x l, v, r) else if x > v then Node (l, v, insert x r) else t

let rec to_list acc = function Leaf -> acc | Node (l, v, r) -> to_list (v :: to_list acc r) l

let rec build i n seed acc =
  if i = n then acc else build (i + 1) n ((seed * 1103515245 + 12345) land 0xffff) (insert seed acc)

let input n = build 0 n 42 Leaf
let run t = (to_list [] t, t, insert 7 Leaf)
