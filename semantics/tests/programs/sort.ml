(* Sorting with the polymorphic comparison, on ints, strings and pairs. *)
let rec insert cmp x = function [] -> [ x ] | y :: l as s -> if cmp x y <= 0 then x :: s else y :: insert cmp x l

let rec sort cmp = function [] -> [] | x :: l -> insert cmp x (sort cmp l)

let rec merge l1 l2 =
  match (l1, l2) with
  | [], l | l, [] -> l
  | h1 :: t1, h2 :: t2 -> if h1 <= h2 then h1 :: merge t1 l2 else h2 :: merge l1 t2

let rec pseudo i seed = if i = 0 then [] else (seed mod 1000) :: pseudo (i - 1) ((seed * 7919 + 13) mod 1000003)

let input n = pseudo n 17

let run l =
  let sorted = sort compare l in
  let pairs = sort compare [ (2, "b"); (1, "z"); (2, "a"); (1, "a") ] in
  let words = sort (fun a b -> compare b a) [ "pear"; "apple"; "fig"; "apples" ] in
  (merge sorted [ 0; 500; 2000 ], pairs, words, [ 'x'; 'a' ], sorted = l, compare [ 1; 2 ] [ 1; 3 ])
