(* Variants: constant-only types, several arguments vs one tuple argument, nested patterns. *)
type color = Red | Green | Blue
type shape = Circle of float | Rect of float * float | Poly of (int * int) list | Empty
type 'a expr = Num of 'a | Add of 'a expr * 'a expr | Mul of 'a expr * 'a expr | Neg of 'a expr

let rec eval = function
  | Num n -> n
  | Add (a, b) -> eval a + eval b
  | Mul (Num 0, _) | Mul (_, Num 0) -> 0
  | Mul (a, b) -> eval a * eval b
  | Neg e -> - eval e

let rec build n = if n <= 1 then Num n else if n mod 3 = 0 then Mul (build (n - 1), Num 2) else Add (Neg (build (n - 1)), Num n)

let next = function Red -> Green | Green -> Blue | Blue -> Red
let area = function Circle r -> 3.0 *. r *. r | Rect (w, h) -> w *. h | Poly _ | Empty -> 0.0

let input n = n mod 40

let run n =
  let e = build n in
  (eval e, next Blue, [ Rect (2.0, 3.0); Circle 1.0; Poly [ (1, 2) ]; Empty ], area (Rect (2.0, float_of_int n)), e, Red = next Blue)
