(* Precedence and associativity, checked against the real compiler by the digest. *)
let f x y = x - y
let g x = x * 2

let input n = n

let run n =
  let a = n + 3 and b = n - 7 in
  ( ( 1 - 2 - 3, 2 * 3 + 4 * 5, a - b * 2, - a * b, - g a, f a b - 1, f (-1) 2 ),
    ( a lsl 2 + 1, a lor b land 6, a lxor b lor 1, a asr 1 * 2, 100 / 7 mod 3 * 2, 1 + a lsl 1 ),
    ( a > b && b > 0 || a = 4, not (a < b) && true, (a, b) = (b, a) || a <> b, a == a ),
    ( 1 :: 2 :: [ a ], [ 1 ] @ [ 2 ] @ [ a ], a :: [] @ [ b ], [ 1; 2 ] = 1 :: [ 2 ] ),
    ( a |> g |> g, g @@ g @@ a, (fun x -> x + 1) a, (function 0 -> b | x -> x) a ),
    ( (if a > 0 then 1 else 2) + 10, (match a with 0 -> 1 | _ -> 2) * 3, (let x = a in x * x) - 1 ),
    ( 1.5 +. 2.0 *. 3.0, -. 1.5 *. 2.0, 2.0 /. 4.0 /. 2.0, - 3, -a, - (-3), 3 - -2 ),
    begin a; b end,
    if a > b then a, b else b, a )
