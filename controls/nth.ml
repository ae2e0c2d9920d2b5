(* mlcost-control
   description: sum of nth for 16 indices spread over an int list
   sizes: 200 1000 4000 16000 50000 100000
*)

exception Too_short
exception Negative_index

let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)

(* indices n-1, n-1-step, ..., 16 of them, all within the list *)
let rec indices k i step acc =
  if k = 0 then acc else indices (k - 1) (i - step) step (i :: acc)

let input n = (range n [], indices 16 (n - 1) (n / 16) [])

let rec nth_aux l i =
  match l with
  | [] -> raise Too_short
  | x :: t -> if i = 0 then x else nth_aux t (i - 1)

let nth l i = if i < 0 then raise Negative_index else nth_aux l i

let rec sum_nth l qs acc =
  match qs with
  | [] -> acc
  | i :: rest -> sum_nth l rest (acc + nth l i)

let run p = match p with (l, qs) -> sum_nth l qs 0
