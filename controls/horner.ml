(* mlcost-control
   description: Horner evaluation of a degree-n polynomial with float coefficients
   sizes: 1000 4000 16000 64000 150000 300000
*)

(* pseudo-random floats in (0, 1) from the logistic map x -> 3.99 x (1 - x) *)
let logistic x = 3.99 *. x *. (1.0 -. x)

(* coefficients in (-0.5, 0.5), highest degree first *)
let rec coeffs n x acc =
  if n = 0 then acc else coeffs (n - 1) (logistic x) ((x -. 0.5) :: acc)

(* x close to 1, so that every coefficient counts: |result| < 0.5 / (1 - x) *)
let input n = (0.99999, coeffs n 0.2 [])

let rec horner x cs acc =
  match cs with
  | [] -> acc
  | c :: rest -> horner x rest (acc *. x +. c)

let run p = match p with (x, cs) -> horner x cs 0.0
