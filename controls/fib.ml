(* mlcost-control
   description: naive doubly recursive Fibonacci of n
   sizes: 13 15 17 19 21 23 25
*)

let input n = n

let rec fib n = if n < 2 then n else fib (n - 1) + fib (n - 2)

let run n = fib n
