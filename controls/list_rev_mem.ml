(* mlcost-control
   description: count elements of one int list that occur in a short key list, via Stdlib-style rev_append/rev/mem
   sizes: 100 1000 10000
*)

let rec rev_append l1 l2 =
  match l1 with
  | [] -> l2
  | a :: l -> rev_append l (a :: l2)

let rev l = rev_append l []

let rec mem x = function
  | [] -> false
  | a :: l -> compare a x = 0 || mem x l

let rec length_aux len = function
  | [] -> len
  | _ :: l -> length_aux (len + 1) l

let length l = length_aux 0 l

let input n =
  let s = ref 17 in
  let rec build i acc =
    if i = 0 then acc
    else begin
      s := (!s * 1103515245 + 12345) land 0x3FFFFFFF;
      build (i - 1) ((!s lsr 8) mod 64 :: acc)
    end
  in
  let keys = [3; 7; 11; 19; 23; 31; 42; 50; 57; 63] in
  (build n [], keys)

let run (xs, keys) =
  let r = rev xs in
  let rec go l acc =
    match l with
    | [] -> acc
    | x :: rest -> if mem x keys then go rest (x :: acc) else go rest acc
  in
  let hits = go r [] in
  (length hits, length (rev_append hits r))
