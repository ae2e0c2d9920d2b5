(* mlcost-control
   description: list reversal with an accumulator (tail-recursive rev_append)
   sizes: 1000 4000 16000 40000 70000 100000 130000
*)

let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)

let input n = range n []

let rec rev_append l acc =
  match l with
  | [] -> acc
  | x :: t -> rev_append t (x :: acc)

let run l = rev_append l []
