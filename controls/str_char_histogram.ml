(* mlcost-control
   description: histogram of the bytes of a generated string into a 256-entry int array, indexed by Char.code
   sizes: 100 1000 10000 100000 1000000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let input n =
  let b = Bytes.create n in
  let s = ref 99 in
  for i = 0 to n - 1 do
    s := next !s;
    Bytes.set b i (Char.chr ((!s lsr 8) land 255))
  done;
  Bytes.to_string b

let run s =
  let h = Array.make 256 0 in
  for i = 0 to String.length s - 1 do
    let k = Char.code s.[i] in
    h.(k) <- h.(k) + 1
  done;
  h
