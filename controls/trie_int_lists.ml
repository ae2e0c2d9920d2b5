(* mlcost-control
   description: insert short int-digit lists into a trie whose children are association lists, then count stored words and prefix hits
   sizes: 20 200 2000
*)

type trie = Trie of bool * (int * trie) list

let empty = Trie (false, [])

let rec insert word (Trie (stop, kids)) =
  match word with
  | [] -> Trie (true, kids)
  | d :: rest ->
    let rec upd = function
      | [] -> [ (d, insert rest empty) ]
      | (k, t) :: more ->
        if k = d then (k, insert rest t) :: more else (k, t) :: upd more
    in
    Trie (stop, upd kids)

let rec mem word (Trie (stop, kids)) =
  match word with
  | [] -> stop
  | d :: rest ->
    (try mem rest (List.assoc d kids) with Not_found -> false)

let rec count (Trie (stop, kids)) =
  List.fold_left (fun acc (_, t) -> acc + count t) (if stop then 1 else 0) kids

let digits n =
  let rec go n acc = if n < 10 then n :: acc else go (n / 10) (n mod 10 :: acc) in
  go n []

let input n =
  let s = ref 11 in
  List.init n (fun _ ->
    s := (!s * 1103515245 + 12345) land 0x3FFFFFFF;
    digits ((!s lsr 8) mod 100000))

let run words =
  let t = List.fold_left (fun t w -> insert w t) empty words in
  let hits =
    List.fold_left (fun acc w ->
      match w with
      | _ :: rest -> if mem rest t then acc + 1 else acc
      | [] -> acc) 0 words
  in
  (count t, hits)
