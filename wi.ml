let input n = ref 0.0
let run t = for i = 1 to 30 do t := !t +. float_of_int i done; !t
