(* mlcost-control
   description: product of two n x n matrices of floats (arrays of float arrays), triple for loop
   sizes: 4 8 16 32 64
*)

let input n =
  let m = Array.make n [||] in
  let x = ref 0.3 in
  for i = 0 to n - 1 do
    let row = Array.make n 0.0 in
    for j = 0 to n - 1 do
      x := 3.99 *. !x *. (1.0 -. !x);
      row.(j) <- !x
    done;
    m.(i) <- row
  done;
  m

let run (a : float array array) =
  let n = Array.length a in
  let c = Array.make n [||] in
  for i = 0 to n - 1 do
    let row = Array.make n 0.0 in
    let ai = a.(i) in
    for j = 0 to n - 1 do
      let s = ref 0.0 in
      for k = 0 to n - 1 do
        s := !s +. ai.(k) *. a.(k).(j)
      done;
      row.(j) <- !s
    done;
    c.(i) <- row
  done;
  c
