(* mlcost-control
   description: counts the words and the digits of a generated text with s.[i] in a for loop
   sizes: 100 1000 10000 100000 1000000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

(* Letters, digits and spaces (one in eight) from the generator. *)
let input n =
  let b = Bytes.make n ' ' in
  let s = ref 42 in
  for i = 0 to n - 1 do
    s := next !s;
    let r = (!s lsr 12) land 31 in
    if r < 4 then Bytes.set b i ' '
    else if r < 10 then Bytes.set b i (Char.chr (48 + r))
    else Bytes.set b i (Char.chr (87 + r))
  done;
  Bytes.to_string b

let run s =
  let words = ref 0 in
  let digits = ref 0 in
  let in_word = ref false in
  for i = 0 to String.length s - 1 do
    let c = s.[i] in
    if c = ' ' then in_word := false
    else begin
      if not !in_word then incr words;
      in_word := true;
      if c >= '0' && c <= '9' then incr digits
    end
  done;
  (!words, !digits)
