(* mlcost-control
   description: factorial, non-tail-recursive (the product wraps around; 0 for n >= 63)
   sizes: 1000 2000 5000 10000 20000 50000 100000
   pair: fact-vs-tailfact
*)

let input n = n

let rec fact n = if n = 0 then 1 else n * fact (n - 1)

let run n = fact n
