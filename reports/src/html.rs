//! The HTML report of a run: one self-contained page (inline CSS and SVG, no network) written
//! to `RUN_DIR/report/index.html`, with every table also written beside it as CSV and JSON.
//! The page's context is typed: a field the template uses cannot silently go missing.

use crate::charts::{self, SizePoint};
use crate::data::{CompilerResults, ReportError, RunData};
use crate::export;
use harness::machine::Machine;
use harness::Estimate;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Serialize)]
struct ReportPage<'a> {
    mlcost_version: &'a str,
    date: String,
    machine: &'a Machine,
    settings: Settings,
    machine_state: Option<MachineState>,
    branch_memory: Option<BranchSection>,
    compilers: Vec<CompilerSection<'a>>,
    exports: Vec<Value>,
    /// The instructions section, rendered by `instructions_section`.
    instructions: String,
}

/// What the canary saw over the training measurement.
#[derive(Serialize)]
struct MachineState {
    readings: usize,
    typical_ns: f64,
    disturbed_above_pct: f64,
    disturbed_pct: f64,
    visits: usize,
    slow_visits: usize,
    slow_visits_pct: f64,
    svg: String,
}

fn machine_state(data: &RunData) -> Option<MachineState> {
    let timeline = data.canary.as_ref()?;
    let start = timeline.readings.first()?.at_ms;
    let points: Vec<(f64, f64)> = timeline
        .readings
        .iter()
        .map(|r| ((r.at_ms - start) as f64 / 1000.0, r.ns_per_run))
        .collect();
    let visits: usize = data.estimates.iter().map(|e| e.visits).sum();
    let slow_visits: usize = data.estimates.iter().map(|e| e.slow_machine_visits).sum();
    Some(MachineState {
        readings: timeline.readings.len(),
        typical_ns: timeline.typical_ns_per_run,
        disturbed_above_pct: 100.0 * harness::canary::DISTURBED_ABOVE,
        disturbed_pct: 100.0 * timeline.disturbed_fraction(),
        visits,
        slow_visits,
        slow_visits_pct: 100.0 * slow_visits as f64 / visits.max(1) as f64,
        svg: charts::canary_timeline(
            &points,
            timeline.typical_ns_per_run,
            timeline.threshold_ns_per_run,
        ),
    })
}

/// What the branch probe found, as the page shows it.
#[derive(Serialize)]
struct BranchSection {
    kept_tosses: Option<f64>,
    layout_range: Option<(f64, f64)>,
    model_kept_tosses: f64,
    scale: Option<f64>,
    longest: u64,
    disturbed_visits: usize,
    visits: usize,
    svg: String,
}

fn branch_section(data: &RunData) -> Option<BranchSection> {
    use semantics::branch_memory::MODEL_KEPT_TOSSES;
    let memory = data.branch_memory.as_ref()?;
    let svg = match memory.lost_shares() {
        Some(shares) => charts::branch_memory(&shares, memory.kept_tosses, MODEL_KEPT_TOSSES),
        None => String::new(),
    };
    Some(BranchSection {
        kept_tosses: memory.kept_tosses,
        layout_range: memory.layout_range(),
        model_kept_tosses: MODEL_KEPT_TOSSES,
        scale: memory.kept_tosses.map(|k| k / MODEL_KEPT_TOSSES),
        longest: memory.points.last().map_or(0, |p| p.tosses),
        disturbed_visits: memory.disturbed_visits,
        visits: memory.visits,
        svg,
    })
}

#[derive(Serialize)]
struct Settings {
    layouts: u32,
    quota_ms: u64,
    rounds: u32,
    growth: f64,
    pinned_cpu: Option<usize>,
    fixed_addresses: bool,
}

#[derive(Serialize)]
struct CompilerSection<'a> {
    name: &'a str,
    version: Option<&'a str>,
    path: Option<String>,
    flags: Option<String>,
    config: Option<&'a BTreeMap<String, String>>,
    model: Option<&'a fit::CostModel>,
    costs: Option<Vec<CostRow<'a>>>,
    /// How the time constants were fitted, when not one free constant per construct.
    time_model: Option<String>,
    validation: Option<&'a validation::Validation>,
    control_charts: Option<Vec<Chart<'a>>>,
    training_charts: Vec<Chart<'a>>,
    estimates: Vec<&'a Estimate>,
}

#[derive(Serialize)]
struct CostRow<'a> {
    construct: &'a str,
    group: &'static str,
    methods: Vec<MethodCost>,
    bytes: Option<&'a i64>,
    raw_bytes: Option<&'a f64>,
    vif: Option<&'a f64>,
    /// The training programs that stress the construct (a constant of its own only).
    support: Option<&'a Vec<String>>,
    /// Fewer of them than the fit calls well supported.
    thin: bool,
}

/// A method's cost of a construct; without an estimate when the method did not fit it (the
/// template tests `estimate is defined`).
#[derive(Serialize)]
struct MethodCost {
    method: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    estimate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ci_low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ci_high: Option<f64>,
}

#[derive(Serialize)]
struct Chart<'a> {
    program: &'a str,
    svg: String,
}

fn cost_rows(model: &fit::CostModel) -> Vec<CostRow<'_>> {
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
        .map(|name| CostRow {
            construct: name,
            group: semantics::construct(name).map_or("", |c| c.group),
            methods: model
                .methods
                .iter()
                .map(|(m, fit)| {
                    let t = fit.time_ns.get(name);
                    MethodCost {
                        method: m.name(),
                        estimate: t.map(|t| t.estimate),
                        ci_low: t.map(|t| t.ci_low),
                        ci_high: t.map(|t| t.ci_high),
                    }
                })
                .collect(),
            bytes: model.memory_bytes.get(name),
            raw_bytes: model.memory_fit.raw_bytes.get(name),
            vif: model.diagnostics.vif.get(name),
            support: model.diagnostics.support.get(name),
            thin: model.diagnostics.is_thinly_supported(name),
        })
        .collect()
}

fn control_charts<'a>(
    data: &RunData,
    compiler: &str,
    v: &'a validation::Validation,
) -> Result<Vec<Chart<'a>>, ReportError> {
    // Per-layout estimates of the controls live in the controls work directory; a validation
    // without them (measured elsewhere) is drawn from its interval alone.
    let layouts: Vec<Estimate> =
        rundir::read_optional(&data.dir.controls_work_dir(None, compiler).estimates_file())?
            .unwrap_or_default();
    let mut programs: Vec<&str> = v.programs.iter().map(|p| p.program.as_str()).collect();
    programs.dedup();
    Ok(programs
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
            Chart {
                program,
                svg: charts::measured_vs_predicted(program, &points),
            }
        })
        .collect())
}

fn training_charts<'a>(data: &'a RunData, compiler: &str) -> Vec<Chart<'a>> {
    // The largest size of each program, layout 0: the regression Core_bench would show.
    let mut largest: BTreeMap<&str, &Estimate> = BTreeMap::new();
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
                .filter(|s| {
                    s.benchmark == e.benchmark
                        && s.compiler == compiler
                        && s.size == e.size
                        && s.layout == layout.layout
                })
                .map(|s| (s.sample.runs as f64, s.sample.ns as f64))
                .collect();
            (!points.is_empty()).then(|| Chart {
                program: &e.benchmark,
                svg: charts::batch_regression(
                    &format!("{}:{}", e.benchmark, e.size),
                    &points,
                    layout.ns_per_run.estimate,
                    layout.intercept_ns,
                    layout.r2,
                ),
            })
        })
        .collect()
}

fn compiler_section<'a>(
    data: &'a RunData,
    c: &'a CompilerResults,
) -> Result<CompilerSection<'a>, ReportError> {
    let record = data
        .run
        .compilers
        .iter()
        .find(|r| r.compiler.name == c.name);
    Ok(CompilerSection {
        name: &c.name,
        version: record.map(|r| r.compiler.version.as_str()),
        path: record.map(|r| r.compiler.path.display().to_string()),
        flags: record.map(|r| r.flags.join(" ")),
        config: record.map(|r| &r.compiler.config),
        model: c.model.as_ref(),
        costs: c.model.as_ref().map(cost_rows),
        time_model: c.model.as_ref().and_then(crate::terminal::time_model_line),
        validation: c.validation.as_ref(),
        control_charts: c
            .validation
            .as_ref()
            .map(|v| control_charts(data, &c.name, v))
            .transpose()?,
        training_charts: training_charts(data, &c.name),
        estimates: data
            .estimates
            .iter()
            .filter(|e| e.compiler == c.name)
            .collect(),
    })
}

/// Renders `dir/report/index.html` (and the CSV/JSON exports beside it); returns its path.
pub fn write_report(dir: &std::path::Path) -> Result<PathBuf, ReportError> {
    let data = RunData::load(dir)?;
    let out_dir = data.dir.report_dir();
    std::fs::create_dir_all(&out_dir).map_err(|e| ReportError::Read {
        path: out_dir.clone(),
        message: e.to_string(),
    })?;
    let exports = export::write_exports(&data, &out_dir)?;
    let page = ReportPage {
        mlcost_version: &data.run.mlcost_version,
        date: crate::format_date(data.run.started_unix),
        machine: &data.run.machine,
        settings: Settings {
            layouts: data.run.layouts,
            quota_ms: data.run.quota_ms,
            rounds: data.run.rounds,
            growth: data.run.growth,
            pinned_cpu: data.run.pinned_cpu,
            fixed_addresses: data.run.fixed_addresses,
        },
        machine_state: machine_state(&data),
        branch_memory: branch_section(&data),
        compilers: data
            .compilers
            .iter()
            .map(|c| compiler_section(&data, c))
            .collect::<Result<_, _>>()?,
        exports,
        instructions: crate::instructions_section::section(&data),
    };
    let path = out_dir.join("index.html");
    crate::render::render_page("report.html", &page, &path)?;
    Ok(path)
}
