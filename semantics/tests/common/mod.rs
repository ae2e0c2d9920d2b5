//! Helpers shared by the hand-computed count tests.
#![allow(dead_code)]

use semantics::Program;
use std::collections::BTreeMap;

/// Constructs of the machine rather than of the source — what native code adds around calls
/// and branches, the collector's work, the chains loops carry. The source-level count tests
/// leave them out of their maps; `counts_calls.rs`, `counts_branches.rs`, `counts_cache.rs`,
/// `allocation.rs`, `counts_chain.rs` and `alloc_write.rs` pin them.
pub const MACHINE_LEVEL: [&str; 22] = [
    "DividerCycle",
    "AllocWriteCycle",
    "DivisionRampCycle",
    "RampCycle",
    "Spill",
    "Frame",
    "JumpMiss",
    "BranchMiss",
    "ReturnMiss",
    "FarLoad",
    "MemoryLoad",
    "FarStreamWord",
    "FarStackWord",
    "PromotedWord",
    "ScannedFrame",
    "MajorWord",
    "ChainCycle",
    "FloatMergeCycle",
    "FloatChainCycle",
    "DivisionChainCycle",
    "ForwardChainCycle",
    "CallShadow",
];

pub fn source_level(counts: BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    counts
        .into_iter()
        .filter(|(name, _)| !MACHINE_LEVEL.contains(&name.as_str()))
        .collect()
}

/// The message `source` is refused with when loaded as `bad.ml`; panics if it loads.
pub fn refusal(source: &str) -> String {
    Program::from_source("bad.ml", source)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_else(|| panic!("{source}: loads, but should be refused"))
}

/// The source-level counts of `run (input size)`.
pub fn count(source: &str, size: i64) -> BTreeMap<String, u64> {
    let program = Program::from_source("test.ml", source).unwrap_or_else(|e| panic!("{e}"));
    source_level(program.count(size).unwrap_or_else(|e| panic!("{e}")).counts)
}

/// How many times `run (input size)` of `source` counts `construct` (machine-level ones
/// included).
pub fn count_of(source: &str, size: i64, construct: &str) -> u64 {
    let program = Program::from_source("t.ml", source).unwrap_or_else(|e| panic!("{e}"));
    let counts = program.count(size).unwrap_or_else(|e| panic!("{e}")).counts;
    counts.get(construct).copied().unwrap_or(0)
}

/// `ChainCycle` and the kinds of chain cycle the fit prices apart
/// (`semantics/tests/counts_chain_kinds.rs`).
pub const CHAIN_KINDS: [&str; 5] = [
    "ChainCycle",
    "FloatMergeCycle",
    "FloatChainCycle",
    "DivisionChainCycle",
    "ForwardChainCycle",
];

/// Each of [`CHAIN_KINDS`]' counts over the six iterations between `size` and `size + 6`.
pub fn chain_kinds_per_six(source: &str, size: i64) -> [u64; 5] {
    CHAIN_KINDS.map(|kind| count_of(source, size + 6, kind) - count_of(source, size, kind))
}

/// `excess` sixths × the share `part / whole` of the chain, as the interpreter rounds them.
pub fn share_of(excess: u64, part: u64, whole: u64) -> u64 {
    excess * (part * 65536 / whole) / 65536
}

/// A loop's chain cycles beyond issue, whatever kind the fit prices them as: `ChainCycle` and
/// the kinds split off it (`semantics/tests/counts_chain_kinds.rs`).
pub fn chain_of(source: &str, size: i64) -> u64 {
    let program = Program::from_source("t.ml", source).unwrap_or_else(|e| panic!("{e}"));
    let counts = program.count(size).unwrap_or_else(|e| panic!("{e}")).counts;
    CHAIN_KINDS
        .iter()
        .map(|kind| counts.get(*kind).copied().unwrap_or(0))
        .sum()
}

/// Loops whose chains `counts_chain.rs` counts in total and `counts_chain_kinds.rs` by kind.
pub mod chains {
    /// A product `acc * n` down to 1: the multiply and `n - 1` carried, integers only.
    pub const PRODUCT: &str = "
let rec f n acc = if n = 0 then acc else f (n - 1) (acc * n)
let input n = n
let run n = f n 1";

    /// A Horner step: the boxed accumulator loaded, multiplied, added to, boxed again.
    pub const HORNER: &str = "
let rec coeffs n acc = if n = 0 then acc else coeffs (n - 1) (0.5 :: acc)
let input n = (0.9, coeffs n [])
let rec horner x cs acc = match cs with [] -> acc | c :: r -> horner x r (acc *. x +. c)
let run p = match p with (x, cs) -> horner x cs 0.0";

    /// Euclid's remainders for one pair after another.
    pub const GCD: &str = "
let rec gcd a b = if b = 0 then a else gcd b (a mod b)
let input n = n
let run n = let s = ref 0 in for i = 1 to n do s := !s + gcd (i * 7919) 1000 done; !s";

    /// A float reference summing a called function of `float_of_int i`.
    pub const FLOAT_OF_INT_SUM: &str = "
let[@inline never] f x = x *. 0.5
let input n = n
let run n = let s = ref 0.0 in for i = 1 to n do s := !s +. f (float_of_int i) done; !s";

    /// A linear recursion whose way back divides on the levels where `condition` holds.
    pub fn way_back_division(condition: &str) -> String {
        format!(
            "let rec f n m = if n = 0 then 1 else let h = f (n - 1) m in if {condition} then h / m + 1000 else h
let input n = n
let run n = f n 7"
        )
    }
}

/// A count map from pairs, leaving out zeros.
pub fn expect(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| (k.to_string(), *n))
        .collect()
}

/// The assembly `ocamlopt -inline 0 -S` writes for `source` compiled as module `module`
/// (`module.ml`).
pub fn assembly(module: &str, source: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(format!("{module}.ml")), source).unwrap();
    let status = std::process::Command::new("ocamlopt")
        .args(["-inline", "0", "-S", "-c", &format!("{module}.ml")])
        .current_dir(dir.path())
        .status()
        .expect("ocamlopt runs");
    assert!(status.success(), "ocamlopt compiles {module}.ml");
    std::fs::read_to_string(dir.path().join(format!("{module}.s"))).unwrap()
}

/// How many lines of `function`'s code, in the assembly `ocamlopt -inline 0 -S` writes for
/// `source` compiled as module `module`, `keep` accepts (each trimmed).
pub fn assembly_lines_in(
    module: &str,
    source: &str,
    function: &str,
    keep: impl Fn(&str) -> bool,
) -> usize {
    let label = format!("caml{}__{function}_", capitalised(module));
    assembly(module, source)
        .lines()
        .skip_while(|l| !(l.starts_with(&label) && l.ends_with(':')))
        .take_while(|l| !l.contains(".cfi_endproc"))
        .filter(|l| keep(l.trim()))
        .count()
}

fn capitalised(module: &str) -> String {
    let mut chars = module.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// Counts as name and number pairs in name order, as a count map lists them (zeros left out).
pub fn pairs(p: &[(&str, u64)]) -> Vec<(String, u64)> {
    expect(p).into_iter().collect()
}

/// Asserts that the interpreter's result digest of `source` (written to `file_name`) equals
/// the native binary's at each size.
pub fn assert_agrees_with_native(file_name: &str, source: &str, sizes: &[u64]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(file_name);
    std::fs::write(&path, source).unwrap();
    let native = ocaml_runtime::native_digests(&path, sizes).unwrap_or_else(|e| panic!("{e}"));
    let program = Program::load(&path).unwrap_or_else(|e| panic!("{e}"));
    for (size, digest) in sizes.iter().zip(native) {
        assert_eq!(
            program.count(*size as i64).unwrap().digest,
            digest,
            "{file_name} at size {size}"
        );
    }
}

/// Asserts that the interpreter's words per run of `source` equal the native runtime's
/// (minor and direct-major) at each of `sizes`.
pub fn assert_words_agree(name: &str, source: &str, sizes: &[u64]) {
    let program = Program::from_source(name, source).unwrap_or_else(|e| panic!("{e}"));
    for &size in sizes {
        let (minor, major) = native_words(source, size);
        assert_eq!(
            program.count(size as i64).unwrap().allocation.words,
            minor + major,
            "{name}: words at size {size}"
        );
    }
}

/// The minor words and the words allocated directly major by one native `run` of `source`
/// at `size` (Gc.counters around it, less the counters' own allocation).
pub fn native_words(source: &str, size: u64) -> (u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let driver = format!(
        "{source}\n\
         let () =\n\
         \x20 let x = input {size} in\n\
         \x20 let (m0, p0, j0) = Gc.counters () in\n\
         \x20 let r = Sys.opaque_identity (run x) in\n\
         \x20 let (m1, p1, j1) = Gc.counters () in\n\
         \x20 let (m2, _, _) = Gc.counters () in\n\
         \x20 ignore (Sys.opaque_identity r);\n\
         \x20 Printf.printf \"%.0f %.0f\" (m1 -. m0 -. (m2 -. m1)) ((j1 -. p1) -. (j0 -. p0))\n"
    );
    let path = dir.path().join("words.ml");
    std::fs::write(&path, driver).unwrap();
    let exe = dir.path().join("words");
    let built = std::process::Command::new("ocamlopt")
        .current_dir(dir.path())
        .args(["-o", "words", "words.ml"])
        .output()
        .expect("ocamlopt");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let out = std::process::Command::new(&exe).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut it = text.split(' ').map(|w| w.parse::<u64>().unwrap());
    (it.next().unwrap(), it.next().unwrap())
}
