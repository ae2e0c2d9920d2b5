(* mlcost-control
   description: evaluate a degree-12 polynomial (float array coefficients) by Horner's rule at n points and return the sum and maximum
   sizes: 60 600 20000
*)

let horner coeffs x =
  let rec go i acc =
    if i < 0 then acc else go (i - 1) (acc *. x +. coeffs.(i))
  in
  go (Array.length coeffs - 1) 0.0

let input n =
  let s = ref 3 in
  let next () =
    s := (!s * 1103515245 + 12345) land 0x3FFFFFFF;
    float_of_int (!s lsr 10) /. 1048576.0
  in
  let coeffs = Array.init 13 (fun _ -> next () -. 0.5) in
  let xs = Array.init n (fun _ -> 2.0 *. next () -. 1.0) in
  (coeffs, xs)

let run (coeffs, xs) =
  Array.fold_left
    (fun (sum, mx) x ->
      let y = horner coeffs x in
      (sum +. y, if y > mx then y else mx))
    (0.0, neg_infinity) xs
