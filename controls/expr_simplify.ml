(* mlcost-control
   description: build arithmetic expression trees, simplify them bottom-up (constant folding, identities) and evaluate
   sizes: 8 11 15
*)

type expr =
  | Const of int
  | Var of int
  | Add of expr * expr
  | Mul of expr * expr
  | Neg of expr

let rec build depth seed =
  let s = (seed * 1103515245 + 12345) land 0x3FFFFFFF in
  if depth = 0 then
    (match (s lsr 7) mod 4 with
     | 0 -> Const 0
     | 1 -> Const 1
     | 2 -> Const ((s lsr 9) mod 10)
     | _ -> Var ((s lsr 9) mod 3))
  else
    match (s lsr 7) mod 5 with
    | 0 | 1 -> Add (build (depth - 1) s, build (depth - 1) (s + 1))
    | 2 | 3 -> Mul (build (depth - 1) s, build (depth - 1) (s + 3))
    | _ -> Neg (build (depth - 1) s)

let rec simplify e =
  match e with
  | Const _ | Var _ -> e
  | Neg a ->
    (match simplify a with
     | Const n -> Const (-n)
     | Neg b -> b
     | a' -> Neg a')
  | Add (a, b) ->
    (match (simplify a, simplify b) with
     | (Const 0, b') -> b'
     | (a', Const 0) -> a'
     | (Const x, Const y) -> Const (x + y)
     | (a', b') -> Add (a', b'))
  | Mul (a, b) ->
    (match (simplify a, simplify b) with
     | (Const 0, _) | (_, Const 0) -> Const 0
     | (Const 1, b') -> b'
     | (a', Const 1) -> a'
     | (Const x, Const y) -> Const (x * y)
     | (a', b') -> Mul (a', b'))

let rec eval env e =
  match e with
  | Const n -> n
  | Var i -> env.(i)
  | Add (a, b) -> (eval env a + eval env b) land 0xFFFFFF
  | Mul (a, b) -> (eval env a * eval env b) land 0xFFFFFF
  | Neg a -> - (eval env a)

let rec size = function
  | Const _ | Var _ -> 1
  | Neg a -> 1 + size a
  | Add (a, b) | Mul (a, b) -> 1 + size a + size b

let input n = build n 42

let run e =
  let s = simplify e in
  let env = [| 3; 5; 7 |] in
  (size e, size s, eval env e, eval env s)
