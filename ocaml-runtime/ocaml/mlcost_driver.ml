(* The mlcost driver, linked into every benchmark binary. It answers the harness's requests on
   a line protocol (ocaml-runtime/README.md): build the input for a size, time batches of
   [run], report Gc.quick_stat deltas, digest the result. *)

external now : unit -> (int[@untagged]) = "mlcost_now_byte" "mlcost_now" [@@noalloc]
external cpu_now : unit -> (int[@untagged]) = "mlcost_cpu_now_byte" "mlcost_cpu_now" [@@noalloc]
external digest_value : Obj.t -> string = "mlcost_digest"
external take_stdout : unit -> int = "mlcost_take_stdout"
external open_descriptor_out : int -> out_channel = "caml_ml_open_descriptor_out"

let protocol_version = 1

let one_line s = String.map (fun c -> if c = '\n' || c = '\r' then ' ' else c) s

let describe = function
  | Stack_overflow -> ("stack_overflow", "Stack_overflow")
  | Out_of_memory -> ("out_of_memory", "Out_of_memory")
  | e -> ("exception", one_line (Printexc.to_string e))

let main ~input ~run =
  let out = open_descriptor_out (take_stdout ()) in
  let reply s =
    output_string out s;
    output_char out '\n';
    flush out
  in
  let fail (kind, msg) = reply (Printf.sprintf "error %s %s" kind msg) in
  reply
    (Printf.sprintf "mlcost-driver %d word_size=%d minor_heap_words=%d ocaml=%s"
       protocol_version Sys.word_size (Gc.get ()).Gc.minor_heap_size Sys.ocaml_version);
  let current = ref None in
  (* Where the first batch after an input starts in the minor heap. [Gc.compact] empties it, so
     without this every visit that rebuilt its input started its first run at the same place,
     and a run allocating about a minor heap was collected at the same point of itself every
     time: [map] over 100 000 elements, its visits of 1 + 2 + 3 + 4 runs each starting empty,
     promoted 209 000 words a run where repeated runs promote 179 000. So after each rebuild the
     allocation pointer moves on by a fraction of the minor heap taken from the golden-ratio
     sequence (evenly spread, and the same in every process, so a run is reproducible), with
     garbage that [Bytes.create] leaves unwritten but for each block's header and last word. *)
  let rebuilds = ref 0 in
  let advance_minor_heap () =
    incr rebuilds;
    let fraction = Float.rem (float_of_int !rebuilds *. 0.6180339887498949) 1.0 in
    let target = int_of_float (fraction *. float_of_int (Gc.get ()).Gc.minor_heap_size) in
    (* Crossing the half-way trigger with the major GC idle (as it is after a compaction) may
       collect: the words since the last collection are what counts. *)
    let collections () = (Gc.quick_stat ()).Gc.minor_collections in
    let words () = int_of_float (Gc.minor_words ()) in
    let seen = ref (collections ()) and start = ref (words ()) in
    let since () = words () - !start in
    while target - since () >= 2 do
      (* a young block is at most 256 words plus its header *)
      let size = min (target - since () - 1) 256 in
      ignore (Sys.opaque_identity (Bytes.create ((size * 8) - 1)));
      let now = collections () in
      if now <> !seen then (
        seen := now;
        start := words ())
    done
  in
  (* The counters are read in an order that keeps the driver's own allocation (the quick_stat
     records) out of the deltas: minor words come from the unboxed Gc.minor_words, read after
     the first record exists and before the second is made. *)
  (* A function of its own, not inlined nor turned into a local jump, so that valgrind can
     count the instructions of exactly one batch (callgrind's --toggle-collect and
     --dump-after name it). *)
  let[@local never][@inline never] batch x k =
    let s0 = Gc.quick_stat () in
    let m0 = Gc.minor_words () in
    let c0 = cpu_now () in
    let t0 = now () in
    for _ = 1 to k do
      ignore (Sys.opaque_identity (run (Sys.opaque_identity x)))
    done;
    let t1 = now () in
    let c1 = cpu_now () in
    let m1 = Gc.minor_words () in
    let s1 = Gc.quick_stat () in
    reply
      (Printf.sprintf "sample %d %d %.0f %.0f %.0f %d %d %d %d" k (t1 - t0) (m1 -. m0)
         (s1.Gc.promoted_words -. s0.Gc.promoted_words)
         (s1.Gc.major_words -. s0.Gc.major_words)
         (s1.Gc.minor_collections - s0.Gc.minor_collections)
         (s1.Gc.major_collections - s0.Gc.major_collections)
         (s1.Gc.compactions - s0.Gc.compactions)
         (c1 - c0))
  in
  let handle line =
    match String.split_on_char ' ' (String.trim line) with
    | [ "size"; n ] -> (
        match int_of_string_opt n with
        | None -> fail ("protocol", "size expects an integer, got " ^ n)
        | Some n -> (
            current := None;
            Gc.compact ();
            let t0 = now () in
            match input n with
            | x ->
                let t1 = now () in
                (* A stable heap before the first batch, as Core_bench does per benchmark. *)
                Gc.compact ();
                advance_minor_heap ();
                current := Some x;
                reply (Printf.sprintf "ready %d %d" n (t1 - t0))
            | exception e ->
                let kind, msg = describe e in
                fail (kind, "in input: " ^ msg)))
    | [ "batch"; k ] -> (
        match (!current, int_of_string_opt k) with
        | None, _ -> fail ("protocol", "batch before size")
        | _, None -> fail ("protocol", "batch expects an integer, got " ^ k)
        | Some _, Some k when k < 0 -> fail ("protocol", "negative batch")
        | Some x, Some k -> (
            match batch x k with () -> () | exception e -> fail (describe e)))
    | [ "digest" ] -> (
        match !current with
        | None -> fail ("protocol", "digest before size")
        | Some x -> (
            match run x with
            | r -> reply ("digest " ^ digest_value (Obj.repr r))
            | exception e -> fail (describe e)))
    | [ "quit" ] -> exit 0
    | _ -> fail ("protocol", "unknown request: " ^ one_line line)
  in
  let rec loop () =
    match input_line stdin with
    | exception End_of_file -> ()
    | line ->
        handle line;
        loop ()
  in
  loop ()
