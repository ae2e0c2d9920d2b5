//! The report's section on instructions per run: each compiler's instructions per construct,
//! the instruction model's error on the controls and the controls it misses (a miscounted or
//! unmodelled construct), or the one line saying instructions were not counted. Rendered here
//! as HTML so that the page's own context only gains one string.

use crate::data::RunData;
use std::fmt::Write;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The section's HTML.
pub fn section(data: &RunData) -> String {
    let mut html = String::from("<section id=\"instructions\"><h2>Instructions per run</h2>");
    if !data.dir.instructions_file().is_file() {
        html.push_str("<p>Instructions per run were not counted: valgrind is not installed (scripts/setup.sh installs it), or the run was made without --instructions.</p></section>");
        return html;
    }
    html.push_str("<p>Counted under valgrind (callgrind), a deterministic metric beside time; fitted on the same counts (docs/instructions.md).</p>");
    for c in &data.compilers {
        let Some(model) = &c.model else { continue };
        let Some(fit) = model.instructions.get(&fit::Method::Nnls) else {
            continue;
        };
        let _ = write!(
            html,
            "<h3>{}</h3><details><summary>Instructions per construct (NNLS; training error {:.1}%)</summary><table><tr><th>Construct</th><th>Instructions</th><th>ns</th></tr>",
            escape(&c.name),
            fit.training_error_pct
        );
        let time = model.methods.get(&fit::Method::Nnls);
        for (construct, k) in &fit.time_ns {
            let ns = time
                .and_then(|t| t.time_ns.get(construct))
                .map_or(String::from("-"), |t| format!("{:.3}", t.estimate));
            let _ = write!(
                html,
                "<tr><td>{}</td><td>{:.2}</td><td>{ns}</td></tr>",
                escape(construct),
                k.estimate
            );
        }
        html.push_str("</table></details>");
        let file = data.dir.instructions_validation_file(&c.name);
        let Some(v) = std::fs::read_to_string(&file)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        else {
            continue;
        };
        let errors = |key: &str| -> String {
            v[key]
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, e)| {
                            format!(
                                "{} {:.1}%",
                                k.to_uppercase(),
                                e.as_f64().unwrap_or(f64::NAN)
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default()
        };
        let _ = write!(
            html,
            "<p>On the controls: mean error without collections {}; with collections (promotion and major GC unmodelled) {}.</p>",
            errors("mean_error_pct"),
            errors("mean_error_pct_collecting")
        );
        let missed: Vec<String> = v["miscounted"]
            .as_array()
            .map(|a| a.iter().filter_map(|p| p.as_str()).map(escape).collect())
            .unwrap_or_default();
        if !missed.is_empty() {
            let _ = write!(
                html,
                "<p><strong>Miscounted or unmodelled construct</strong> (missed by more than 3% where nothing collects): {}</p>",
                missed.join(", ")
            );
        }
        located_table(&mut html, &v["located"]);
    }
    html.push_str("</section>");
    html
}

/// Where each miscounted control's miss lies: the function that misses most at its worst
/// point, measured against predicted, and what was counted there.
fn located_table(html: &mut String, located: &serde_json::Value) {
    let Some(rows) = located.as_array().filter(|a| !a.is_empty()) else {
        return;
    };
    html.push_str("<details><summary>Where the misses lie (the function that misses most, at each program's worst point; <code>mlcost explain RUN_DIR PROGRAM</code> shows them all)</summary><table><tr><th>Program</th><th>Size</th><th>Error</th><th>Function</th><th>Measured</th><th>Predicted</th><th>Counted there</th></tr>");
    for m in rows {
        let at = &m["at"];
        let counted: Vec<String> = at["constructs"]
            .as_array()
            .map(|cs| {
                cs.iter()
                    .take(3)
                    .map(|c| {
                        format!(
                            "{} {:.1}",
                            escape(c[0].as_str().unwrap_or("")),
                            c[1].as_f64().unwrap_or(0.0)
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let _ = write!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{:+.1}%</td><td>{}</td><td>{:.1}</td><td>{:.1}</td><td>{}</td></tr>",
            escape(m["program"].as_str().unwrap_or("")),
            m["size"],
            m["error_pct"].as_f64().unwrap_or(f64::NAN),
            escape(at["function"].as_str().unwrap_or("")),
            at["measured"].as_f64().unwrap_or(f64::NAN),
            at["predicted"].as_f64().unwrap_or(f64::NAN),
            counted.join(", ")
        );
    }
    html.push_str("</table></details>");
}
