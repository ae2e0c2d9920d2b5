(* Closures, partial application, over-application; a closure in the result digests as a closure. *)
let add3 x y z = x + y + z
let compose f g x = f (g x)
let twice f = compose f f

let rec map f = function [] -> [] | a :: l -> f a :: map f l

let input n = n

let run n =
  let k = n mod 7 in
  let addk x = x + k in
  let add_n = add3 n in
  let inc = ( + ) 1 in
  let results = map (twice addk) [ 1; 2; 3 ] in
  let curried = map (add3 1 2) [ 10; 20 ] in
  let over = twice (fun f -> compose f f) inc 0 in
  (results, curried, add_n 1 2, over, inc, map (fun f -> f 1) [ add_n 5; ( * ) 2 ])
