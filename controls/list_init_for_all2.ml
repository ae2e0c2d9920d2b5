(* mlcost-control
   description: build lists with Stdlib-style init, compare them with for_all2/exists2 and sample them with nth
   sizes: 100 1000 10000
*)

let rec init_aux i n f =
  if i >= n then []
  else
    let r = f i in
    r :: init_aux (i + 1) n f

let init len f =
  if len < 0 then invalid_arg "List.init" else init_aux 0 len f

let rec for_all2 p l1 l2 =
  match (l1, l2) with
  | ([], []) -> true
  | (a1 :: l1, a2 :: l2) -> p a1 a2 && for_all2 p l1 l2
  | (_, _) -> invalid_arg "List.for_all2"

let rec exists2 p l1 l2 =
  match (l1, l2) with
  | ([], []) -> false
  | (a1 :: l1, a2 :: l2) -> p a1 a2 || exists2 p l1 l2
  | (_, _) -> invalid_arg "List.exists2"

let nth l n =
  if n < 0 then invalid_arg "List.nth"
  else
    let rec nth_aux l n =
      match l with
      | [] -> failwith "nth"
      | a :: l -> if n = 0 then a else nth_aux l (n - 1)
    in
    nth_aux l n

let input n = n

let run n =
  let a = init n (fun i -> (i * 7919) land 1023) in
  let b = init n (fun i -> ((i * 7919) land 1023) + (i mod 3)) in
  let le = for_all2 (fun x y -> x <= y) a b in
  let big = exists2 (fun x y -> x + y > 2050) a b in
  let mismatch =
    try for_all2 (fun x y -> x = y) a (1 :: a) with Invalid_argument _ -> false
  in
  let s = ref 0 in
  for k = 0 to 9 do
    s := !s + nth a ((k * n) / 10) + nth b ((k * n) / 11)
  done;
  (le, big, mismatch, !s)
