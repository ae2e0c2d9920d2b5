(* mlcost-control
   description: one gravitational n-body step on immutable records with float fields (all-pairs forces, then new positions), returning total energy-like sum
   sizes: 18 60 250
*)

type body = { x : float; y : float; vx : float; vy : float; m : float }

let accel bodies b =
  Array.fold_left
    (fun (ax, ay) o ->
      let dx = o.x -. b.x and dy = o.y -. b.y in
      let d2 = dx *. dx +. dy *. dy +. 0.01 in
      let inv = o.m /. (d2 *. sqrt d2) in
      (ax +. dx *. inv, ay +. dy *. inv))
    (0.0, 0.0) bodies

let step dt bodies =
  Array.map
    (fun b ->
      let (ax, ay) = accel bodies b in
      let vx = b.vx +. dt *. ax and vy = b.vy +. dt *. ay in
      { b with x = b.x +. dt *. vx; y = b.y +. dt *. vy; vx = vx; vy = vy })
    bodies

let input n =
  let s = ref 77 in
  let next () =
    s := (!s * 1103515245 + 12345) land 0x3FFFFFFF;
    float_of_int (!s lsr 10) /. 1048576.0
  in
  Array.init n (fun _ ->
    let x = next () *. 10.0 in
    let y = next () *. 10.0 in
    let m = 0.5 +. next () in
    { x = x; y = y; vx = 0.0; vy = 0.0; m = m })

let run bodies =
  let b' = step 0.01 bodies in
  Array.fold_left
    (fun acc b -> acc +. 0.5 *. b.m *. (b.vx *. b.vx +. b.vy *. b.vy) +. b.x *. 1e-3)
    0.0 b'
