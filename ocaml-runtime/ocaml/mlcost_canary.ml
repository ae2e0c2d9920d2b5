(* The canary: a fixed calibration program that mlcost measures between the visits of a run.
   Its time per run should never change within a run, so its timeline shows when the machine
   itself was slow. It mixes what benchmark programs spend their time on — calls, integer and
   float arithmetic, branches, short-lived allocation — so that it slows down when they do. *)

let[@inline never] step acc i = acc +. (float_of_int (i land 1023) *. 0.5)

let rec mix i acc cells =
  if i = 0 then acc +. float_of_int (List.length cells)
  else
    let cells = if i land 15 = 0 then [ i ] else if i land 7 = 0 then i :: cells else cells in
    mix (i - 1) (step acc (i * 7 / 3)) cells

let input n = n

let run n = mix n 0.0 []
