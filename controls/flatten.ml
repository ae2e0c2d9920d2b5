(* mlcost-control
   description: flatten a list of int lists of lengths 1..15 (n elements in all)
   sizes: 1000 4000 16000 40000 70000 100000
*)

let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)

(* chunks of length 1, 2, ..., 15, 1, 2, ... until n elements are used *)
let rec chunks n k acc =
  if n = 0 then acc
  else if k > n then range n [] :: acc
  else chunks (n - k) (if k = 15 then 1 else k + 1) (range k [] :: acc)

let input n = chunks n 1 []

let rec append l1 l2 =
  match l1 with
  | [] -> l2
  | x :: t -> x :: append t l2

let rec flatten ll =
  match ll with
  | [] -> []
  | l :: rest -> append l (flatten rest)

let run ll = flatten ll
