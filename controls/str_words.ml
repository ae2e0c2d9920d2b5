(* mlcost-control
   description: words of a generated text with String.split_on_char; counts the non-empty ones, those containing 'e' (String.contains) and the vowels (String.iter), and joins the capitalised long words with String.concat
   sizes: 100 1000 10000 100000 1000000
*)

let input n =
  String.init n (fun i ->
      let k = (i * 7 + i / 3) mod 31 in
      if k >= 26 then ' ' else Char.chr (97 + k))

let is_vowel c = c = 'a' || c = 'e' || c = 'i' || c = 'o' || c = 'u'

let run s =
  let words = String.split_on_char ' ' s in
  let nonempty = List.filter (fun w -> String.length w > 0) words in
  let with_e = List.filter (fun w -> String.contains w 'e') nonempty in
  let vowels = ref 0 in
  String.iter (fun c -> if is_vowel c then incr vowels) s;
  let long = List.filter (fun w -> String.length w >= 6) nonempty in
  let joined = String.concat "," (List.map String.capitalize_ascii long) in
  (List.length nonempty, List.length with_e, !vowels, String.length joined)
