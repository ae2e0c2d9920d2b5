(* mlcost-control
   description: run-length encoding of a generated string into Bytes (a count byte and a char per run), no Buffer
   sizes: 100 1000 10000 100000 400000
*)

let next s = (s * 1103515245 + 12345) land 1073741823

(* Runs of 1 to 8 equal letters from a 4-letter alphabet. *)
let input n =
  let b = Bytes.create n in
  let s = ref 7 in
  let i = ref 0 in
  while !i < n do
    s := next !s;
    let c = Char.chr (97 + (!s lsr 10) land 3) in
    let len = 1 + (!s lsr 14) land 7 in
    let j = ref 0 in
    while !j < len && !i < n do
      Bytes.set b !i c;
      incr i;
      incr j
    done
  done;
  Bytes.to_string b

let run s =
  let n = String.length s in
  let out = Bytes.create (2 * n) in
  let o = ref 0 in
  let i = ref 0 in
  while !i < n do
    let c = s.[!i] in
    let j = ref (!i + 1) in
    while !j < n && s.[!j] = c && !j - !i < 255 do
      incr j
    done;
    Bytes.set out !o (Char.chr (!j - !i));
    Bytes.set out (!o + 1) c;
    o := !o + 2;
    i := !j
  done;
  Bytes.sub_string out 0 !o
