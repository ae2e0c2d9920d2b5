(* The branch probe's reference walk: the same `if` over as many booleans, alternating, which
   any predictor learns from the last outcome. The walk of tosses costs more only by its
   misses. *)

let rec alternate n acc = if n = 0 then acc else alternate (n - 1) ((n land 1 = 1) :: acc)

let input n = alternate n []

let rec count l acc =
  match l with
  | [] -> acc
  | b :: t -> if b then count t (acc + 1) else count t (acc + 3)

let run l = count l 0
