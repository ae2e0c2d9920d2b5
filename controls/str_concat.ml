(* mlcost-control
   description: joins n short words with ^ and a separator, building the string from the right so that each ^ copies the growing tail
   sizes: 10 30 100 300 1000 2000
*)

let rec words k acc = if k = 0 then acc else words (k - 1) (String.make (1 + k mod 7) (Char.chr (97 + k mod 26)) :: acc)

let input n = words n []

let rec join = function
  | [] -> ""
  | [ w ] -> w
  | w :: rest -> w ^ "," ^ join rest

let run l = join l
