(* mlcost-control
   description: sum of the squares of the even elements (filter, map, fold_left with closures)
   sizes: 1000 4000 16000 40000 70000 100000
   pair: pipeline-own-vs-stdlib
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let rec randoms n s acc =
  if n = 0 then acc else randoms (n - 1) (next s) ((s lsr 8) mod 10000 :: acc)

let input n = randoms n 19 []

let rec filter p l =
  match l with
  | [] -> []
  | x :: t -> if p x then x :: filter p t else filter p t

let rec map f l =
  match l with
  | [] -> []
  | x :: t -> f x :: map f t

let rec fold_left f acc l =
  match l with
  | [] -> acc
  | x :: t -> fold_left f (f acc x) t

let run l =
  fold_left (fun a b -> a + b) 0
    (map (fun x -> x * x) (filter (fun x -> x land 1 = 0) l))
