(* mlcost-control
   description: look up n pseudo-random keys in a BST built from n keys (about a third are found; option)
   sizes: 100 500 2000 5000 10000 20000
*)

type tree = Leaf | Node of tree * int * tree

let next s = (s * 1103515245 + 12345) land 1073741823

(* n values scale * r with r pseudo-random in 0..range-1 *)
let rec randoms n s scale range acc =
  if n = 0 then acc
  else randoms (n - 1) (next s) scale range (scale * ((s lsr 8) mod range) :: acc)

let rec insert x t =
  match t with
  | Leaf -> Node (Leaf, x, Leaf)
  | Node (l, k, r) ->
    if x < k then Node (insert x l, k, r)
    else if x > k then Node (l, k, insert x r)
    else t

let rec build l t =
  match l with
  | [] -> t
  | x :: rest -> build rest (insert x t)

(* the tree holds even keys below 2n (about 63% of them), the queries are any keys below 2n *)
let input n = (build (randoms n 37 2 n []) Leaf, randoms n 41 1 (2 * n) [])

let rec find x t =
  match t with
  | Leaf -> None
  | Node (l, k, r) -> if x < k then find x l else if x > k then find x r else Some k

let rec count_found t qs acc =
  match qs with
  | [] -> acc
  | q :: rest ->
    (match find q t with
     | None -> count_found t rest acc
     | Some _ -> count_found t rest (acc + 1))

let run p = match p with (t, qs) -> count_found t qs 0
