(* mlcost-control
   description: renders a list of ints of 1 to 9 digits, signs mixed, as comma-separated text with string_of_int, List.map and String.concat
   sizes: 100 400 1000 3000 10000
*)
let next s = (s * 1103515245 + 12345) land 1073741823

let rec numbers n s acc =
  if n = 0 then acc
  else numbers (n - 1) (next s) (((s lsr 3) - 67108864) / (1 lsl (s land 15)) :: acc)

let input n = numbers n 11 []

let run l = String.length (String.concat "," (List.map string_of_int l))
