(* List functions in the style of the Stdlib: the result is a list of lists and tuples. *)
let rec init_aux i n = if i >= n then [] else i :: init_aux (i + 1) n

let rec rev_append l1 l2 = match l1 with [] -> l2 | a :: l -> rev_append l (a :: l2)
let rev l = rev_append l []

let rec map f = function [] -> [] | a :: l -> let r = f a in r :: map f l

let rec fold_left f accu l = match l with [] -> accu | a :: l -> fold_left f (f accu a) l

let partition p l =
  let rec part yes no = function
    | [] -> (rev yes, rev no)
    | x :: l -> if p x then part (x :: yes) no l else part yes (x :: no) l
  in
  part [] [] l

let input n = init_aux 0 n

let run l =
  let evens, odds = partition (fun x -> x mod 2 = 0) l in
  let sum = fold_left ( + ) 0 l in
  [ map (fun x -> x * 3) evens; rev odds; [ sum ] ] |> ignore;
  (map (fun x -> (x, -x)) (rev evens), odds @ [ sum ], [ [] ; [ 1; 2 ] ])
