(* mlcost-control
   description: writes rows of integers as CSV text into a Buffer (add_string of string_of_int, add_char), a row per list of five, testing the end of a row with `rest = []` as people write it
   sizes: 100 1000 10000 50000
*)

let input n = List.init n (fun i -> (i * 7919) mod 100003 - 50000)

let rec row b = function
  | [] -> ()
  | x :: rest ->
      Buffer.add_string b (string_of_int x);
      if rest = [] then Buffer.add_char b '\n' else Buffer.add_char b ',';
      row b rest

let rec rows b l =
  match l with
  | a :: c :: d :: e :: f :: rest ->
      row b [ a; c; d; e; f ];
      rows b rest
  | short -> if short <> [] then row b short

let run l =
  let b = Buffer.create 64 in
  rows b l;
  let text = Buffer.contents b in
  (String.length text, Buffer.length b)
