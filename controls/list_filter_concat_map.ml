(* mlcost-control
   description: Stdlib-style filter_map and concat_map over an int list, summed with List.fold_left
   sizes: 200 2000 20000
*)

let filter_map f =
  let rec aux accu = function
    | [] -> List.rev accu
    | x :: l ->
      match f x with
      | None -> aux accu l
      | Some v -> aux (v :: accu) l
  in
  aux []

let concat_map f l =
  let rec aux f acc = function
    | [] -> List.rev acc
    | x :: l ->
      let xs = f x in
      aux f (List.rev_append xs acc) l
  in
  aux f [] l

let input n =
  let s = ref 5 in
  let rec build i acc =
    if i = 0 then acc
    else begin
      s := (!s * 1103515245 + 12345) land 0x3FFFFFFF;
      build (i - 1) ((!s lsr 10) mod 100 :: acc)
    end
  in
  build n []

let run xs =
  let small = filter_map (fun x -> if x < 40 then Some (x * 3) else None) xs in
  let expanded =
    concat_map (fun x -> if x mod 2 = 0 then [x; x + 1] else [x]) small
  in
  let sum = List.fold_left ( + ) 0 expanded in
  let cnt = List.fold_left (fun acc x -> if x land 1 = 1 then acc + 1 else acc) 0 expanded in
  (sum, cnt, List.length expanded)
