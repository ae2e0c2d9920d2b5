(* mlcost-control
   description: sum of Euclid's gcd over n pseudo-random pairs (division by a variable)
   sizes: 30 100 200 800 2000 5000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let rec pairs n s acc =
  if n = 0 then acc
  else
    let t = next s in
    pairs (n - 1) (next t) ((s lsr 6 + 1, t lsr 6 + 1) :: acc)

let input n = pairs n 1 []

let rec gcd a b = if b = 0 then a else gcd b (a mod b)

let rec sum_gcd l acc =
  match l with
  | [] -> acc
  | (a, b) :: t -> sum_gcd t (acc + gcd a b)

let run l = sum_gcd l 0
