(* mlcost-control
   description: size and sum of the keys of a balanced binary tree of n nodes (variant type)
   sizes: 1000 4000 16000 64000 128000 200000
*)

type tree = Leaf | Node of tree * int * tree

(* a balanced tree with the keys lo..hi *)
let rec balanced lo hi =
  if lo > hi then Leaf
  else
    let mid = (lo + hi) / 2 in
    Node (balanced lo (mid - 1), mid, balanced (mid + 1) hi)

let input n = balanced 1 n

let rec size t =
  match t with
  | Leaf -> 0
  | Node (l, _, r) -> size l + 1 + size r

let rec sum t =
  match t with
  | Leaf -> 0
  | Node (l, k, r) -> sum l + k + sum r

let run t = (size t, sum t)
