//! Every table of the report as CSV and JSON beside `index.html`, for spreadsheets and
//! nightly scripts.

use crate::data::{ReportError, RunData};
use serde_json::{json, Value};
use std::path::Path;

struct Table {
    name: String,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn num(v: f64) -> String {
    format!("{v}")
}

fn tables(data: &RunData) -> Vec<Table> {
    let mut out = vec![Table {
        name: "training-estimates".into(),
        header: [
            "benchmark",
            "compiler",
            "size",
            "samples",
            "ns_per_run",
            "ci_low",
            "ci_high",
            "r2",
            "minor_words_per_run",
            "major_words_per_run",
            "promoted_words_per_run",
            "minor_collections_per_run",
            "layout_spread_pct",
        ]
        .map(String::from)
        .to_vec(),
        rows: data
            .estimates
            .iter()
            .map(|e| {
                vec![
                    e.benchmark.clone(),
                    e.compiler.clone(),
                    e.size.to_string(),
                    e.samples.to_string(),
                    num(e.ns_per_run.estimate),
                    num(e.ns_per_run.ci_low),
                    num(e.ns_per_run.ci_high),
                    num(e.r2),
                    num(e.minor_words_per_run),
                    num(e.major_words_per_run),
                    num(e.promoted_words_per_run),
                    num(e.minor_collections_per_run),
                    num(e.layout_spread_pct),
                ]
            })
            .collect(),
    }];
    for c in &data.compilers {
        let tag = rundir::tag(&c.name);
        if let Some(model) = &c.model {
            let mut rows = Vec::new();
            for (method, fit) in &model.methods {
                for (construct, t) in &fit.time_ns {
                    rows.push(vec![
                        construct.clone(),
                        method.name().into(),
                        num(t.estimate),
                        num(t.ci_low),
                        num(t.ci_high),
                        model
                            .memory_bytes
                            .get(construct)
                            .map_or(String::new(), |b| b.to_string()),
                    ]);
                }
            }
            out.push(Table {
                name: format!("costs-{tag}"),
                header: ["construct", "method", "ns", "ci_low", "ci_high", "bytes"]
                    .map(String::from)
                    .to_vec(),
                rows,
            });
        }
        if let Some(v) = &c.validation {
            let methods: Vec<fit::Method> = v.summary.methods.keys().copied().collect();
            let mut header: Vec<String> = [
                "program",
                "size",
                "measured_ns",
                "ci_low",
                "ci_high",
                "layout_spread_pct",
                "collects",
            ]
            .map(String::from)
            .to_vec();
            for m in &methods {
                header.push(format!("predicted_{}", m.name()));
                header.push(format!("error_pct_{}", m.name()));
            }
            header.extend(["working_set_words", "beyond_cache"].map(String::from));
            let rows = v
                .programs
                .iter()
                .map(|p| {
                    let mut row = vec![
                        p.program.clone(),
                        p.size.to_string(),
                        num(p.measured_ns.estimate),
                        num(p.measured_ns.ci_low),
                        num(p.measured_ns.ci_high),
                        num(p.layout_spread_pct),
                        p.collects.to_string(),
                    ];
                    for m in &methods {
                        row.push(p.predicted_ns.get(m).map_or(String::new(), |x| num(*x)));
                        row.push(p.error_pct.get(m).map_or(String::new(), |x| num(*x)));
                    }
                    match &p.allocation {
                        Some(a) => {
                            row.extend([num(a.working_set_words), a.beyond_cache().to_string()])
                        }
                        None => row.extend([String::new(), String::new()]),
                    }
                    row
                })
                .collect();
            out.push(Table {
                name: format!("validation-{tag}"),
                header,
                rows,
            });
            out.push(Table {
                name: format!("pairs-{tag}"),
                header: [
                    "pair",
                    "size",
                    "first",
                    "second",
                    "predicted_faster",
                    "measured_faster",
                    "predicted_ratio",
                    "measured_ratio",
                    "agree",
                ]
                .map(String::from)
                .to_vec(),
                rows: v
                    .pairs
                    .iter()
                    .map(|p| {
                        vec![
                            p.pair.clone(),
                            p.size.to_string(),
                            p.first.clone(),
                            p.second.clone(),
                            p.predicted_faster.clone(),
                            p.measured_faster.clone(),
                            num(p.predicted_ratio),
                            num(p.measured_ratio),
                            p.agree.to_string(),
                        ]
                    })
                    .collect(),
            });
        }
    }
    out
}

/// Writes `<table>.csv` and `<table>.json` for every table; returns their names for links.
pub fn write_exports(data: &RunData, dir: &Path) -> Result<Vec<Value>, ReportError> {
    let fail = |path: &Path, e: &dyn std::fmt::Display| ReportError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut written = Vec::new();
    for table in tables(data) {
        let csv_path = dir.join(format!("{}.csv", table.name));
        let mut w = csv::Writer::from_path(&csv_path).map_err(|e| fail(&csv_path, &e))?;
        w.write_record(&table.header)
            .map_err(|e| fail(&csv_path, &e))?;
        for row in &table.rows {
            w.write_record(row).map_err(|e| fail(&csv_path, &e))?;
        }
        w.flush().map_err(|e| fail(&csv_path, &e))?;
        let records: Vec<Value> = table
            .rows
            .iter()
            .map(|row| {
                Value::Object(
                    table
                        .header
                        .iter()
                        .cloned()
                        .zip(row.iter().map(|c| json!(c)))
                        .collect(),
                )
            })
            .collect();
        let json_path = dir.join(format!("{}.json", table.name));
        std::fs::write(
            &json_path,
            serde_json::to_string_pretty(&records).expect("rows serialise"),
        )
        .map_err(|e| fail(&json_path, &e))?;
        written.push(json!({"name": table.name, "rows": table.rows.len()}));
    }
    // The models as resource metrics for static analysers (method: NNLS, costs never negative).
    for c in &data.compilers {
        if let Some(model) = &c.model {
            let method = if model.methods.contains_key(&fit::Method::Nnls) {
                fit::Method::Nnls
            } else {
                *model.methods.keys().next().unwrap_or(&fit::Method::Ls)
            };
            let tag = rundir::tag(&c.name);
            let ml = dir.join(format!("metric-{tag}.ml"));
            std::fs::write(&ml, crate::metric::raml_metric(&c.name, model, method))
                .map_err(|e| fail(&ml, &e))?;
            let js = dir.join(format!("metric-{tag}.json"));
            std::fs::write(
                &js,
                serde_json::to_string_pretty(&crate::metric::json_metric(&c.name, model, method))
                    .expect("metric serialises"),
            )
            .map_err(|e| fail(&js, &e))?;
        }
    }
    Ok(written)
}
