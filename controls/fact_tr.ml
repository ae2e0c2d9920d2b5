(* mlcost-control
   description: factorial, tail-recursive with an accumulator (the product wraps around)
   sizes: 1000 2000 5000 10000 20000 50000 100000
   pair: fact-vs-tailfact
*)

let input n = n

let rec fact_acc n acc = if n = 0 then acc else fact_acc (n - 1) (n * acc)

let run n = fact_acc n 1
