(* Function application: five calls per iteration, four of them to a function the compiler
   must not inline. *)
let[@inline never] id n = n
let rec fapp x = if x = 0 then 0 else fapp (id (id (id (id (x - 1)))))
let input n = n
let run n = fapp n
