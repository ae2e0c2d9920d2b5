(* mlcost-control
   description: sum of an int list with fold_left and a two-argument function
   sizes: 1000 4000 16000 64000 256000 512000
*)

let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)

let input n = range n []

let add acc x = acc + x

let rec fold_left f acc l =
  match l with
  | [] -> acc
  | x :: t -> fold_left f (f acc x) t

let run l = fold_left add 0 l
