(* mlcost-control
   description: primality by trial division with mod, using an exception to stop at the first divisor; counts primes below n and finds the first prime gap of at least 20
   sizes: 250 2000 15000
*)

exception Divisible of int

let is_prime n =
  if n < 2 then false
  else
    try
      let d = ref 2 in
      while !d * !d <= n do
        if n mod !d = 0 then raise (Divisible !d);
        incr d
      done;
      true
    with Divisible _ -> false

let input n = n

let run n =
  let count = ref 0 in
  let last = ref 2 in
  let gap_at = ref (-1) in
  for k = 2 to n - 1 do
    if is_prime k then begin
      incr count;
      if !gap_at < 0 && k - !last >= 20 then gap_at := !last;
      last := k
    end
  done;
  (!count, !gap_at)
