(* mlcost-control
   description: iterate n times a function built by composing two partial applications
   sizes: 200 1000 10000 50000 100000 300000
*)

let input n = n

let compose f g x = f (g x)

let add k x = (x + k) land 1048575

let mul k x = (x * k) land 1048575

let rec iterate f n x = if n = 0 then x else iterate f (n - 1) (f x)

let run n = iterate (compose (add 7) (mul 3)) n 1
