(* mlcost-control
   description: exists x in the list with x * x = target (closure over target; the only match is last)
   sizes: 1000 4000 16000 64000 200000 400000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

(* values in 0..9999, then 10000 last: the only x with x * x = 100000000 *)
let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) ((s lsr 8) mod 10000 :: acc)

let rec rev_append l acc =
  match l with
  | [] -> acc
  | x :: t -> rev_append t (x :: acc)

let input n = (100000000, rev_append (randoms (n - 1) 5 []) [10000])

let rec exists p l =
  match l with
  | [] -> false
  | x :: t -> p x || exists p t

let run q = match q with (target, l) -> exists (fun x -> x * x = target) l
