(* mlcost-control
   description: number of one bits of i * 7919 for i = 0..n-1, by halving (n mod 2, n / 2)
   sizes: 40 200 1000 5000 20000 50000
*)

let rec popcount x = if x = 0 then 0 else (x mod 2) + popcount (x / 2)

let rec total i n acc = if i = n then acc else total (i + 1) n (acc + popcount (i * 7919))

let input n = n

let run n = total 0 n 0
