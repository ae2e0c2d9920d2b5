(* N queens, 99-problems style: counts solutions and returns the first one. *)
let rec safe q d = function [] -> true | x :: l -> x <> q && x <> q + d && x <> q - d && safe q (d + 1) l

let rec range a b = if a > b then [] else a :: range (a + 1) b

let rec place n row qs =
  if row = 0 then [ qs ]
  else
    let rec try_cols = function
      | [] -> []
      | c :: cs -> (if safe c 1 qs then place n (row - 1) (c :: qs) else []) @ try_cols cs
    in
    try_cols (range 1 n)

let input n = 1 + (n mod 7)

let run n =
  let sols = place n n [] in
  let rec length acc = function [] -> acc | _ :: l -> length (acc + 1) l in
  (length 0 sols, match sols with [] -> None | s :: _ -> Some s)
