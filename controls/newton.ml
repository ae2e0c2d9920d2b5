(* mlcost-control
   description: square roots of a float list by Newton's method (relative tolerance 1e-9)
   sizes: 30 100 500 2000 5000 10000 16000
*)

(* pseudo-random floats in (0, 1) from the logistic map x -> 3.99 x (1 - x) *)
let logistic x = 3.99 *. x *. (1.0 -. x)

(* values in (1, 10) *)
let rec values n x acc =
  if n = 0 then acc else values (n - 1) (logistic x) ((1.0 +. 9.0 *. x) :: acc)

let input n = values n 0.4 []

let[@inline never] fabs d = if d < 0.0 then -. d else d

let rec newton x g =
  let g2 = (g +. x /. g) *. 0.5 in
  if fabs (g2 -. g) <= 0.000000001 *. g2 then g2 else newton x g2

let rec sqrts l =
  match l with
  | [] -> []
  | x :: t -> newton x ((x +. 1.0) *. 0.5) :: sqrts t

let run l = sqrts l
