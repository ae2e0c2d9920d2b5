(* mlcost-control
   description: list append, one element per recursive call (the paper's append1)
   sizes: 1000 4000 16000 40000 70000 100000
   pair: append-one-vs-two
*)

(* [1; 2; ...; n], built tail-recursively *)
let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)

let input n = (range n [], range n [])

let rec append1 l1 l2 =
  match l1 with
  | [] -> l2
  | hd :: tl -> hd :: append1 tl l2

let run p = match p with (l1, l2) -> append1 l1 l2
