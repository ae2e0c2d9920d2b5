(* Integer addition: four additions per iteration of a non-tail recursion. *)
let rec fintadd x = if x = 0 then 0 else x + x + x + x + fintadd (x - 1)
let input n = n
let run n = fintadd n
