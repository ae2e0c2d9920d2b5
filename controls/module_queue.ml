(* mlcost-control
   description: a breadth-first walk of an implicit binary tree through a functional queue (two lists) written as a module with a signature, its type and exception reached from outside as Queue2.t and Queue2.Empty
   sizes: 100 1000 10000 50000 100000
*)

module Queue2 : sig
  type 'a t = { front : 'a list; back : 'a list }
  exception Empty
  val empty : 'a t
  val push : 'a -> 'a t -> 'a t
  val pop : 'a t -> 'a * 'a t
end = struct
  type 'a t = { front : 'a list; back : 'a list }

  exception Empty

  let empty = { front = []; back = [] }

  let push x q = { q with back = x :: q.back }

  let rec pop q =
    match q.front with
    | x :: front -> (x, { q with front })
    | [] -> (
        match q.back with
        | [] -> raise Empty
        | back -> pop { front = List.rev back; back = [] })
end

let input n = n

let run n =
  let rec walk (q : int Queue2.t) visited sum =
    match Queue2.pop q with
    | exception Queue2.Empty -> sum
    | node, q ->
        let q = if 2 * node <= n then Queue2.push (2 * node) q else q in
        let q = if (2 * node) + 1 <= n then Queue2.push ((2 * node) + 1) q else q in
        walk q (visited + 1) (sum + (node mod 7))
  in
  walk (Queue2.push 1 Queue2.empty) 0 0
