(* mlcost-control
   description: primes up to n by trial-division sieve (drop multiples with mod, stop at sqrt n)
   sizes: 200 1000 3000 10000 20000 30000
   pair: sieve-trial-vs-strike
*)

(* [2; 3; ...; n] *)
let rec range i n acc = if n < i then acc else range i (n - 1) (n :: acc)

let input n = (n, range 2 n [])

let rec remove_multiples p l =
  match l with
  | [] -> []
  | x :: t -> if x mod p = 0 then remove_multiples p t else x :: remove_multiples p t

let rec sieve n l =
  match l with
  | [] -> []
  | p :: t -> if p * p > n then l else p :: sieve n (remove_multiples p t)

let run q = match q with (n, l) -> sieve n l
