(* mlcost-control
   description: rotate a list of (x, y) points through polar coordinates (hypot, atan2, then cos and sin), returning the new list's coordinate sum
   sizes: 10 40 150 600 2500 10000
*)

let to_polar (x, y) = (hypot x y, atan2 y x)

let of_polar (r, a) = (r *. cos a, r *. sin a)

let rotate angle points =
  List.map
    (fun p ->
      let r, a = to_polar p in
      of_polar (r, a +. angle))
    points

let rec sum acc = function [] -> acc | (x, y) :: t -> sum (acc +. x +. y) t

let input n =
  List.init n (fun i -> (float_of_int (i mod 97) -. 48.0, float_of_int (i * 7 mod 53) -. 26.0))

let run points = sum 0.0 (rotate 0.7 points)
