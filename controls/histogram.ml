(* mlcost-control
   description: histogram of pseudo-random ints into 16 buckets of an int array
   sizes: 100 1000 10000 50000 200000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let input n = n

let run n =
  let h = Array.make 16 0 in
  let s = ref 12345 in
  for _ = 1 to n do
    s := next !s;
    let b = (!s lsr 12) land 15 in
    h.(b) <- h.(b) + 1
  done;
  h
