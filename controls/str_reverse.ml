(* mlcost-control
   description: reverses a string into a fresh Bytes, swapping from both ends with unsafe accesses after one range check
   sizes: 100 1000 10000 100000 1000000
*)

let input n =
  let b = Bytes.create n in
  for i = 0 to n - 1 do
    Bytes.set b i (Char.chr (65 + i * 11 mod 58))
  done;
  Bytes.to_string b

let run s =
  let n = String.length s in
  let b = Bytes.create n in
  for i = 0 to n - 1 do
    Bytes.unsafe_set b (n - 1 - i) (String.unsafe_get s i)
  done;
  Bytes.unsafe_to_string b
