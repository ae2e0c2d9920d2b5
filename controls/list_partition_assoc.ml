(* mlcost-control
   description: partition (key, value) pairs by key parity, then look up values with Stdlib-style assoc/mem_assoc
   sizes: 50 500 3000
*)

let partition p l =
  let rec part yes no = function
    | [] -> (List.rev yes, List.rev no)
    | x :: l -> if p x then part (x :: yes) no l else part yes (x :: no) l
  in
  part [] [] l

let rec assoc x = function
  | [] -> raise Not_found
  | (a, b) :: l -> if compare a x = 0 then b else assoc x l

let rec mem_assoc x = function
  | [] -> false
  | (a, _) :: l -> compare a x = 0 || mem_assoc x l

let input n =
  let s = ref 99 in
  List.init n (fun i ->
    s := (!s * 1103515245 + 12345) land 0x3FFFFFFF;
    (i, (!s lsr 4) mod 1000))

let run pairs =
  let evens, odds = partition (fun (k, _) -> k land 1 = 0) pairs in
  let total = ref 0 in
  let k = ref 0 in
  while !k < 60 do
    let key = (!k * 37) mod (List.length pairs + 5) in
    (if mem_assoc key evens then total := !total + assoc key evens
     else if mem_assoc key odds then total := !total - assoc key odds
     else incr total);
    incr k
  done;
  (!total, List.length evens, List.length odds)
