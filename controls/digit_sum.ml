(* mlcost-control
   description: sum of the decimal digits of i * 12345 for i = 0..n-1 (x mod 10, x / 10)
   sizes: 40 200 1000 5000 20000 50000
*)

let rec digit_sum x = if x < 10 then x else (x mod 10) + digit_sum (x / 10)

let rec total i n acc = if i = n then acc else total (i + 1) n (acc + digit_sum (i * 12345))

let input n = n

let run n = total 0 n 0
