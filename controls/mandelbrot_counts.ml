(* mlcost-control
   description: Mandelbrot escape-iteration counts (max 60) over an n x n grid of the complex plane, summed
   sizes: 6 20 64
*)

let escape cr ci =
  let zr = ref 0.0 and zi = ref 0.0 in
  let k = ref 0 in
  while !k < 60 && !zr *. !zr +. !zi *. !zi <= 4.0 do
    let t = !zr *. !zr -. !zi *. !zi +. cr in
    zi := 2.0 *. !zr *. !zi +. ci;
    zr := t;
    incr k
  done;
  !k

let input n = n

let run n =
  let total = ref 0 in
  let fn = float_of_int n in
  for j = 0 to n - 1 do
    let ci = -1.2 +. 2.4 *. float_of_int j /. fn in
    for i = 0 to n - 1 do
      let cr = -2.0 +. 2.6 *. float_of_int i /. fn in
      total := !total + escape cr ci
    done
  done;
  !total
