//! Templates and their metadata. A template is a Tera file `<name>.ml.tera` whose first
//! comment `{# … #}` holds TOML front matter:
//!
//! ```toml
//! construct = "FunApp"            # the construct it stresses (required)
//! also = ["IntSub"]               # others it stresses on purpose
//! sizes = [1000, 2000]            # default: 1000, 2000, …, 20000
//! notes = "why it looks like this"
//! [[check]]                       # what the assembly must still show
//! function = "fapp"
//! calls = "id"                    # ≥ min calls to this function …
//! min = 4                         # and optionally max = N
//! why = "id was inlined: mark it [@inline never]"
//! [[variants]]                    # several programs from one template
//! name = "closure_fv3"
//! free_vars = 3                   # any key: available to the template
//! ```

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Where a template came from: embedded in mlcost, or a user directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "path", rename_all = "lowercase")]
pub enum Origin {
    Builtin(String),
    User(PathBuf),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Builtin(name) => write!(f, "templates/{name} (built-in)"),
            Origin::User(path) => write!(f, "{}", path.display()),
        }
    }
}

/// One assembly check (see the module doc). Exactly one of `calls`, `pattern`, `instruction`,
/// `allocates`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AsmCheck {
    /// The OCaml function whose code is inspected.
    pub function: String,
    /// Count calls (or tail jumps) to this OCaml function of the program.
    pub calls: Option<String>,
    /// Count instructions whose mnemonic matches this regex.
    pub pattern: Option<String>,
    /// Count instructions whose text, operands included, contains a match of this regex
    /// (a store to the stack frame, a call into the runtime).
    pub instruction: Option<String>,
    /// Count only past the first instruction whose mnemonic matches this regex: an order the
    /// template depends on (a field's load issued after the `imul`, not before).
    pub after: Option<String>,
    /// Require an allocation in the function.
    #[serde(default)]
    pub allocates: bool,
    #[serde(default = "one")]
    pub min: usize,
    /// At most this many (`max = 0` with `allocates`: the function must not allocate).
    pub max: Option<usize>,
    /// What it means when the check fails.
    pub why: Option<String>,
}

fn one() -> usize {
    1
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrontMatter {
    pub construct: String,
    #[serde(default)]
    pub also: Vec<String>,
    pub sizes: Option<Vec<u64>>,
    #[serde(default)]
    pub notes: String,
    #[serde(default, rename = "check")]
    pub checks: Vec<AsmCheck>,
    #[serde(default)]
    pub variants: Vec<toml::Table>,
}

#[derive(Debug, Clone)]
pub struct Template {
    /// File name without `.ml.tera`.
    pub name: String,
    pub origin: Origin,
    pub source: String,
}

/// A template that cannot be used; `line` is 0 when the position is not known.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateError {
    pub origin: String,
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}", self.origin, self.message),
            line => write!(f, "{}:{line}: {}", self.origin, self.message),
        }
    }
}

impl std::error::Error for TemplateError {}

pub const TEMPLATE_SUFFIX: &str = ".ml.tera";
/// Shared macros: not a program, imported by templates as `macros.tera`.
pub const MACRO_FILE: &str = "macros.tera";
/// A user template directory's own `macros.tera`, imported as `user_macros.tera`.
pub const USER_MACRO_FILE: &str = "user_macros.tera";

/// The default sizes: 1000, 2000, …, 20000.
pub fn default_sizes() -> Vec<u64> {
    (1..=20).map(|i| i * 1000).collect()
}

impl Template {
    /// The front matter, with errors pointing at the line inside the template.
    pub fn front_matter(&self) -> Result<FrontMatter, TemplateError> {
        let err = |line: usize, message: String| TemplateError {
            origin: self.origin.to_string(),
            line,
            message,
        };
        let start = self.source.find("{#").ok_or_else(|| {
            err(
                1,
                "no front matter: the template must start with a {# … #} TOML block".into(),
            )
        })?;
        let end = self.source[start..]
            .find("#}")
            .map(|e| start + e)
            .ok_or_else(|| {
                err(
                    line_of(&self.source, start),
                    "unterminated {# front matter".into(),
                )
            })?;
        let body = &self.source[start + 2..end];
        let first_line = line_of(&self.source, start);
        toml::from_str::<FrontMatter>(body).map_err(|e| {
            let line = e.span().map_or(first_line, |span| {
                first_line + body[..span.start].matches('\n').count()
            });
            err(line, format!("front matter: {}", e.message()))
        })
    }
}

fn line_of(text: &str, byte: usize) -> usize {
    text[..byte].matches('\n').count() + 1
}

/// Templates under `dir` (recursively), sorted by name; `macros.tera` is returned apart.
pub fn discover(dir: &Path) -> Result<(Vec<Template>, Option<String>), TemplateError> {
    let mut templates = Vec::new();
    let mut macros = None;
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| TemplateError {
            origin: dir.display().to_string(),
            line: 0,
            message: e.to_string(),
        })?;
        let path = entry.path();
        let Some(file) = path.file_name().and_then(|f| f.to_str()) else {
            continue;
        };
        let read = || {
            std::fs::read_to_string(path).map_err(|e| TemplateError {
                origin: path.display().to_string(),
                line: 0,
                message: e.to_string(),
            })
        };
        if file == MACRO_FILE {
            macros = Some(read()?);
        } else if let Some(name) = file.strip_suffix(TEMPLATE_SUFFIX) {
            templates.push(Template {
                name: name.to_string(),
                origin: Origin::User(path.to_path_buf()),
                source: read()?,
            });
        }
    }
    Ok((templates, macros))
}

static BUILTIN: include_dir::Dir<'_> =
    include_dir::include_dir!("$CARGO_MANIFEST_DIR/../templates");

/// The templates embedded in mlcost, and their macro file.
pub fn builtin() -> (Vec<Template>, String) {
    let mut templates: Vec<Template> = BUILTIN
        .files()
        .filter_map(|f| {
            let file = f.path().file_name()?.to_str()?;
            let name = file.strip_suffix(TEMPLATE_SUFFIX)?;
            Some(Template {
                name: name.to_string(),
                origin: Origin::Builtin(file.to_string()),
                source: f.contents_utf8()?.to_string(),
            })
        })
        .collect();
    templates.sort_by(|a, b| a.name.cmp(&b.name));
    let macros = BUILTIN
        .get_file(MACRO_FILE)
        .and_then(|f| f.contents_utf8())
        .unwrap_or_default()
        .to_string();
    (templates, macros)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(source: &str) -> Template {
        Template {
            name: "t".into(),
            origin: Origin::User("t.ml.tera".into()),
            source: source.into(),
        }
    }

    #[test]
    fn front_matter_parses_checks_and_variants() {
        let fm = template(
            "{#\nconstruct = \"FunApp\"\nsizes = [10, 20]\n[[check]]\nfunction = \"fapp\"\ncalls = \"id\"\nmin = 4\n[[variants]]\nname = \"a\"\nk = 1\n#}\nlet run x = x\n",
        )
        .front_matter()
        .unwrap();
        assert_eq!(fm.construct, "FunApp");
        assert_eq!(fm.sizes, Some(vec![10, 20]));
        assert_eq!(fm.checks[0].min, 4);
        assert_eq!(fm.variants[0]["k"].as_integer(), Some(1));
    }

    #[test]
    fn front_matter_errors_point_at_the_template_line() {
        let err = template("(* x *)\n{#\nconstruct = \"A\"\nsizes = [1,\n#}\n")
            .front_matter()
            .unwrap_err();
        assert!(err.line >= 4, "{err}");
        let err = template("let x = 1\n").front_matter().unwrap_err();
        assert!(err.message.contains("no front matter"), "{err}");
        let err = template("{#\nconstruct = \"A\"\nbogus = 1\n#}")
            .front_matter()
            .unwrap_err();
        assert!(err.message.contains("bogus"), "{err}");
    }

    #[test]
    fn builtin_templates_are_embedded_with_their_macros() {
        let (templates, macros) = builtin();
        assert!(templates.iter().any(|t| t.name == "fapp"));
        assert!(macros.contains("macro"));
    }
}
