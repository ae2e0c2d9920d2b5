(* The paper's factorial (§2), in benchmark shape. *)
let rec fact n = if n = 0 then 1 else n * fact (n - 1)

let input n = n mod 30
let run n = fact n
