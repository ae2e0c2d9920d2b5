(* mlcost-control
   description: split a list of pairs into a pair of lists (non-tail-recursive, like List.split)
   sizes: 500 2000 8000 20000 32000
*)

let rec pairs n acc = if n = 0 then acc else pairs (n - 1) ((n, 3 * n + 1) :: acc)

let input n = pairs n []

let rec split l =
  match l with
  | [] -> ([], [])
  | (x, y) :: t ->
    let r = split t in
    (match r with (rx, ry) -> (x :: rx, y :: ry))

let run l = split l
