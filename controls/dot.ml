(* mlcost-control
   description: dot product of two float lists (tail-recursive, float accumulator)
   sizes: 1000 4000 16000 64000 150000 300000
*)

(* pseudo-random floats in (0, 1) from the logistic map x -> 3.99 x (1 - x) *)
let logistic x = 3.99 *. x *. (1.0 -. x)

let rec floats n x acc = if n = 0 then acc else floats (n - 1) (logistic x) (x :: acc)

let input n = (floats n 0.3 [], floats n 0.7 [])

let rec dot a b acc =
  match a with
  | [] -> acc
  | x :: s ->
    (match b with
     | [] -> acc
     | y :: t -> dot s t (acc +. x *. y))

let run p = match p with (a, b) -> dot a b 0.0
