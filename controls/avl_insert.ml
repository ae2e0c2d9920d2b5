(* mlcost-control
   description: insert pseudo-random keys into an AVL tree with rotations, then fold it in order and report height and checksum
   sizes: 40 400 3000
*)

type tree = Leaf | Node of tree * int * tree * int

let height = function Leaf -> 0 | Node (_, _, _, h) -> h

let create l v r =
  let hl = height l and hr = height r in
  Node (l, v, r, if hl >= hr then hl + 1 else hr + 1)

let bal l v r =
  let hl = height l and hr = height r in
  if hl > hr + 1 then
    match l with
    | Node (ll, lv, lr, _) ->
      if height ll >= height lr then create ll lv (create lr v r)
      else begin
        match lr with
        | Node (lrl, lrv, lrr, _) -> create (create ll lv lrl) lrv (create lrr v r)
        | Leaf -> invalid_arg "bal"
      end
    | Leaf -> invalid_arg "bal"
  else if hr > hl + 1 then
    match r with
    | Node (rl, rv, rr, _) ->
      if height rr >= height rl then create (create l v rl) rv rr
      else begin
        match rl with
        | Node (rll, rlv, rlr, _) -> create (create l v rll) rlv (create rlr rv rr)
        | Leaf -> invalid_arg "bal"
      end
    | Leaf -> invalid_arg "bal"
  else create l v r

let rec add x = function
  | Leaf -> Node (Leaf, x, Leaf, 1)
  | Node (l, v, r, _) as t ->
    let c = compare x v in
    if c = 0 then t
    else if c < 0 then bal (add x l) v r
    else bal l v (add x r)

let rec fold f t acc =
  match t with
  | Leaf -> acc
  | Node (l, v, r, _) -> fold f r (f v (fold f l acc))

let input n =
  let s = ref 7 in
  Array.init n (fun _ ->
    s := (!s * 1103515245 + 12345) land 0x3FFFFFFF;
    (!s lsr 5) mod (4 * n + 1))

let run keys =
  let t = ref Leaf in
  for i = 0 to Array.length keys - 1 do
    t := add keys.(i) !t
  done;
  let (cnt, sum) = fold (fun v (c, s) -> (c + 1, (s * 31 + v) land 0xFFFFFF)) !t (0, 0) in
  (height !t, cnt, sum)
