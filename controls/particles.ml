(* mlcost-control
   description: springs simulated in an array of mutable float records, stepped in place
   sizes: 10 30 100 300 1000
*)

type particle = { mutable x : float; mutable v : float; k : float }

(* A filler for [Array.make]: built before any run, so caml_make_vect never sees a young
   value (for a long array it would force a minor collection first). *)
let filler = { x = 0.0; v = 0.0; k = 1.0 }

let input n = n

let[@inline never] step (p : particle) dt =
  p.v <- p.v -. p.k *. p.x *. dt;
  p.x <- p.x +. p.v *. dt

let run n =
  let ps = Array.make n filler in
  for i = 0 to n - 1 do
    ps.(i) <- { x = float_of_int i; v = 0.0; k = 1.0 +. float_of_int (i mod 5) }
  done;
  for _ = 1 to 20 do
    for i = 0 to n - 1 do step ps.(i) 0.01 done
  done;
  let e = ref 0.0 in
  for i = 0 to n - 1 do
    let p = ps.(i) in
    e := !e +. p.x *. p.x +. p.v *. p.v
  done;
  !e
