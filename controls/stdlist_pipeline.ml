(* mlcost-control
   description: sum of the squares of the even elements with the Stdlib's List.filter, List.map and List.fold_left (read from the installed list.ml)
   sizes: 1000 4000 16000 40000 70000 100000
   pair: pipeline-own-vs-stdlib
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) ((s lsr 8) mod 10000 :: acc)

let input n = randoms n 19 []

let run l =
  List.fold_left ( + ) 0 (List.map (fun x -> x * x) (List.filter (fun x -> x land 1 = 0) l))
