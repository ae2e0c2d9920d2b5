(* mlcost-control
   description: prefix sums of an int array into a new array with a for loop
   sizes: 100 1000 10000 100000 300000
*)

let input n =
  let a = Array.make n 0 in
  for i = 0 to n - 1 do a.(i) <- (i * 7919) land 1023 done;
  a

let run (a : int array) =
  let n = Array.length a in
  let p = Array.make (n + 1) 0 in
  for i = 0 to n - 1 do
    p.(i + 1) <- p.(i) + a.(i)
  done;
  p
