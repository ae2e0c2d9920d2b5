(* mlcost-control
   description: looks keys up in an association list with List.assoc_opt and reads the answers with Option.map / Option.value, through a helper with a labelled and an optional argument, the Stdlib opened locally
   sizes: 100 1000 5000 20000 50000
*)

let table = List.init 16 (fun k -> (k * 3, k * k))

let input n = List.init n (fun i -> (i * 7) mod 50)

let lookup ?(scale = 1) ~default key =
  Option.value ~default (Option.map (fun v -> v * scale) (List.assoc_opt key table))

let run keys =
  let open List in
  fold_left
    (fun acc key ->
      let plain = lookup ~default:0 key in
      let scaled = lookup ~scale:2 ~default:(-1) key in
      acc + plain + scaled)
    0 keys
