(* mlcost-control
   description: linear Fibonacci mod 2^30 that returns a pair per level (one tuple per call)
   sizes: 300 1000 10000 40000 70000 100000 150000
*)

let input n = n

let rec fib_pair n =
  if n = 0 then (0, 1)
  else
    match fib_pair (n - 1) with
    | (a, b) -> (b, (a + b) land 1073741823)

let run n = fib_pair n
