(* mlcost-control
   description: zip two int lists into pairs, find min and max in one pass with a tuple accumulator, then unzip and compare sums
   sizes: 100 1000 20000
*)

let rec zip l1 l2 =
  match (l1, l2) with
  | ([], []) -> []
  | (a :: r1, b :: r2) -> (a, b) :: zip r1 r2
  | (_, _) -> invalid_arg "zip"

let rec unzip = function
  | [] -> ([], [])
  | (a, b) :: l ->
    let (la, lb) = unzip l in
    (a :: la, b :: lb)

let min_max = function
  | [] -> failwith "min_max"
  | x :: rest ->
    let rec go (lo, hi) = function
      | [] -> (lo, hi)
      | y :: ys -> go ((if y < lo then y else lo), (if y > hi then y else hi)) ys
    in
    go (x, x) rest

let input n =
  let s = ref 31 in
  let gen () =
    List.init n (fun _ ->
      s := (!s * 1103515245 + 12345) land 0x3FFFFFFF;
      (!s lsr 7) mod 50000)
  in
  let a = gen () in
  let b = gen () in
  (a, b)

let run (a, b) =
  let pairs = zip a b in
  let sums = List.map (fun (x, y) -> x + y) pairs in
  let (lo, hi) = min_max sums in
  let (xs, ys) = unzip (List.filter (fun (x, y) -> x > y) pairs) in
  let sx = List.fold_left ( + ) 0 xs and sy = List.fold_left ( + ) 0 ys in
  (lo, hi, sx - sy, List.length xs)
