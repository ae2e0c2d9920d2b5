(* mlcost-control
   description: Fibonacci numbers modulo a prime by pair iteration and by fast doubling on pairs, for every k up to n
   sizes: 10 100 1000
*)

let p = 1000000007

let rec fib_iter k (a, b) = if k = 0 then (a, b) else fib_iter (k - 1) (b, (a + b) mod p)

let rec fib_double k =
  if k = 0 then (0, 1)
  else
    let (a, b) = fib_double (k / 2) in
    let c = a * ((2 * b - a + p) mod p) mod p in
    let d = (a * a + b * b) mod p in
    if k land 1 = 0 then (c, d) else (d, (c + d) mod p)

let input n = n

let run n =
  let rec loop k (agree, acc) =
    if k > n then (agree, acc)
    else
      let (f1, _) = fib_iter (k mod 97) (0, 1) in
      let (f2, _) = fib_double (k mod 97) in
      let (g, _) = fib_double (k * 1000 + 7) in
      loop (k + 1) ((if f1 = f2 then agree + 1 else agree), (acc + g) mod p)
  in
  loop 0 (0, 0)
