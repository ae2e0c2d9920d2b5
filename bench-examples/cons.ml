(* Allocation: one cons (3 words) per iteration. *)
let rec build n = if n = 0 then [] else n :: build (n - 1)
let input n = n
let run n = build n
