(* mlcost-control
   description: fold_right that doubles every element into a new list
   sizes: 1000 4000 16000 40000 70000 95000
*)

let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)

let input n = range n []

let double_cons x acc = (2 * x) :: acc

let rec fold_right f l acc =
  match l with
  | [] -> acc
  | x :: t -> f x (fold_right f t acc)

let run l = fold_right double_cons l []
