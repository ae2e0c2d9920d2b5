(* Float arithmetic: a tuple of floats is a block of boxed floats. *)
let rec sum_squares acc i n = if i > n then acc else sum_squares (acc +. (float_of_int i *. float_of_int i)) (i + 1) n

let rec harmonic i n = if i > n then 0.0 else (1.0 /. float_of_int i) +. harmonic (i + 1) n

let input n = n

let run n =
  let s = sum_squares 0.0 1 n in
  let h = harmonic 1 n in
  let neg = -.h in
  (s, h, neg, [ s /. 3.0; 0.1 +. 0.2; -0.0; 1e300 *. 10.0 ], int_of_float (s /. 7.0), compare h 2.5, s < h)
