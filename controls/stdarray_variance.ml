(* mlcost-control
   description: mean and variance of a float array made by Array.init, with Array.fold_left and Array.map (the Stdlib's array.ml: generic accesses, each double read boxed)
   sizes: 100 1000 5000 20000 60000
*)

let input n = Array.init n (fun i -> float_of_int ((i * 7919) land 1023))

let run a =
  let n = float_of_int (Array.length a) in
  let mean = Array.fold_left ( +. ) 0. a /. n in
  let squares = Array.map (fun x -> (x -. mean) *. (x -. mean)) a in
  (mean, Array.fold_left ( +. ) 0. squares /. n)
