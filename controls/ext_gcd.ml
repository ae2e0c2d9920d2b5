(* mlcost-control
   description: extended Euclid on triples for n pseudo-random pairs, computing modular inverses and checking Bezout identities
   sizes: 20 200 3000
*)

let rec ext_gcd a b =
  if b = 0 then (a, 1, 0)
  else
    let (g, x, y) = ext_gcd b (a mod b) in
    (g, y, x - (a / b) * y)

let mod_inverse a m =
  match ext_gcd a m with
  | (1, x, _) -> Some (((x mod m) + m) mod m)
  | _ -> None

let input n =
  let s = ref 123 in
  Array.init n (fun _ ->
    s := (!s * 1103515245 + 12345) land 0x3FFFFFFF;
    let a = 1 + (!s lsr 4) mod 1000000 in
    s := (!s * 1103515245 + 12345) land 0x3FFFFFFF;
    let b = 1 + (!s lsr 4) mod 1000000 in
    (a, b))

let run pairs =
  Array.fold_left
    (fun (ok, inv_sum, coprime) (a, b) ->
      let (g, x, y) = ext_gcd a b in
      let ok = if a * x + b * y = g then ok + 1 else ok in
      match mod_inverse a b with
      | Some i -> (ok, (inv_sum + i) land 0xFFFFFFF, coprime + 1)
      | None -> (ok, inv_sum, coprime))
    (0, 0, 0) pairs
