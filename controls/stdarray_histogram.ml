(* mlcost-control
   description: a 64-bucket histogram of an int array with Array.iter, read back with Array.to_list and List.fold_left (the Stdlib's own code)
   sizes: 100 1000 5000 20000 60000
*)

let input n = Array.init n (fun i -> (i * 7919 + 13) land 1023)

let run a =
  let buckets = Array.make 64 0 in
  Array.iter (fun x -> let b = x lsr 4 in buckets.(b) <- buckets.(b) + 1) a;
  List.fold_left (fun acc c -> (acc * 31) + c) 0 (Array.to_list buckets)
