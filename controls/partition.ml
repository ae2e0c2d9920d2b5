(* mlcost-control
   description: partition of a pseudo-random int list around a pivot (accumulators, then rev)
   sizes: 1000 4000 16000 30000 50000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) ((s lsr 8) mod 10000 :: acc)

let input n = (5000, randoms n 11 [])

let rec rev_append l acc =
  match l with
  | [] -> acc
  | x :: t -> rev_append t (x :: acc)

let rec part p yes no l =
  match l with
  | [] -> (rev_append yes [], rev_append no [])
  | x :: t -> if p x then part p (x :: yes) no t else part p yes (x :: no) t

let partition p l = part p [] [] l

(* [x - pivot < 0] rather than [x < pivot]: the subtraction tells ocamlopt that x and pivot are
   ints, so the test is one machine comparison and not a call to the polymorphic compare *)
let run q = match q with (pivot, l) -> partition (fun x -> x - pivot < 0) l
