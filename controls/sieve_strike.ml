(* mlcost-control
   description: primes up to n by Eratosthenes' striking (walk multiples p*p, p*p+p, ... by addition)
   sizes: 200 1000 3000 10000 20000 30000
   pair: sieve-trial-vs-strike
*)

(* [2; 3; ...; n] *)
let rec range i n acc = if n < i then acc else range i (n - 1) (n :: acc)

let input n = (n, range 2 n [])

(* remove m, m + p, m + 2p, ... from the sorted list l *)
let rec strike p m l =
  match l with
  | [] -> []
  | x :: t ->
    if x < m then x :: strike p m t
    else if x = m then strike p (m + p) t
    else strike p (m + p) l

let rec sieve n l =
  match l with
  | [] -> []
  | p :: t -> if p * p > n then l else p :: sieve n (strike p (p * p) t)

let run q = match q with (n, l) -> sieve n l
