(* mlcost-control
   description: insertion sort of a copy of a pseudo-random int array, in place, with a while loop
   sizes: 30 50 100 200 400 700 1000
   pair: array-sort-insertion-vs-selection
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let input n =
  let a = Array.make n 0 in
  let s = ref 42 in
  for i = 0 to n - 1 do
    s := next !s;
    a.(i) <- (!s lsr 8) mod 10000
  done;
  a

let run (src : int array) =
  let n = Array.length src in
  let a = Array.make n 0 in
  for i = 0 to n - 1 do a.(i) <- src.(i) done;
  for i = 1 to n - 1 do
    let x = a.(i) in
    let j = ref (i - 1) in
    while !j >= 0 && a.(!j) > x do
      a.(!j + 1) <- a.(!j);
      decr j
    done;
    a.(!j + 1) <- x
  done;
  a
