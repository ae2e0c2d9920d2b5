(* mlcost-control
   description: length of an int list with an accumulator (tail-recursive, no allocation)
   sizes: 1000 4000 16000 64000 256000 600000
*)

let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)

let input n = range n []

let rec length_aux acc = function
  | [] -> acc
  | _ :: t -> length_aux (acc + 1) t

let run l = length_aux 0 l
