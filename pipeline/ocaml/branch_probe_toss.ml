(* The branch probe's walk of coin tosses: an `if` on each of n pseudo-random booleans. Run
   after run on the same list, a processor predicts the tosses as far as its predictor
   remembers them, and misses half of the rest. *)

let rec tosses n seed acc =
  if n = 0 then acc
  else
    let seed = (seed * 1103515245 + 12345) land 0x3fffffff in
    tosses (n - 1) seed (((seed lsr 16) land 1 = 1) :: acc)

let input n = tosses n 42 []

let rec count l acc =
  match l with
  | [] -> acc
  | b :: t -> if b then count t (acc + 1) else count t (acc + 3)

let run l = count l 0
