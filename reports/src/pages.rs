//! The pages besides the run report: the history trend page (each construct's cost across
//! runs, one line per compiler) and the comparison page of two models. Like the report, each
//! is one self-contained file.

use crate::charts;
use crate::compare::Comparison;
use crate::data::{ReportError, RunData};
use crate::render::render_page;
use history::{CompilerRun, Constant, History, RunRecord, ValidationRow};
use serde::Serialize;
use std::path::Path;

/// What the history keeps of a run.
/// Every compiler's instructions per construct, as the history keeps them.
fn instruction_constants(data: &RunData) -> Vec<history::InstructionConstant> {
    let mut out = Vec::new();
    for c in &data.compilers {
        let Some(model) = &c.model else { continue };
        for (method, fit) in &model.instructions {
            for (construct, k) in &fit.time_ns {
                out.push(history::InstructionConstant {
                    compiler: c.name.clone(),
                    method: method.name().into(),
                    construct: construct.clone(),
                    instructions: k.estimate,
                });
            }
        }
    }
    out
}

pub fn history_record(data: &RunData) -> RunRecord {
    let mut constants = Vec::new();
    let mut memory = Vec::new();
    let mut validation = Vec::new();
    for c in &data.compilers {
        if let Some(model) = &c.model {
            for (method, fit) in &model.methods {
                for (construct, k) in &fit.time_ns {
                    constants.push(Constant {
                        compiler: c.name.clone(),
                        method: method.name().into(),
                        construct: construct.clone(),
                        estimate: k.estimate,
                        ci_low: k.ci_low,
                        ci_high: k.ci_high,
                    });
                }
            }
            for (construct, bytes) in &model.memory_bytes {
                memory.push((c.name.clone(), construct.clone(), *bytes));
            }
        }
        if let Some(v) = &c.validation {
            for (method, s) in &v.summary.methods {
                validation.push(ValidationRow {
                    compiler: c.name.clone(),
                    method: method.name().into(),
                    error_no_gc_pct: s.no_gc,
                    error_gc_pct: s.gc,
                    layout_spread_pct: v.summary.layout_spread_pct,
                });
            }
        }
    }
    RunRecord {
        run_dir: std::path::absolute(&data.dir)
            .unwrap_or_else(|_| data.dir.path().to_path_buf())
            .display()
            .to_string(),
        started_unix: data.run.started_unix,
        mlcost_version: data.run.mlcost_version.clone(),
        machine: serde_json::to_value(&data.run.machine).unwrap_or_default(),
        compilers: data
            .run
            .compilers
            .iter()
            .map(|c| CompilerRun {
                name: c.compiler.name.clone(),
                version: c.compiler.version.clone(),
                flags: c.flags.join(" "),
                config: serde_json::to_value(&c.compiler.config).unwrap_or_default(),
            })
            .collect(),
        constants,
        memory,
        validation,
        instructions: instruction_constants(data),
    }
}

#[derive(Serialize)]
struct TrendPage<'a> {
    method: String,
    runs: Vec<TrendRun<'a>>,
    charts: Vec<TrendChart<'a>>,
}

#[derive(Serialize)]
struct TrendRun<'a> {
    index: usize,
    dir: &'a str,
    date: String,
    compilers: String,
}

#[derive(Serialize)]
struct TrendChart<'a> {
    construct: &'a str,
    svg: String,
    /// The same construct in instructions, when some run counted them.
    instructions_svg: Option<String>,
}

#[derive(Serialize)]
struct ComparePage<'a> {
    a: &'a str,
    b: &'a str,
    method: String,
    threshold: f64,
    noise: f64,
    summary: String,
    rows: Vec<CompareRow<'a>>,
    /// The forest plot (SVG) and the instruction comparison's line.
    forest: String,
    instructions_summary: String,
    instructions: &'a [crate::compare_instructions::InstructionChange],
    /// What may make a change not the compiler's: the machine's own speed, the counting rules.
    warnings: Vec<String>,
}

#[derive(Serialize)]
struct CompareRow<'a> {
    construct: &'a str,
    a: f64,
    a_lo: f64,
    a_hi: f64,
    b: f64,
    b_lo: f64,
    b_hi: f64,
    ratio: f64,
    ratio_lo: f64,
    ratio_hi: f64,
    change: f64,
    verdict: &'static str,
    regression: bool,
}

/// Writes the trend page of every construct in the history to `path`.
pub fn write_trend_page(history: &History, method: &str, path: &Path) -> Result<(), ReportError> {
    let fail = |e: history::HistoryError| ReportError::Render(e.to_string());
    let runs = history.runs().map_err(fail)?;
    let index_of = |id: i64| {
        runs.iter()
            .position(|r| r.id == id)
            .map_or(0.0, |i| i as f64 + 1.0)
    };
    let mut constructs = history.constructs().map_err(fail)?;
    crate::sort_by_catalogue(&mut constructs);
    let mut trend_charts = Vec::new();
    for construct in &constructs {
        let points = history.trend(construct, method).map_err(fail)?;
        type Series = std::collections::BTreeMap<String, Vec<charts::TrendPoint>>;
        let (mut series, mut instructions) = (Series::new(), Series::new());
        for p in &points {
            let name = format!("{} ({})", p.compiler, p.version);
            let x = index_of(p.run_id);
            series
                .entry(name.clone())
                .or_default()
                .push((x, p.estimate, p.ci_low, p.ci_high));
            if let Some(i) = p.instructions {
                instructions.entry(name).or_default().push((x, i, i, i));
            }
        }
        let series: Vec<(String, Vec<charts::TrendPoint>)> = series.into_iter().collect();
        let instructions: Vec<(String, Vec<charts::TrendPoint>)> =
            instructions.into_iter().collect();
        trend_charts.push(TrendChart {
            construct,
            svg: charts::trend(construct, "ns", &series),
            instructions_svg: (!instructions.is_empty()).then(|| {
                charts::trend(
                    &format!("{construct}: instructions"),
                    "instructions",
                    &instructions,
                )
            }),
        });
    }
    let page = TrendPage {
        method: method.to_uppercase(),
        runs: runs
            .iter()
            .enumerate()
            .map(|(i, r)| TrendRun {
                index: i + 1,
                dir: &r.run_dir,
                date: crate::format_date(r.started_unix),
                compilers: r.compilers.join(", "),
            })
            .collect(),
        charts: trend_charts,
    };
    render_page("trend.html", &page, path)
}

/// Writes the comparison page.
pub fn write_compare_page(cmp: &Comparison, path: &Path) -> Result<(), ReportError> {
    let page = ComparePage {
        a: &cmp.a,
        b: &cmp.b,
        method: cmp.method.name().to_uppercase(),
        threshold: cmp.threshold_pct,
        noise: cmp.noise_pct,
        summary: cmp.summary(),
        forest: crate::forest::forest(cmp),
        instructions_summary: crate::compare_instructions::instructions_summary(&cmp.instructions),
        instructions: &cmp.instructions,
        warnings: cmp
            .machine_warning()
            .into_iter()
            .chain(cmp.counting_warning.clone())
            .collect(),
        rows: cmp
            .constructs
            .iter()
            .map(|c| CompareRow {
                construct: &c.construct,
                a: c.a_ns,
                a_lo: c.a_ci.0,
                a_hi: c.a_ci.1,
                b: c.b_ns,
                b_lo: c.b_ci.0,
                b_hi: c.b_ci.1,
                ratio: c.ratio,
                ratio_lo: c.ratio_ci.0,
                ratio_hi: c.ratio_ci.1,
                change: c.change_pct,
                verdict: c.verdict.label(),
                regression: c.regression,
            })
            .collect(),
    };
    render_page("compare.html", &page, path)
}
