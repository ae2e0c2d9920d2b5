(* Records: construction, field access, functional update, patterns, mutable fields, a flat
   record of floats, and a record holding a list (a pointer store). *)
type point = { x : int; y : int }
type body = { mutable pos : float; mutable vel : float }
type acc = { mutable total : int; mutable seen : int list; name : string }

let[@inline never] shift p d = { p with x = p.x + d }
let[@inline never] abs_int a = if a < 0 then - a else a
let[@inline never] norm1 { x; y } = abs_int x + abs_int y

let rec simulate b steps =
  if steps = 0 then b
  else begin
    b.vel <- b.vel -. 0.5 *. b.pos;
    b.pos <- b.pos +. 0.1 *. b.vel;
    simulate b (steps - 1)
  end

let input n = n

let run n =
  let a = { total = 0; seen = []; name = "acc" } in
  let rec go i p =
    if i > n then p
    else begin
      a.total <- a.total + norm1 p;
      if i mod 3 = 0 then a.seen <- i :: a.seen;
      go (i + 1) (shift p (if i mod 2 = 0 then 1 else -2))
    end
  in
  let p = go 0 { x = 3; y = -4 } in
  let b = simulate { pos = 1.0; vel = 0.0 } (n mod 50) in
  (p, a, b, { y = 1; x = 2 })
