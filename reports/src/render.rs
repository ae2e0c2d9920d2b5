//! The one Tera set-up of every HTML page: all templates compiled once, with the filters they
//! share, so a page cannot be rendered with a filter another page lacks.

use crate::data::ReportError;
use serde::Serialize;
use serde_json::Value;
use std::path::Path;
use std::sync::OnceLock;

const TEMPLATES: [(&str, &str); 3] = [
    ("report.html", include_str!("../templates/report.html.tera")),
    ("trend.html", include_str!("../templates/trend.html.tera")),
    (
        "compare.html",
        include_str!("../templates/compare.html.tera"),
    ),
];

fn tera() -> Result<&'static tera::Tera, ReportError> {
    static TERA: OnceLock<Result<tera::Tera, String>> = OnceLock::new();
    TERA.get_or_init(|| {
        let mut tera = tera::Tera::default();
        tera.add_raw_templates(TEMPLATES)
            .map_err(|e| format!("page templates: {e:?}"))?;
        tera.register_filter("ns", ns_filter);
        Ok(tera)
    })
    .as_ref()
    .map_err(|e| ReportError::Render(e.clone()))
}

/// Renders page `name` (one of the templates above) with `context` into `path`.
pub(crate) fn render_page<C: Serialize>(
    name: &str,
    context: &C,
    path: &Path,
) -> Result<(), ReportError> {
    let ctx = tera::Context::from_serialize(context)
        .map_err(|e| ReportError::Render(format!("{name}: {e}")))?;
    let html = tera()?
        .render(name, &ctx)
        .map_err(|e| ReportError::Render(format!("{name}: {e:?}")))?;
    std::fs::write(path, html).map_err(|e| ReportError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// `{{ x | ns }}`: Core_bench's time format.
fn ns_filter(value: &Value, _: &std::collections::HashMap<String, Value>) -> tera::Result<Value> {
    Ok(Value::String(
        value
            .as_f64()
            .map_or_else(String::new, crate::terminal::format_ns),
    ))
}
