(* mlcost-control
   description: List.sort compare (the Stdlib's merge sort, polymorphic comparison) of pseudo-random ints
   sizes: 100 400 1600 5000 12000 25000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) ((s lsr 8) mod 100000 :: acc)

let input n = randoms n 7 []

let run l = List.sort compare l
