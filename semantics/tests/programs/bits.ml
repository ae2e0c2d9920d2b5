(* Bit operations and 63-bit wrap-around. *)
let rec popcount x = if x = 0 then 0 else (x land 1) + popcount (x lsr 1)

let rec loop i n acc = if i = n then acc else loop (i + 1) n ((acc lxor (i lsl 3)) lor (i asr 1))

let input n = n

let run n =
  ( popcount n,
    loop 0 n 0,
    max_int + 1 = min_int,
    max_int * 3,
    -7 asr 1,
    -7 lsr 60,
    (-7) mod 3,
    -7 / 2,
    1 lsl 62,
    succ n,
    pred (-n) )
