(* mlcost-control
   description: List.mem as the Stdlib writes it (compare a x = 0) of n pairs, half absent, in a list of n pairs
   sizes: 10 30 60 100 200 300
*)

let rec mem x = function [] -> false | a :: l -> compare a x = 0 || mem x l

let rec pairs i n acc = if i = n then acc else pairs (i + 1) n ((i, 3 * i) :: acc)

let input n = (n, pairs 0 n [])

(* (k, 3k) is in the list for even k; (k, 3k + 1) is not, and scans the whole list *)
let rec count k n l acc =
  if k = n then acc else count (k + 1) n l (if mem (k, (3 * k) + (k mod 2)) l then acc + 1 else acc)

let run (n, l) = count 0 n l 0
