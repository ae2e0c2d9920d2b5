(* Strings and characters as data, string patterns, polymorphic equality on strings. *)
let name = function 0 -> "zero" | 1 -> "one" | 2 -> "two" | _ -> "many"

let rec names i = if i < 0 then [] else name (i mod 4) :: names (i - 1)

let rec count s = function [] -> 0 | x :: l -> (if x = s then 1 else 0) + count s l

let is_vowel = function 'a' | 'e' | 'i' | 'o' | 'u' -> true | _ -> false

let input n = names n

let run l =
  (count "two" l, "tab\t\"quoted\"\n", [ 'a'; '\n'; '\\' ], is_vowel 'e', match l with "zero" :: _ -> 0 | _ -> 1)
