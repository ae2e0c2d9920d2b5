//! The HTML report of a run: one self-contained page (inline CSS and SVG, no network) written
//! to `RUN_DIR/report/index.html`, with every table also written beside it as CSV and JSON.

use crate::charts::{self, SizePoint};
use crate::data::{ReportError, RunData};
use crate::export;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const TEMPLATE: &str = include_str!("../templates/report.html.tera");

fn cost_rows(model: &fit::CostModel) -> Vec<Value> {
    let mut names: Vec<&String> = model
        .methods
        .values()
        .flat_map(|m| m.time_ns.keys())
        .collect();
    names.sort();
    names.dedup();
    crate::sort_by_catalogue(&mut names);
    names
        .into_iter()
        .map(|name| {
            let methods: Vec<Value> = model
                .methods
                .iter()
                .map(|(m, fit)| match fit.time_ns.get(name) {
                    Some(t) => json!({"method": m.name(), "estimate": t.estimate, "ci_low": t.ci_low, "ci_high": t.ci_high}),
                    None => json!({"method": m.name()}),
                })
                .collect();
            json!({
                "construct": name,
                "group": semantics::construct(name).map_or("", |c| c.group),
                "methods": methods,
                "bytes": model.memory_bytes.get(name),
                "raw_bytes": model.memory_fit.raw_bytes.get(name),
                "vif": model.diagnostics.vif.get(name),
            })
        })
        .collect()
}

fn control_charts(data: &RunData, compiler: &str, v: &validation::Validation) -> Vec<Value> {
    // Per-layout estimates of the controls live in the controls work directory.
    let path = data
        .dir
        .join("controls")
        .join(harness::bench::sanitize(compiler))
        .join("estimates.json");
    let layouts: Vec<harness::Estimate> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let mut programs: Vec<&str> = v.programs.iter().map(|p| p.program.as_str()).collect();
    programs.dedup();
    programs
        .into_iter()
        .map(|program| {
            let points: Vec<SizePoint> = v
                .programs
                .iter()
                .filter(|p| p.program == program)
                .map(|p| SizePoint {
                    size: p.size as f64,
                    layouts: layouts
                        .iter()
                        .find(|e| e.benchmark == program && e.size == p.size)
                        .map(|e| e.layouts.iter().map(|l| l.ns_per_run.estimate).collect())
                        .unwrap_or_else(|| {
                            vec![
                                p.measured_ns.ci_low,
                                p.measured_ns.estimate,
                                p.measured_ns.ci_high,
                            ]
                        }),
                    predicted: p
                        .predicted_ns
                        .iter()
                        .map(|(m, ns)| (m.name().to_uppercase(), *ns))
                        .collect(),
                })
                .collect();
            json!({"program": program, "svg": charts::measured_vs_predicted(program, &points)})
        })
        .collect()
}

fn training_charts(data: &RunData, compiler: &str) -> Vec<Value> {
    // The largest size of each program, layout 0: the regression Core_bench would show.
    let mut largest: BTreeMap<&str, &harness::Estimate> = BTreeMap::new();
    for e in data.estimates.iter().filter(|e| e.compiler == compiler) {
        let entry = largest.entry(e.benchmark.as_str()).or_insert(e);
        if e.size > entry.size {
            *entry = e;
        }
    }
    largest
        .values()
        .filter_map(|e| {
            let layout = e.layouts.first()?;
            let points: Vec<(f64, f64)> = data
                .samples
                .iter()
                .filter(|s| s.benchmark == e.benchmark && s.compiler == compiler && s.size == e.size && s.layout == layout.layout)
                .map(|s| (s.sample.runs as f64, s.sample.ns as f64))
                .collect();
            (!points.is_empty()).then(|| {
                json!({
                    "program": e.benchmark,
                    "svg": charts::batch_regression(&format!("{}:{}", e.benchmark, e.size), &points, layout.ns_per_run.estimate, layout.intercept_ns, layout.r2),
                })
            })
        })
        .collect()
}

fn compiler_section(data: &RunData, c: &crate::data::CompilerResults) -> Value {
    let record = data
        .run
        .compilers
        .iter()
        .find(|r| r.compiler.name == c.name);
    let estimates: Vec<&harness::Estimate> = data
        .estimates
        .iter()
        .filter(|e| e.compiler == c.name)
        .collect();
    json!({
        "name": c.name,
        "version": record.map(|r| r.compiler.version.clone()),
        "path": record.map(|r| r.compiler.path.display().to_string()),
        "flags": record.map(|r| r.flags.join(" ")),
        "config": record.map(|r| r.compiler.config.clone()),
        "model": c.model,
        "costs": c.model.as_ref().map(cost_rows),
        "validation": c.validation,
        "control_charts": c.validation.as_ref().map(|v| control_charts(data, &c.name, v)),
        "training_charts": training_charts(data, &c.name),
        "estimates": estimates,
    })
}

/// Renders `dir/report/index.html` (and the CSV/JSON exports beside it); returns its path.
pub fn write_report(dir: &Path) -> Result<PathBuf, ReportError> {
    let data = RunData::load(dir)?;
    let out_dir = dir.join("report");
    std::fs::create_dir_all(&out_dir).map_err(|e| ReportError::Read {
        path: out_dir.clone(),
        message: e.to_string(),
    })?;
    let exports = export::write_exports(&data, &out_dir)?;
    let context = json!({
        "mlcost_version": data.run.mlcost_version,
        "date": crate::format_date(data.run.started_unix),
        "machine": data.run.machine,
        "settings": {
            "layouts": data.run.layouts,
            "quota_ms": data.run.quota_ms,
            "rounds": data.run.rounds,
            "growth": data.run.growth,
            "pinned_cpu": data.run.pinned_cpu,
        },
        "compilers": data.compilers.iter().map(|c| compiler_section(&data, c)).collect::<Vec<_>>(),
        "exports": exports,
    });
    let mut tera = tera::Tera::default();
    tera.add_raw_template("report.html", TEMPLATE)
        .map_err(|e| ReportError::Render(format!("report template: {e:?}")))?;
    tera.register_filter("ns", ns_filter);
    let ctx = tera::Context::from_value(context).map_err(|e| ReportError::Render(e.to_string()))?;
    let html = tera
        .render("report.html", &ctx)
        .map_err(|e| ReportError::Render(format!("{e:?}")))?;
    let path = out_dir.join("index.html");
    std::fs::write(&path, html).map_err(|e| ReportError::Read {
        path: path.clone(),
        message: e.to_string(),
    })?;
    Ok(path)
}

/// `{{ x | ns }}`: Core_bench's time format.
fn ns_filter(value: &Value, _: &std::collections::HashMap<String, Value>) -> tera::Result<Value> {
    Ok(Value::String(
        value
            .as_f64()
            .map_or_else(String::new, crate::terminal::format_ns),
    ))
}
