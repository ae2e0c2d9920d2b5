(* mlcost-control
   description: midpoint rule for the integral of 4 / (1 + x^2) over [0, 1] (pi) with n steps
   sizes: 300 1000 5000 20000 50000 100000 200000
*)

(* n as a float, without float_of_int *)
let rec to_float n acc = if n = 0 then acc else to_float (n - 1) (acc +. 1.0)

let input n = (n, 1.0 /. to_float n 0.0)

let rec integrate h x i acc =
  if i = 0 then acc else integrate h (x +. h) (i - 1) (acc +. 4.0 /. (1.0 +. x *. x))

let run p = match p with (n, h) -> h *. integrate h (0.5 *. h) n 0.0
