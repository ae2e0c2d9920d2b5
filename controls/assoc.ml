(* mlcost-control
   description: look up every key 0..n-1 in a shuffled association list of n pairs
   sizes: 40 100 200 400 800 1200
*)

exception Missing

(* keys (i * 7919) mod n for i = 0..n-1: a permutation of 0..n-1 while n < 7919 *)
let rec table i n acc =
  if i = n then acc
  else
    let k = (i * 7919) mod n in
    table (i + 1) n ((k, 3 * k + 1) :: acc)

let input n = (n, table 0 n [])

(* One recursive group: lookup_all fixes the key type to int, so the key test in assoc is an
   int comparison, not a call to the polymorphic compare. *)
let rec lookup_all k n l acc =
  if k = n then acc else lookup_all (k + 1) n l (acc + assoc k l)

and assoc k l =
  match l with
  | [] -> raise Missing
  | (key, v) :: t -> if key = k then v else assoc k t

let run p = match p with (n, l) -> lookup_all 0 n l 0
