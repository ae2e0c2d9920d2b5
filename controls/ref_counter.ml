(* mlcost-control
   description: counting multiples of 3 or 5 below n in a reference that escapes into a helper
   sizes: 100 1000 10000 100000 1000000
*)

let[@inline never] count_if (c : int ref) b = if b then incr c

let input n = n

let run n =
  let c = ref 0 in
  let i = ref 0 in
  while !i < n do
    count_if c (!i mod 3 = 0 || !i mod 5 = 0);
    incr i
  done;
  !c
