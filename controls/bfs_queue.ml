(* mlcost-control
   description: breadth-first search with a Queue over a grid of n cells (walls at a fixed pattern), the distance of every reachable cell from the corner in an int array; sums the distances and counts the cells reached
   sizes: 100 1000 10000 100000
*)

let input n =
  let width = max 1 (int_of_float (sqrt (float_of_int n))) in
  (width, Array.init n (fun i -> i mod 7 = 3 && i mod width <> 0))

let run (width, wall) =
  let n = Array.length wall in
  let dist = Array.make n (-1) in
  let q = Queue.create () in
  if n > 0 then begin
    dist.(0) <- 0;
    Queue.push 0 q
  end;
  let visit d j =
    if j >= 0 && j < n && dist.(j) < 0 && not wall.(j) then begin
      dist.(j) <- d + 1;
      Queue.push j q
    end
  in
  while not (Queue.is_empty q) do
    let i = Queue.pop q in
    let d = dist.(i) in
    if i mod width > 0 then visit d (i - 1);
    if (i + 1) mod width > 0 then visit d (i + 1);
    visit d (i - width);
    visit d (i + width)
  done;
  Array.fold_left (fun (total, reached) d -> if d >= 0 then (total + d, reached + 1) else (total, reached)) (0, 0) dist
