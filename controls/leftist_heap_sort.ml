(* mlcost-control
   description: heap sort of an int list through a leftist heap (insert all, then pop all), summing with positional weights
   sizes: 50 500 5000
*)

type heap = E | T of int * int * heap * heap

let rank = function E -> 0 | T (r, _, _, _) -> r

let make x a b =
  if rank a >= rank b then T (rank b + 1, x, a, b) else T (rank a + 1, x, b, a)

let rec merge h1 h2 =
  match (h1, h2) with
  | (E, h) -> h
  | (h, E) -> h
  | (T (_, x, a1, b1), T (_, y, a2, b2)) ->
    if x <= y then make x a1 (merge b1 h2) else make y a2 (merge h1 b2)

let insert x h = merge (T (1, x, E, E)) h

exception Empty

let pop = function
  | E -> raise Empty
  | T (_, x, a, b) -> (x, merge a b)

let input n =
  let s = ref 2024 in
  List.init n (fun _ ->
    s := (!s * 1103515245 + 12345) land 0x3FFFFFFF;
    (!s lsr 6) mod 100000)

let run xs =
  let h = List.fold_left (fun h x -> insert x h) E xs in
  let rec drain h i acc =
    match h with
    | E -> acc
    | _ ->
      let (x, h') = pop h in
      drain h' (i + 1) ((acc + x * (i land 7)) land 0xFFFFFFF)
  in
  drain h 0 0
