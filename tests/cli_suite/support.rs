//! What every test of `cli_suite` runs on: the workspace of a few built-in templates and
//! control programs, the `mlcost` binary run in it, and reading what it wrote.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

// `spill`: the others keep values across calls only in proportion to their calls, which
// would leave `Spill` inseparable from `FunApp`.
const TEMPLATES: [&str; 11] = [
    "base",
    "fapp",
    "fintadd",
    "cons",
    "fundef",
    "intsub",
    "intcondeq",
    "tailapp",
    "spill",
    // A product chain that binds beside independent products: without it `ChainCycle`
    // rests on one program and cannot be told from what that program runs.
    "intmult",
    // Tail calls through a code pointer without a closure built: `fundef` alone runs one
    // `IndirectJump` per `FunDef`.
    "indirect_jump",
];

pub fn mlcost(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mlcost"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("mlcost runs")
}

pub fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A workspace with a few built-in templates and three control programs, one of them broken.
pub fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let templates = dir.path().join("templates");
    std::fs::create_dir_all(&templates).unwrap();
    let builtin = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    for name in TEMPLATES {
        let file = format!("{name}.ml.tera");
        std::fs::copy(builtin.join(&file), templates.join(&file)).unwrap();
    }
    let controls = dir.path().join("controls");
    std::fs::create_dir_all(&controls).unwrap();
    std::fs::write(
        controls.join("sum.ml"),
        "(* mlcost-control\n   description: non-tail sum\n   sizes: 1000 4000 16000\n   pair: sums\n*)\n\
         let rec sum n = if n = 0 then 0 else n + sum (n - 1)\nlet input n = n\nlet run n = sum n\n",
    )
    .unwrap();
    std::fs::write(
        controls.join("sum_tr.ml"),
        "(* mlcost-control\n   description: tail-recursive sum\n   sizes: 1000 4000 16000\n   pair: sums\n*)\n\
         let rec go n acc = if n = 0 then acc else go (n - 1) (acc + n)\nlet input n = n\nlet run n = go n 0\n",
    )
    .unwrap();
    std::fs::write(
        controls.join("broken.ml"),
        "(* mlcost-control\n   description: does not parse\n   sizes: 10\n*)\nlet input n = n\nlet run n = (n +\n",
    )
    .unwrap();
    dir
}

pub fn suite_args<'a>(run: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "suite",
        "--quick",
        "--templates",
        "templates",
        "--no-builtin",
        "--controls",
        "controls",
        "--out",
        run,
        "--history",
        "history.sqlite",
        // valgrind's counts are tested once, by the compiler comparison below.
        "--no-instructions",
    ];
    args.extend_from_slice(extra);
    args
}

pub fn read(path: PathBuf) -> serde_json::Value {
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
