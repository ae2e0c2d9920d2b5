(* mlcost-control
   description: list append, two elements per recursive call (the paper's append2)
   sizes: 1000 4000 16000 40000 70000 100000
   pair: append-one-vs-two
*)

(* [1; 2; ...; n], built tail-recursively *)
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)

let input n = (range n [], range n [])

(* Half the calls of append1, twice the pattern tests per call. *)
let rec append2 l1 l2 =
  match l1 with
  | [] -> l2
  | x :: [] -> x :: l2
  | x :: y :: [] -> x :: y :: l2
  | x :: y :: tl -> x :: y :: append2 tl l2

let run p = match p with (l1, l2) -> append2 l1 l2
