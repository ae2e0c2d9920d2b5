(* mlcost-control
   description: composite Simpson integration of 1/(1+x^2) and sqrt(1+x) on [0,1] with n intervals, using a for loop and float refs
   sizes: 100 1000 50000
*)

let simpson f a b n =
  let h = (b -. a) /. float_of_int n in
  let s = ref (f a +. f b) in
  for i = 1 to n - 1 do
    let x = a +. h *. float_of_int i in
    if i land 1 = 1 then s := !s +. 4.0 *. f x else s := !s +. 2.0 *. f x
  done;
  !s *. h /. 3.0

let input n = if n land 1 = 1 then n + 1 else n

let run n =
  let pi4 = simpson (fun x -> 1.0 /. (1.0 +. x *. x)) 0.0 1.0 n in
  let r = simpson (fun x -> sqrt (1.0 +. x)) 0.0 1.0 n in
  (pi4 *. 4.0, r)
