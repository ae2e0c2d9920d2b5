(* mlcost-control
   description: List.assoc as the Stdlib writes it (compare a x = 0) with int-list keys (decimal digits), every key looked up
   sizes: 10 30 60 100 200 300
*)

let rec assoc x = function
  | [] -> raise Not_found
  | (a, b) :: l -> if compare a x = 0 then b else assoc x l

let digits i = [ i / 100; i / 10 mod 10; i mod 10 ]

let rec table i n acc = if i = n then acc else table (i + 1) n ((digits i, i) :: acc)

let rec keys i n acc = if i = n then acc else keys (i + 1) n (digits i :: acc)

let input n = (table 0 n [], keys 0 n [])

(* Keys that share their first digits with many others make the runtime walk further. *)
let rec lookup_all t ks acc = match ks with [] -> acc | k :: r -> lookup_all t r (acc + assoc k t)

let run (t, ks) = lookup_all t ks 0
