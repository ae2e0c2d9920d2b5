(* Strings, bytes and chars: literals, s.[i], String.length, ^, String.make, String.sub,
   Bytes.create/make/set/get/blit/fill/to_string/of_string, Char.code/chr, a caught
   out-of-bounds read, strings beyond Max_young_wosize, string comparison. *)
let input n = n

let run n =
  let b = Bytes.make (n + 1) 'a' in
  for i = 0 to n do Bytes.set b i (Char.chr (97 + i mod 26)) done;
  let s = Bytes.to_string b in
  let sum = ref 0 in
  for i = 0 to String.length s - 1 do sum := !sum + Char.code s.[i] done;
  let t = String.make (n mod 40) 'z' ^ "-" ^ s in
  let sub = String.sub t 0 (String.length t / 2) in
  let c = Bytes.of_string "hello" in
  Bytes.unsafe_set c 0 (Bytes.unsafe_get c 4);
  Bytes.fill c 1 2 '!';
  Bytes.blit c 0 c 1 3;
  let big = Bytes.create (2 * n) in
  Bytes.fill big 0 (2 * n) 'q';
  Bytes.blit_string s 0 big n (n + 1 - 1);
  let oob = try Char.code s.[n + 1] with Invalid_argument _ -> -1 in
  (!sum, t, sub, Bytes.to_string c, Bytes.length big, big, oob, s = t, "" ^ "", 'x')
