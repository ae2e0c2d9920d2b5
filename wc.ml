let input n = ref 0.0
let run t = for i = 1 to 30 do t := !t +. float_of_int i done; !t
let () =
  let x = input 30 in
  let (m0, _, _) = Gc.counters () in
  let r = Sys.opaque_identity (run x) in
  let (m1, _, _) = Gc.counters () in
  let (m2, _, _) = Gc.counters () in
  ignore r; Printf.printf "%.0f\n" (m1 -. m0 -. (m2 -. m1))
