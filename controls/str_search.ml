(* mlcost-control
   description: naive substring search counting the occurrences of a 4-byte pattern in a generated text, comparing chars
   sizes: 100 1000 10000 100000 500000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

let input n =
  let b = Bytes.create n in
  let s = ref 5 in
  for i = 0 to n - 1 do
    s := next !s;
    Bytes.set b i (Char.chr (97 + (!s lsr 12) land 3))
  done;
  (Bytes.to_string b, "abca")

let run (text, pat) =
  let n = String.length text in
  let m = String.length pat in
  let found = ref 0 in
  for i = 0 to n - m do
    let j = ref 0 in
    while !j < m && text.[i + !j] = pat.[!j] do
      incr j
    done;
    if !j = m then incr found
  done;
  !found
