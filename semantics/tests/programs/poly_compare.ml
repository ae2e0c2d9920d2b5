(* Structural comparison through the runtime, on the shapes the step count distinguishes:
   immediates, lists of different lengths, pairs, options, strings, floats with a NaN. *)
let rec range i n = if i = n then [] else i :: range (i + 1) n

let[@inline never] cmp a b = (compare a b, a = b, a < b, a <> b)

let input n = (range 0 n, range 0 (n / 2), n)

let run (l, h, n) =
  let nan = 0.0 /. 0.0 in
  ( cmp l h,
    cmp l l,
    cmp h l,
    cmp (n, l) (n, h),
    cmp (Some n) None,
    (cmp "abc" "abd", cmp [ 1.5; nan ] [ 1.5; nan ], cmp (nan, n) (nan, n + 1)),
    cmp [ (1, "a"); (n, "b") ] [ (1, "a"); (n, "c") ] )
