//! Interpreter speed in counted constructs per second (criterion reports it as the
//! "elements" throughput): the goal is at least 50 million per second on fapp-like code.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use semantics::Program;

/// As in the `mlcost` binary, which the interpreter's speed is measured for.
#[global_allocator]
static ALLOCATOR: semantics::allocator::Allocator = semantics::allocator::Allocator;

const PROGRAMS: &[(&str, &str, i64)] = &[
    (
        "fapp",
        "let[@inline never] id n = n
         let rec fapp x = if x = 0 then 0 else fapp (id (id (id (id (x - 1)))))
         let input n = n
         let run n = fapp n",
        200_000,
    ),
    (
        "fintadd",
        "let rec fintadd x = if x = 0 then 0 else x + x + x + x + fintadd (x - 1)
         let input n = n
         let run n = fintadd n",
        200_000,
    ),
    (
        "list_map_fold",
        "let rec map f = function [] -> [] | a :: l -> let r = f a in r :: map f l
         let rec fold_left f acc = function [] -> acc | a :: l -> fold_left f (f acc a) l
         let rec range i n = if i = n then [] else i :: range (i + 1) n
         let input n = range 0 n
         let run l = fold_left (fun a b -> a + b) 0 (map (fun x -> x * 2) l)",
        100_000,
    ),
    (
        "array_loop",
        "let input n = Array.make n 3
         let run (a : int array) =
           let s = ref 0 in
           for i = 0 to Array.length a - 1 do
             s := !s + a.(i);
             a.(i) <- !s land 7
           done;
           !s",
        200_000,
    ),
];

fn interp(c: &mut Criterion) {
    let mut group = c.benchmark_group("interp");
    group.sample_size(20);
    for &(name, source, size) in PROGRAMS {
        let program = Program::from_source(name, source).expect("benchmark programs load");
        // Constructs executed: not the cycles and instructions loops are charged with
        // (`ChainCycle`, `DividerCycle`, `CallShadow`), which are amounts, not events.
        let constructs: u64 = program
            .count(size)
            .expect("benchmark programs run")
            .counts
            .iter()
            .filter(|(name, _)| {
                ![
                    "ChainCycle",
                    "FloatMergeCycle",
                    "FloatChainCycle",
                    "DivisionChainCycle",
                    "ForwardChainCycle",
                    "DividerCycle",
                    "AllocWriteCycle",
                    "DivisionRampCycle",
                    "RampCycle",
                    "CallShadow",
                ]
                .contains(&name.as_str())
            })
            .map(|(_, n)| n)
            .sum();
        group.throughput(Throughput::Elements(constructs));
        group.bench_with_input(BenchmarkId::new(name, size), &size, |b, &size| {
            b.iter(|| program.count(size).expect("runs"))
        });
    }
    group.finish();
}

criterion_group!(benches, interp);
criterion_main!(benches);
