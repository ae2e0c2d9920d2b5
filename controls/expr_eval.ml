(* mlcost-control
   description: evaluate a pseudo-random arithmetic expression tree of n nodes (variant type)
   sizes: 200 1000 5000 20000 100000 200000
*)

type expr =
  | Num of int
  | Neg of expr
  | Add of expr * expr
  | Sub of expr * expr
  | Mul of expr * expr

let next s = (s * 1103515245 + 12345) land 1073741823

(* an expression of exactly n nodes (n >= 1); returns it with the next seed *)
let rec gen n s =
  let t = next s in
  let k = (s lsr 12) mod 7 in
  if n <= 1 then (Num ((s lsr 8) mod 100), t)
  else if n = 2 || k = 0 then (match gen (n - 1) t with (e, u) -> (Neg e, u))
  else
    (* both operands get at least one node *)
    let left = 1 + (s lsr 16) mod (n - 2) in
    match gen left t with
    | (a, u) ->
      (match gen (n - 1 - left) u with
       | (b, v) ->
         if k <= 2 then (Add (a, b), v)
         else if k <= 4 then (Sub (a, b), v)
         else (Mul (a, b), v))

let input n = fst (gen n 3)

(* results are kept in 20 bits so that no product overflows *)
let rec eval e =
  match e with
  | Num n -> n
  | Neg a -> - eval a
  | Add (a, b) -> (eval a + eval b) land 1048575
  | Sub (a, b) -> (eval a - eval b) land 1048575
  | Mul (a, b) -> (eval a * eval b) land 1048575

let run e = eval e
