(* mlcost-control
   description: wrap headings into [0, 360) with mod_float, bin them with floor into an int array of 36 bins, and return the bins' sum weighted by a power law, i ** 1.5
   sizes: 30 100 400 1500 6000 20000
*)

let bins = 36

let input n = Array.init n (fun i -> float_of_int (i * 7919 mod 4001) *. 0.73 -. 1000.0)

let run headings =
  let counts = Array.make bins 0 in
  Array.iter
    (fun h ->
      let w = mod_float h 360.0 in
      let w = if w < 0.0 then w +. 360.0 else w in
      let b = int_of_float (floor (w /. 10.0)) in
      counts.(b) <- counts.(b) + 1)
    headings;
  let total = ref 0.0 in
  Array.iteri (fun i c -> total := !total +. float_of_int c *. (float_of_int (i + 1) ** 1.5)) counts;
  !total
