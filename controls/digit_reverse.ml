(* mlcost-control
   description: reverse the decimal digits of each integer 1..n with a while loop and count palindromes and reverse-sum parity
   sizes: 300 3000 50000
*)

let reverse_digits n =
  let r = ref 0 and m = ref n in
  while !m > 0 do
    r := !r * 10 + !m mod 10;
    m := !m / 10
  done;
  !r

let input n = n

let run n =
  let pal = ref 0 in
  let acc = ref 0 in
  for i = 1 to n do
    let r = reverse_digits i in
    if r = i then incr pal;
    acc := (!acc + r) land 0xFFFFFF
  done;
  (!pal, !acc)
