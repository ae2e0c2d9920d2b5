(* mlcost-control
   description: running statistics of an int list in an immutable record updated with { r with ... } in a fold
   sizes: 100 1000 10000 50000 200000
*)

type stats = { count : int; sum : int; lo : int; hi : int }

let next s = (s * 1103515245 + 12345) land 1073741823

let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) ((s lsr 8) mod 10000 :: acc)

let input n = randoms n 99 []

let rec fold f acc l = match l with [] -> acc | x :: t -> fold f (f acc x) t

let add r (x : int) =
  let r = { r with count = r.count + 1; sum = r.sum + x } in
  if x < r.lo then { r with lo = x } else if x > r.hi then { r with hi = x } else r

let run l = fold add { count = 0; sum = 0; lo = max_int; hi = min_int } l
