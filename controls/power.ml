(* mlcost-control
   description: modular exponentiation by squaring, n exponents around 2^20
   sizes: 8 16 32 128 512 1500
*)

let input n = (n, 1000000007)

(* b^e mod m for b < m < 2^31: every product stays below 2^62 *)
let rec power b e m =
  if e = 0 then 1
  else
    let h = power (b * b mod m) (e / 2) m in
    if e mod 2 = 0 then h else b * h mod m

let rec sum_powers i n m acc =
  if i > n then acc
  else sum_powers (i + 1) n m ((acc + power (i + 1) (1048576 + i) m) mod m)

let run p = match p with (n, m) -> sum_powers 1 n m 0
