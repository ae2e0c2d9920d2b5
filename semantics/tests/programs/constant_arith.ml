(* Division, remainder and multiplication by constants, which ocamlopt compiles to shifts and
   reciprocal multiplies: the interpreter must compute what they compute, at negative
   dividends and at the extremes too. *)
let k = 10

let rec digits x acc = if x = 0 then acc else digits (x / k) (acc + (x mod 10))

let rec sweep i n acc =
  if i > n then acc
  else
    let x = (i * 7919) - (n * 31) in
    sweep (i + 1) n
      (acc + (x / 2) + (x / -4) + (x / 10) + (x / -7) + (x mod 2) + (x mod -8) + (x mod 10)
     + (x mod -3) + (x * 5) + (x * -3) + (x * 8))

let input n = n

let run n =
  ( digits (n * 1234567) 0,
    sweep (-n) n 0,
    (max_int / 2, min_int / 2, min_int / -1, max_int / 3, min_int mod 7),
    (max_int * 4, min_int * -1, n / 1, n * 0, n mod -1, n / -1) )
