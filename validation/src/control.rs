//! Control programs: OCaml files of the benchmark shape whose first comment is
//!
//! ```text
//! (* mlcost-control
//!    description: insertion sort of a pseudo-random int list
//!    sizes: 30 50 100 200
//!    pair: fact-vs-tailfact        (optional: two programs with one pair name are compared)
//! *)
//! ```

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControlProgram {
    pub name: String,
    pub path: PathBuf,
    pub description: String,
    pub sizes: Vec<u64>,
    pub pair: Option<String>,
}

/// A control program that cannot be used, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub program: String,
    pub reason: String,
}

const MARKER: &str = "(* mlcost-control";

/// Reads the metadata block of one control program.
pub fn parse_control(path: &Path, source: &str) -> Result<ControlProgram, String> {
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or_else(|| format!("{}: not a file name", path.display()))?
        .to_string();
    let start = source
        .find(MARKER)
        .ok_or_else(|| format!("{}:1: no `{MARKER}` metadata comment", path.display()))?;
    let body_start = start + MARKER.len();
    let end = source[body_start..]
        .find("*)")
        .map(|e| body_start + e)
        .ok_or_else(|| format!("{}: unterminated metadata comment", path.display()))?;
    let first_line = source[..start].matches('\n').count() + 1;
    let (mut description, mut sizes, mut pair) = (None, None, None);
    for (i, line) in source[body_start..end].lines().enumerate() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "description" => description = Some(value.to_string()),
            "pair" if !value.is_empty() => pair = Some(value.to_string()),
            "sizes" => {
                let parsed: Result<Vec<u64>, _> =
                    value.split_whitespace().map(str::parse).collect();
                sizes = Some(parsed.map_err(|_| {
                    format!(
                        "{}:{}: sizes must be whole numbers: {value:?}",
                        path.display(),
                        first_line + i
                    )
                })?);
            }
            _ => {}
        }
    }
    let sizes = sizes.filter(|s| !s.is_empty()).ok_or_else(|| {
        format!(
            "{}:{first_line}: the metadata has no `sizes:`",
            path.display()
        )
    })?;
    Ok(ControlProgram {
        name,
        path: path.to_path_buf(),
        description: description.unwrap_or_default(),
        sizes,
        pair,
    })
}

/// Every `*.ml` under `dir`, sorted; files without usable metadata are skipped with a reason.
pub fn discover(dir: &Path) -> Result<(Vec<ControlProgram>, Vec<Skipped>), String> {
    if !dir.is_dir() {
        return Err(format!(
            "{}: no such directory of control programs",
            dir.display()
        ));
    }
    let (mut programs, mut skipped) = (Vec::new(), Vec::new());
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| e.to_string())?;
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("ml") {
            continue;
        }
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let parsed = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: {e}", path.display()))
            .and_then(|source| parse_control(path, &source));
        match parsed {
            Ok(program)
                if programs
                    .iter()
                    .any(|p: &ControlProgram| p.name == program.name) =>
            {
                skipped.push(Skipped {
                    program: name,
                    reason: format!("{}: another control program has this name", path.display()),
                })
            }
            Ok(program) => programs.push(program),
            Err(reason) => skipped.push(Skipped {
                program: name,
                reason,
            }),
        }
    }
    Ok((programs, skipped))
}

/// At most `k` of `sizes`, evenly spread and always keeping the smallest and largest: how a
/// quick run samples a program's sizes.
pub fn spread_sizes(sizes: &[u64], k: usize) -> Vec<u64> {
    if k == 0 || sizes.len() <= k {
        return sizes.to_vec();
    }
    if k == 1 {
        return vec![sizes[sizes.len() - 1]];
    }
    let mut picked: Vec<u64> = (0..k)
        .map(|i| sizes[i * (sizes.len() - 1) / (k - 1)])
        .collect();
    picked.dedup();
    picked
}

static BUILTIN: include_dir::Dir<'_> = include_dir::include_dir!("$CARGO_MANIFEST_DIR/../controls");

/// Writes the control corpus embedded in mlcost (`controls/` of its source) into `dir`, so a
/// run needs no checkout; returns `dir`.
pub fn extract_builtin(dir: &Path) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    for file in BUILTIN.files() {
        if file.path().extension().and_then(|e| e.to_str()) == Some("ml") {
            std::fs::write(dir.join(file.path()), file.contents())?;
        }
    }
    Ok(dir.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_read_from_the_first_comment() {
        let src = "(* mlcost-control\n   description: insertion sort\n   sizes: 30 50 100\n   pair: sorts\n*)\nlet input n = n\n";
        let c = parse_control(Path::new("/x/isort.ml"), src).unwrap();
        assert_eq!(c.name, "isort");
        assert_eq!(c.sizes, vec![30, 50, 100]);
        assert_eq!(c.pair.as_deref(), Some("sorts"));
        assert_eq!(c.description, "insertion sort");
    }

    #[test]
    fn spread_sizes_keeps_the_ends() {
        let sizes: Vec<u64> = (1..=20).map(|i| i * 1000).collect();
        assert_eq!(spread_sizes(&sizes, 4), vec![1000, 7000, 13000, 20000]);
        assert_eq!(spread_sizes(&sizes[..3], 4), sizes[..3].to_vec());
    }

    #[test]
    fn bad_metadata_names_file_and_line() {
        let err =
            parse_control(Path::new("a.ml"), "(* mlcost-control\n sizes: 10 x\n*)").unwrap_err();
        assert!(
            err.contains("a.ml:2") && err.contains("whole numbers"),
            "{err}"
        );
        let err = parse_control(Path::new("b.ml"), "let input n = n").unwrap_err();
        assert!(err.contains("b.ml:1"), "{err}");
    }

    #[test]
    fn the_embedded_corpus_is_the_controls_directory_and_has_its_pairs() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = extract_builtin(tmp.path()).unwrap();
        let (programs, skipped) = discover(&dir).unwrap();
        assert!(skipped.is_empty(), "{skipped:?}");
        // Every program of controls/ is embedded and parses, and nothing else is.
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../controls");
        let mut expected: Vec<String> = std::fs::read_dir(&source)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "ml"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        expected.sort();
        let mut names: Vec<String> = programs.iter().map(|p| p.name.clone()).collect();
        names.sort();
        assert_eq!(names, expected);
        // The README's table says how many there are: the count it gives is this one.
        let readme =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
                .unwrap();
        let stated: usize = readme
            .lines()
            .find_map(|l| l.strip_prefix("| `controls/` | "))
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .expect("the README's row for controls/ starts with their count");
        assert_eq!(
            names.len(),
            stated,
            "the README's count of control programs"
        );
        for pair in [
            "fact-vs-tailfact",
            "append-one-vs-two",
            "array-sort-insertion-vs-selection",
            "pipeline-own-vs-stdlib",
        ] {
            let members = programs
                .iter()
                .filter(|p| p.pair.as_deref() == Some(pair))
                .count();
            assert_eq!(members, 2, "pair {pair}");
        }
    }
}
