(* Options, association lists and exceptions used for control. *)
let rec assoc x = function [] -> raise Not_found | (a, b) :: l -> if a = x then b else assoc x l

let find_opt x l = try Some (assoc x l) with Not_found -> None

let rec make i = if i = 0 then [] else (i, i * i) :: make (i - 1)

let input n = make n

let run l =
  let lookups = [ 1; 5; 0; 1000; -3; 17 ] in
  let rec go = function [] -> [] | k :: ks -> find_opt k l :: go ks in
  (go lookups, None, Some (Some 3), Some [ 1.5 ])
