(* mlcost-control
   description: Caesar cipher over a copy of the input as Bytes, shifting letters by 13 with Char.code and Char.chr
   sizes: 100 1000 10000 100000 1000000
*)

let input n =
  let b = Bytes.create n in
  for i = 0 to n - 1 do
    let k = (i * 7 + i / 5) mod 30 in
    Bytes.set b i (if k >= 26 then ' ' else Char.chr (97 + k))
  done;
  Bytes.to_string b

let run s =
  let b = Bytes.of_string s in
  for i = 0 to Bytes.length b - 1 do
    let c = Bytes.get b i in
    if c >= 'a' && c <= 'z' then
      Bytes.set b i (Char.chr (97 + (Char.code c - 97 + 13) mod 26))
  done;
  Bytes.to_string b
