(* mlcost-control
   description: Black-Scholes prices of a float array of European calls (log, exp, sqrt, erf through Float), summed
   sizes: 20 60 200 800 3000 10000
*)

let norm_cdf d = 0.5 *. (1.0 +. Float.erf (d /. sqrt 2.0))

let call_price s k r v t =
  let vt = v *. sqrt t in
  let d1 = (log (s /. k) +. (r +. 0.5 *. v *. v) *. t) /. vt in
  let d2 = d1 -. vt in
  s *. norm_cdf d1 -. k *. exp (-. r *. t) *. norm_cdf d2

let input n =
  let strikes = Array.init n (fun i -> 80.0 +. float_of_int (i * 37 mod 41)) in
  let expiries = Array.init n (fun i -> 0.25 +. float_of_int (i mod 8) *. 0.25) in
  (strikes, expiries)

let run (strikes, expiries) =
  let total = ref 0.0 in
  for i = 0 to Array.length strikes - 1 do
    total := !total +. call_price 100.0 strikes.(i) 0.03 0.2 expiries.(i)
  done;
  !total
