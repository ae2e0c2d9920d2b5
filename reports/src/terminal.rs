//! The Core_bench-style table printed by `mlcost bench` and `mlcost suite`: one row per
//! (benchmark, size), time and words per run, R², the 95% interval of the time, and how far
//! the code layouts moved it.

use harness::Estimate;

/// Core_bench's time format: three significant digits with the unit that fits.
pub fn format_ns(ns: f64) -> String {
    let abs = ns.abs();
    let (value, unit) = if abs < 1e3 {
        (ns, "ns")
    } else if abs < 1e6 {
        (ns / 1e3, "us")
    } else if abs < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    format!("{value:.2}{unit}")
}

/// Core_bench's word format; blank when (to two decimals) nothing was allocated.
pub fn format_words(words: f64) -> String {
    let abs = words.abs();
    if abs < 0.005 {
        String::new()
    } else if abs < 1e3 {
        format!("{words:.2}w")
    } else if abs < 1e6 {
        format!("{:.2}kw", words / 1e3)
    } else {
        format!("{:.2}Mw", words / 1e6)
    }
}

/// Renders the table with box-drawing borders, numbers right-aligned.
pub fn table(estimates: &[Estimate]) -> String {
    let multi_compiler = estimates
        .iter()
        .any(|e| e.compiler != estimates[0].compiler);
    let header: Vec<String> = [
        "Name",
        "Time/Run",
        "mWd/Run",
        "mjWd/Run",
        "Prom/Run",
        "R²",
        "95% CI",
        "Layouts ±",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let rows: Vec<Vec<String>> = estimates
        .iter()
        .map(|e| {
            let name = if multi_compiler {
                format!("{}:{} [{}]", e.benchmark, e.size, e.compiler)
            } else {
                format!("{}:{}", e.benchmark, e.size)
            };
            vec![
                name,
                format_ns(e.ns_per_run.estimate),
                format_words(e.minor_words_per_run),
                format_words(e.major_words_per_run),
                format_words(e.promoted_words_per_run),
                format!("{:.4}", e.r2),
                format!(
                    "{} .. {}",
                    format_ns(e.ns_per_run.ci_low),
                    format_ns(e.ns_per_run.ci_high)
                ),
                if e.layouts.len() > 1 {
                    format!("{:.1}%", e.layout_spread_pct)
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    render(&header, &rows)
}

/// Per construct: each method's time with its interval, and the bytes per occurrence.
/// One line on the machine's state over a measurement: how often the canary found it
/// disturbed, and how many visits were left out for it.
pub fn machine_summary(condition: Option<&harness::canary::MachineCondition>) -> Option<String> {
    let c = condition?;
    let mut line = format!(
        "machine disturbed {:.1}% of the time ({} canary readings, quiet level {}); {} of {} visits left out",
        c.disturbed_pct,
        c.canary_readings,
        format_ns(c.quiet_ns_per_run),
        c.visits_left_out,
        c.visits
    );
    if c.biased() {
        line.push_str(&format!(
            "\nwarning: disturbed more than {:.0}% of the time, these estimates run slow for the machine, not the code (by up to a third for programs that use the core fully): compare them within this measurement, or measure again on a quieter machine",
            100.0 * harness::canary::BIASED_ABOVE
        ));
    }
    Some(line)
}

pub fn cost_table(model: &fit::CostModel) -> String {
    let methods: Vec<fit::Method> = model.methods.keys().copied().collect();
    let mut constructs: Vec<&String> = model
        .methods
        .values()
        .flat_map(|m| m.time_ns.keys())
        .collect();
    constructs.sort();
    constructs.dedup();
    crate::sort_by_catalogue(&mut constructs);
    let mut header = vec!["Construct".to_string()];
    for m in &methods {
        header.push(format!("{} ns", m.name().to_uppercase()));
        header.push(format!("{} 95% CI", m.name().to_uppercase()));
    }
    header.push("Bytes".into());
    let rows: Vec<Vec<String>> = constructs
        .iter()
        .map(|c| {
            let mut row = vec![c.to_string()];
            for m in &methods {
                match model.methods[m].time_ns.get(*c) {
                    Some(t) => {
                        row.push(format!("{:.3}", t.estimate));
                        row.push(format!("{:.3} .. {:.3}", t.ci_low, t.ci_high));
                    }
                    None => row.extend([String::new(), String::new()]),
                }
            }
            row.push(
                model
                    .memory_bytes
                    .get(*c)
                    .map_or(String::new(), |b| b.to_string()),
            );
            row
        })
        .collect();
    render(&header, &rows)
}

fn pct(value: Option<f64>) -> String {
    value.map_or("–".into(), |v| format!("{v:.2}%"))
}

/// The paper's Table 1: mean error per method without and with GC, and the layout spread
/// that bounds what any model can reach.
pub fn validation_table(v: &validation::Validation) -> String {
    let header: Vec<String> = ["Method", "Error, no GC", "Error, with GC", "Layout spread"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let rows: Vec<Vec<String>> = v
        .summary
        .methods
        .iter()
        .map(|(m, s)| {
            vec![
                m.name().to_uppercase(),
                pct(s.no_gc),
                pct(s.gc),
                format!("{:.2}%", v.summary.layout_spread_pct),
            ]
        })
        .collect();
    render(&header, &rows)
}

/// How well the interpreter's allocation matches the runtime's counters: exact words per run,
/// and the error of the predicted promoted words where collections happen.
pub fn memory_line(summary: &validation::Summary) -> Option<String> {
    let (exact, points) = summary.words_exact?;
    let mut line =
        format!("Memory: predicted words per run equal the measured at {exact} of {points} points");
    if let Some(e) = summary.promoted_error_pct {
        line.push_str(&format!(
            "; promoted words per run off by {e:.1}% (mean over programs that collect)"
        ));
    }
    Some(line)
}

/// The points whose run works in more memory than the modelled cache, and the errors
/// without them (see `validation::PointAllocation::beyond_cache`).
pub fn cache_line(summary: &validation::Summary) -> Option<String> {
    if summary.beyond_cache_points == 0 {
        return None;
    }
    let within: Vec<String> = summary
        .within_cache
        .iter()
        .map(|(m, s)| {
            format!(
                "{} {} / {}",
                m.name().to_uppercase(),
                pct(s.no_gc),
                pct(s.gc)
            )
        })
        .collect();
    Some(format!(
        "Beyond the modelled cache: {} of {} points work in more memory than it (their reads past it priced from the interpreter's model of the caches, FarLoad and FarStreamWord); without them: {}",
        summary.beyond_cache_points,
        summary.points,
        within.join(", ")
    ))
}

/// The qualitative pairs: which of two equivalent programs the model and the machine say is faster.
pub fn pairs_table(v: &validation::Validation) -> String {
    let header: Vec<String> = [
        "Pair",
        "Size",
        "Predicted faster",
        "Measured faster",
        "Measured ratio",
        "Agree",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let rows: Vec<Vec<String>> = v
        .pairs
        .iter()
        .map(|p| {
            vec![
                p.pair.clone(),
                p.size.to_string(),
                p.predicted_faster.clone(),
                p.measured_faster.clone(),
                format!("{:.2}", p.measured_ratio),
                if p.agree { "yes".into() } else { "NO".into() },
            ]
        })
        .collect();
    render(&header, &rows)
}

/// A fitted model as `mlcost fit` and `mlcost suite` print it: the cost table, then the design
/// and GC lines.
pub fn model_summary(name: &str, model: &fit::CostModel) -> String {
    let mut out = format!("\nCost model for {name} (ns per occurrence, bytes per occurrence):\n");
    out.push_str(&cost_table(model));
    let d = &model.diagnostics;
    out.push_str(&format!(
        "rank {}/{} constructs, condition number {:.1}, {} points from {} programs\n",
        d.rank, d.constructs, d.condition_number, d.points, d.programs
    ));
    if let Some(line) = time_model_line(model) {
        out.push_str(&line);
    }
    if let Some(line) = thin_support_line(&model.diagnostics) {
        out.push_str(&line);
    }
    if let Some(t) = model.gc.ns_per_minor_collection {
        out.push_str(&format!(
            "GC: minor heap {} bytes, {:.0} ns per minor collection (95% CI {:.0} .. {:.0})\n",
            model.gc.minor_heap_bytes, t.estimate, t.ci_low, t.ci_high
        ));
    }
    out
}

/// The constants that fewer than [`fit::WELL_SUPPORTED`] training programs stress, with those
/// programs: where one program's surroundings become a construct's price. `None` when every
/// constant is well supported (or the model predates the diagnostic).
pub fn thin_support_line(d: &fit::Diagnostics) -> Option<String> {
    let thin: Vec<String> = d
        .support
        .iter()
        .filter(|(construct, _)| d.is_thinly_supported(construct))
        .map(|(construct, programs)| match programs.is_empty() {
            true => format!("{construct} (none)"),
            false => format!("{construct} ({})", programs.join(", ")),
        })
        .collect();
    (!thin.is_empty()).then(|| {
        format!(
            "{} of {} constants rest on fewer than {} programs (each giving the construct a fifth of its time): {}\n",
            thin.len(),
            d.support.len(),
            fit::WELL_SUPPORTED,
            thin.join("; ")
        )
    })
}

/// What the structured model's constants rest on, and how it and the free fit predict the
/// training programs each left out (NNLS, or the first method fitted); `None` for a free model.
pub fn time_model_line(model: &fit::CostModel) -> Option<String> {
    let fit::TimeModel::Structured {
        ns_per_instruction,
        priced_apart,
        ..
    } = &model.time_model
    else {
        return None;
    };
    let (method, alpha) = ns_per_instruction
        .get_key_value(&fit::Method::Nnls)
        .or_else(|| ns_per_instruction.iter().next())?;
    let lopo = |d: &fit::Diagnostics| {
        d.lopo_error_pct
            .get(method)
            .copied()
            .flatten()
            .map_or("-".to_string(), |e| format!("{e:.1}%"))
    };
    let free_lopo = model
        .free
        .as_ref()
        .map_or("-".to_string(), |free| lopo(&free.diagnostics));
    Some(format!(
        "time model: ordinary constructs at {:.4} ns per instruction ({:.4} .. {:.4}, {method}) times their instructions, {} constructs priced apart; leave-one-program-out error {} ({} with one free constant per construct)\n",
        alpha.estimate,
        alpha.ci_low,
        alpha.ci_high,
        priced_apart.len(),
        lopo(&model.diagnostics),
        free_lopo,
    ))
}

/// A validation as `mlcost validate` and `mlcost suite` print it: the error table, then the
/// pairs when there are any.
pub fn validation_summary(name: &str, v: &validation::Validation) -> String {
    let mut out = format!(
        "\nValidation of {name} on {} control programs ({} points):\n",
        v.summary.programs, v.summary.points
    );
    out.push_str(&validation_table(v));
    for line in [memory_line(&v.summary), cache_line(&v.summary)]
        .into_iter()
        .flatten()
    {
        out.push_str(&line);
        out.push('\n');
    }
    if let Some(line) = machine_summary(v.machine.as_ref()) {
        out.push_str(&format!("measured on their own: {line}\n"));
    }
    if !v.pairs.is_empty() {
        out.push_str(&pairs_table(v));
    }
    out
}

/// The interpreter's counts of one run, construct by construct, then the result digest.
pub fn counts_table(result: &semantics::CountResult) -> String {
    let groups: std::collections::BTreeMap<&str, &str> = semantics::catalogue()
        .iter()
        .map(|c| (c.name, c.group))
        .collect();
    let width = result
        .counts
        .keys()
        .map(|k| k.len())
        .max()
        .unwrap_or(9)
        .max(9);
    let mut out = format!("{:<width$}  {:>8}  {:>14}\n", "Construct", "Group", "Count");
    for (name, count) in &result.counts {
        let group = groups.get(name.as_str()).copied().unwrap_or("");
        out.push_str(&format!("{name:<width$}  {group:>8}  {count:>14}\n"));
    }
    out.push_str(&format!("digest {}\n", result.digest));
    out
}

/// The runs on record, one line each.
pub fn history_runs(runs: &[history::RunRow], db: &std::path::Path) -> String {
    let mut out = String::new();
    for r in runs {
        out.push_str(&format!(
            "run {:>3}  {}  {}  ({} constants, {})\n",
            r.id,
            r.compilers.join(","),
            r.run_dir,
            r.constants,
            match r.instruction_constants {
                0 => "instructions not counted".to_string(),
                n => format!("{n} instruction constants"),
            }
        ));
    }
    out.push_str(&format!(
        "{} runs on record in {}\n",
        runs.len(),
        db.display()
    ));
    out
}

/// A construct's cost in every run on record, one line per (run, compiler): time with its
/// interval, and instructions where the run counted them ("-" where it did not).
pub fn history_trend(construct: &str, method: &str, points: &[history::TrendPoint]) -> String {
    let mut out = format!(
        "{construct} ({}): ns [95% interval], instructions\n",
        method.to_uppercase()
    );
    for p in points {
        let instructions = p
            .instructions
            .map_or("-".to_string(), |i| format!("{i:.2}"));
        out.push_str(&format!(
            "  run {:>3}  {:<12} {:>9.3}  [{:.3} .. {:.3}]  {:>10}  {}\n",
            p.run_id, p.compiler, p.estimate, p.ci_low, p.ci_high, instructions, p.run_dir
        ));
    }
    out
}

/// A box-drawn table: the first column left-aligned, the others right-aligned.
pub fn render(header: &[String], rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([header[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let rule = |l: &str, m: &str, r: &str| {
        let parts: Vec<String> = widths.iter().map(|w| "─".repeat(w + 2)).collect();
        format!("{l}{}{r}\n", parts.join(m))
    };
    let line = |cells: &[String], left_align_all: bool| {
        let parts: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, w))| {
                let pad = w - cell.chars().count();
                if c == 0 || left_align_all {
                    format!(" {cell}{} ", " ".repeat(pad))
                } else {
                    format!(" {}{cell} ", " ".repeat(pad))
                }
            })
            .collect();
        format!("│{}│\n", parts.join("│"))
    };
    let mut out = rule("┌", "┬", "┐");
    out.push_str(&line(header, true));
    out.push_str(&rule("├", "┼", "┤"));
    for row in rows {
        out.push_str(&line(row, false));
    }
    out.push_str(&rule("└", "┴", "┘"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_measurement_disturbed_most_of_the_time_is_flagged_beside_its_figures() {
        let mut condition = harness::canary::MachineCondition {
            disturbed_pct: 25.0,
            canary_readings: 174,
            quiet_ns_per_run: 7190.0,
            visits_left_out: 1990,
            visits: 8137,
        };
        let line = machine_summary(Some(&condition)).unwrap();
        assert!(
            line.starts_with("machine disturbed 25.0% of the time (174 canary readings")
                && line.contains("1990 of 8137 visits left out")
                && !line.contains("warning"),
            "{line}"
        );
        condition.disturbed_pct = 72.4;
        let line = machine_summary(Some(&condition)).unwrap();
        assert!(
            line.contains("\nwarning: disturbed more than 40% of the time"),
            "{line}"
        );
        assert!(machine_summary(None).is_none());
    }

    #[test]
    fn the_memory_line_says_how_many_points_are_exact_and_how_far_promotion_is() {
        let mut summary = validation::Summary {
            methods: Default::default(),
            layout_spread_pct: 10.0,
            programs: 3,
            points: 12,
            words_exact: Some((11, 12)),
            promoted_error_pct: Some(12.34),
            beyond_cache_points: 0,
            within_cache: Default::default(),
        };
        let line = memory_line(&summary).expect("a line");
        assert!(line.contains("11 of 12 points"), "{line}");
        assert!(line.contains("12.3%"), "{line}");
        summary.promoted_error_pct = None;
        assert!(!memory_line(&summary).unwrap().contains('%'));
        summary.words_exact = None;
        assert!(memory_line(&summary).is_none());
    }

    #[test]
    fn the_cache_line_names_the_points_beyond_it_and_the_errors_without_them() {
        let mut summary = validation::Summary {
            methods: Default::default(),
            layout_spread_pct: 10.0,
            programs: 3,
            points: 12,
            words_exact: None,
            promoted_error_pct: None,
            beyond_cache_points: 0,
            within_cache: [(
                fit::Method::Nnls,
                validation::MethodSummary {
                    no_gc: Some(9.87),
                    gc: None,
                },
            )]
            .into(),
        };
        assert!(cache_line(&summary).is_none());
        summary.beyond_cache_points = 4;
        let line = cache_line(&summary).expect("a line");
        assert!(line.contains("4 of 12 points"), "{line}");
        assert!(line.contains("NNLS 9.87%"), "{line}");
    }

    #[test]
    fn units_follow_core_bench() {
        assert_eq!(format_ns(3.014), "3.01ns");
        assert_eq!(format_ns(12_345.0), "12.35us");
        assert_eq!(format_ns(2.5e7), "25.00ms");
        assert_eq!(format_words(0.0), "");
        assert_eq!(format_words(3.0), "3.00w");
        assert_eq!(format_words(30_000.0), "30.00kw");
    }

    #[test]
    fn table_rows_line_up() {
        let text = render(
            &["Name".into(), "Time/Run".into()],
            &[
                vec!["fapp:1000".into(), "4.78us".into()],
                vec!["x:1".into(), "1.00ns".into()],
            ],
        );
        let widths: Vec<usize> = text.lines().map(|l| l.chars().count()).collect();
        assert!(widths.iter().all(|&w| w == widths[0]), "{text}");
        assert!(text.contains("│ fapp:1000 │   4.78us │"), "{text}");
    }

    #[test]
    fn the_history_trend_shows_instructions_beside_time() {
        let point = |run_id, instructions| history::TrendPoint {
            run_id,
            run_dir: format!("/runs/{run_id}"),
            started_unix: 0,
            compiler: "4.13.1".into(),
            version: "4.13.1".into(),
            estimate: 1.5,
            ci_low: 1.0,
            ci_high: 2.0,
            instructions,
        };
        let text = history_trend("Cons", "nnls", &[point(1, None), point(2, Some(24.0))]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].contains("ns [95% interval], instructions"),
            "{text}"
        );
        assert!(
            lines[1].contains("1.500") && lines[1].contains(" - "),
            "{text}"
        );
        assert!(lines[2].contains("24.00"), "{text}");
    }
}
