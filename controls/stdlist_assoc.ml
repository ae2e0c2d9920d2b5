(* mlcost-control
   description: an association list built with List.combine and List.rev, looked up with List.assoc and List.mem_assoc for every fourth key
   sizes: 40 100 200 400 800 1500
*)

let rec range i n = if i >= n then [] else i :: range (i + 1) n

let input n = range 0 n

let rec lookups table keys acc =
  match keys with
  | [] -> acc
  | k :: rest ->
    let v = if List.mem_assoc k table then List.assoc k table else 0 in
    lookups table rest (acc + v)

let run keys =
  let table = List.combine keys (List.rev keys) in
  lookups table (List.filter (fun k -> k land 3 = 0) keys) 0
