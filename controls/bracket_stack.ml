(* mlcost-control
   description: checks the nesting of a generated string of brackets with a Stack of the open ones (push, pop, top, is_empty, length), counting the deepest nesting and the mismatches
   sizes: 100 1000 10000 100000
*)

let input n =
  String.init n (fun i ->
      match (i * 7 + i / 5) mod 6 with
      | 0 | 1 -> '('
      | 2 -> '['
      | 3 | 4 -> ')'
      | _ -> ']')

let closes o c = (o = '(' && c = ')') || (o = '[' && c = ']')

let run s =
  let open_ = Stack.create () in
  let deepest = ref 0 and mismatched = ref 0 in
  String.iter
    (fun c ->
      if c = '(' || c = '[' then begin
        Stack.push c open_;
        if Stack.length open_ > !deepest then deepest := Stack.length open_
      end
      else if Stack.is_empty open_ then incr mismatched
      else if closes (Stack.top open_) c then ignore (Stack.pop open_)
      else incr mismatched)
    s;
  (!deepest, !mismatched, Stack.length open_)
