(* mlcost-control
   description: for each start 1..n, Collatz steps to reach 1 (recursive, tail) and total set bits along the way via land/lsr
   sizes: 30 300 1500
*)

let rec popcount x acc = if x = 0 then acc else popcount (x lsr 1) (acc + (x land 1))

let rec collatz x steps bits =
  if x = 1 then (steps, bits)
  else
    let next = if x land 1 = 0 then x lsr 1 else 3 * x + 1 in
    collatz next (steps + 1) (bits + popcount x 0)

let input n = n

let run n =
  let best = ref 0 and best_at = ref 0 and total_bits = ref 0 in
  for i = 1 to n do
    let (s, b) = collatz i 0 0 in
    if s > !best then begin best := s; best_at := i end;
    total_bits := !total_bits + b
  done;
  (!best, !best_at, !total_bits)
