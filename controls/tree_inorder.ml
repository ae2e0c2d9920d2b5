(* mlcost-control
   description: in-order list of the keys of a balanced binary tree of n nodes (accumulator)
   sizes: 1000 4000 16000 40000 70000 100000
*)

type tree = Leaf | Node of tree * int * tree

let rec balanced lo hi =
  if lo > hi then Leaf
  else
    let mid = (lo + hi) / 2 in
    Node (balanced lo (mid - 1), mid, balanced (mid + 1) hi)

let input n = balanced 1 n

let rec inorder t acc =
  match t with
  | Leaf -> acc
  | Node (l, k, r) -> inorder l (k :: inorder r acc)

let run t = inorder t []
