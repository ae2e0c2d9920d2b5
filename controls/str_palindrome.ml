(* mlcost-control
   description: checks every prefix length of a generated near-palindrome with a while loop over two indices
   sizes: 10 30 100 300 1000 2000
*)

(* A palindrome of length n, with one byte changed near the middle when n mod 3 = 0. *)
let input n =
  let b = Bytes.make n 'x' in
  for i = 0 to n / 2 - 1 do
    let c = Char.chr (97 + i mod 5) in
    Bytes.set b i c;
    Bytes.set b (n - 1 - i) c
  done;
  if n mod 3 = 0 && n > 2 then Bytes.set b (n / 2 - 1) 'z';
  Bytes.to_string b

let is_palindrome s len =
  let i = ref 0 in
  let j = ref (len - 1) in
  while !i < !j && s.[!i] = s.[!j] do
    incr i;
    decr j
  done;
  !i >= !j

let run s =
  let count = ref 0 in
  for len = 1 to String.length s do
    if is_palindrome s len then incr count
  done;
  !count
