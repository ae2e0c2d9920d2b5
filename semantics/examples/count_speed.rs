//! Counts a program outside criterion:
//! `cargo run --release -p semantics --example count_speed -- FILE SIZE [REPEATS]` prints the
//! count as JSON, then the constructs counted per second of wall time (on a busy machine, run
//! it under `perf stat` for CPU time).
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: count_speed FILE SIZE [REPEATS]");
        std::process::exit(2);
    }
    let size: i64 = args[2].parse().expect("SIZE is an integer");
    let repeats: u32 = args
        .get(3)
        .map(|r| r.parse().expect("REPEATS is an integer"))
        .unwrap_or(5);
    let program = semantics::Program::load(std::path::Path::new(&args[1])).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let start = std::time::Instant::now();
    let mut total = 0u64;
    let mut last = None;
    for _ in 0..repeats {
        let result = program.count(size).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(1)
        });
        total += result.counts.values().sum::<u64>();
        last = Some(result);
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::to_string(&last).expect("a count result serialises")
    );
    println!(
        "{total} constructs in {secs:.3} s: {:.1} M constructs/s",
        total as f64 / secs / 1e6
    );
}
