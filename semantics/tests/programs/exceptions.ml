(* Exceptions: raise, failwith, invalid_arg, try … with, exception values in results. *)
exception Found of int
exception Stop
exception Pair of int * string

let rec iter f = function [] -> () | x :: l -> f x; iter f l

let find_first p l =
  try
    iter (fun x -> if p x then raise (Found x)) l;
    None
  with Found x -> Some x

let safe_div a b = try a / b with Division_by_zero -> 0

let classify n =
  try if n < 0 then invalid_arg "negative" else if n = 0 then raise Stop else failwith "positive"
  with
  | Invalid_argument m -> m
  | Stop -> "zero"
  | Failure m -> m

let rec range i n = if i >= n then [] else i :: range (i + 1) n

let input n = range 0 n

let run l =
  ( find_first (fun x -> x * x > 50) l,
    safe_div 10 0,
    safe_div 10 3,
    classify (-1),
    classify 0,
    classify 5,
    [ Stop; Found 3; Pair (1, "x"); Not_found; Failure "f" ] )
