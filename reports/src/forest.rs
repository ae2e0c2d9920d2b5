//! The comparison page's forest plot: one row per construct, the time ratio B/A with its 95%
//! interval over a shaded noise band, and beside it the instruction ratio (exact: a marker, no
//! interval), so a change in time can be read against a change in the code.

use crate::compare::Comparison;
use plotters::prelude::*;
use std::collections::BTreeMap;

const TIME: RGBColor = RGBColor(31, 119, 180);
const INSTRUCTIONS: RGBColor = RGBColor(214, 39, 40);

/// The forest plot of `cmp` as an SVG string (a sentence instead if it cannot be drawn).
pub fn forest(cmp: &Comparison) -> String {
    let instructions: BTreeMap<&str, f64> = cmp
        .instructions
        .iter()
        .filter(|i| i.a.abs() > 0.0)
        .map(|i| (i.construct.as_str(), i.b / i.a))
        .collect();
    let rows: Vec<_> = cmp
        .constructs
        .iter()
        .filter(|c| c.ratio_ci.0.is_finite() && c.ratio_ci.1.is_finite())
        .collect();
    if rows.is_empty() {
        return "<p>no construct to compare</p>".to_string();
    }
    let lo = rows
        .iter()
        .map(|c| c.ratio_ci.0)
        .chain(instructions.values().copied())
        .fold(1.0 - cmp.noise_pct / 100.0, f64::min)
        .max(0.0);
    let hi = rows
        .iter()
        .map(|c| c.ratio_ci.1)
        .chain(instructions.values().copied())
        .fold(1.0 + cmp.noise_pct / 100.0, f64::max);
    let pad = (hi - lo).max(0.05) * 0.08;
    let n = rows.len() as f64;
    let mut svg = String::new();
    let drawn: Result<(), Box<dyn std::error::Error + '_>> = (|| {
        let height = 60 + 22 * rows.len() as u32;
        let root = SVGBackend::with_string(&mut svg, (640, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(110)
            .build_cartesian_2d((lo - pad)..(hi + pad), -0.5..(n - 0.5))?;
        let names: Vec<String> = rows.iter().map(|c| c.construct.clone()).collect();
        chart
            .configure_mesh()
            .x_desc("B / A")
            .y_labels(rows.len())
            .y_label_formatter(&|y: &f64| {
                let i = y.round();
                if (y - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
                    names[names.len() - 1 - i as usize].clone()
                } else {
                    String::new()
                }
            })
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        let band = cmp.noise_pct / 100.0;
        chart.draw_series(std::iter::once(Rectangle::new(
            [(1.0 - band, -0.5), (1.0 + band, n - 0.5)],
            BLACK.mix(0.08).filled(),
        )))?;
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(1.0, -0.5), (1.0, n - 0.5)],
            BLACK.mix(0.5),
        )))?;
        for (i, c) in rows.iter().enumerate() {
            let y = n - 1.0 - i as f64;
            let style = if c.regression { RED } else { TIME };
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(c.ratio_ci.0, y + 0.1), (c.ratio_ci.1, y + 0.1)],
                style.stroke_width(2),
            )))?;
            chart.draw_series(std::iter::once(Circle::new(
                (c.ratio, y + 0.1),
                4,
                style.filled(),
            )))?;
            if let Some(&r) = instructions.get(c.construct.as_str()) {
                chart.draw_series(std::iter::once(TriangleMarker::new(
                    (r, y - 0.15),
                    5,
                    INSTRUCTIONS.filled(),
                )))?;
            }
        }
        root.present()?;
        Ok(())
    })();
    drawn.map_or_else(|e| format!("<p>chart unavailable: {e}</p>"), |_| svg)
}
