(* Arrays: literals, Array.make (small, and beyond Max_young_wosize), reads and writes with
   their bounds checks, a caught out-of-bounds access, float arrays, an array of lists. *)
let input n = n

let run n =
  let a = Array.make (n + 1) 0 in
  for i = 0 to n do a.(i) <- i * i mod 7 done;
  let s = ref 0 in
  for i = Array.length a - 1 downto 0 do s := !s + a.(i) done;
  let f = Array.make (n mod 300 + 1) 1.5 in
  for i = 1 to Array.length f - 1 do f.(i) <- f.(i - 1) *. 0.5 +. float_of_int i done;
  let l = Array.make 3 [] in
  for i = 0 to n mod 10 do l.(i mod 3) <- i :: l.(i mod 3) done;
  let oob = try a.(n + 1) with Invalid_argument _ -> -1 in
  let lit = [| n; n + 1; 2 |] in
  lit.(2) <- Array.get lit 0 + 5;
  Array.set lit 1 7;
  Array.unsafe_set lit 0 (Array.unsafe_get lit 2 * 3);
  (!s, f, l, oob, lit, [||], [| 1.5; float_of_int n |])
