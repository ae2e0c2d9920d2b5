(* mlcost-control
   description: total number of Collatz steps for the start values 1..n
   sizes: 30 100 300 1000 2000 4000
*)

let input n = n

let rec steps x =
  if x = 1 then 0
  else if x mod 2 = 0 then 1 + steps (x / 2)
  else 1 + steps (3 * x + 1)

let rec total i acc = if i = 0 then acc else total (i - 1) (acc + steps i)

let run n = total n 0
