(* References that ocamlopt turns into variables, references that escape into a closure or
   a data structure, `while` and `for` loops, sequencing and `ignore`. *)
let[@inline never] bump r = incr r; r := !r + 2

let input n = n

let run n =
  let i = ref 0 in
  let acc = ref 1 in
  while !i < n do
    incr i;
    acc := (!acc * 3 + !i) land 0xffff
  done;
  let counter = ref 0 in
  let tick () = incr counter in
  for _ = 1 to n mod 17 do tick () done;
  bump counter;
  let shared = ref [] in
  let pair = (shared, 5) in
  (fst pair) := [n; n];
  decr counter;
  let x = ref 0.5 in
  for k = 1 to 10 do x := !x *. 1.5 +. float_of_int k done;
  ignore (n + 1);
  begin
    i := !i - 1
  end;
  (!i, !acc, !counter, !shared, !x, ())
