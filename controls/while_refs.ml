(* mlcost-control
   description: total stopping time of the Collatz sequences of 1..n, with while loops over local refs
   sizes: 10 100 1000 5000 20000
*)

let input n = n

let run n =
  let total = ref 0 in
  let k = ref 1 in
  while !k <= n do
    let x = ref !k in
    while !x <> 1 do
      if !x land 1 = 0 then x := !x lsr 1 else x := 3 * !x + 1;
      incr total
    done;
    incr k
  done;
  !total
