(* mlcost-control
   description: combine two int lists into a list of pairs (like List.combine)
   sizes: 1000 4000 16000 30000 50000
*)

exception Different_lengths

let rec range n acc = if n = 0 then acc else range (n - 1) (n :: acc)

let input n = (range n [], range n [])

let rec combine l1 l2 =
  match l1 with
  | [] -> (match l2 with [] -> [] | _ -> raise Different_lengths)
  | a :: t1 ->
    (match l2 with
     | [] -> raise Different_lengths
     | b :: t2 -> (a, b) :: combine t1 t2)

let run p = match p with (l1, l2) -> combine l1 l2
