//! The report's charts, as inline SVG strings drawn with plotters: time against batch size
//! for a training point (Core_bench's regression, with its fitted line), measured against
//! predicted time over sizes for a control program (the paper's Figure 2: quartile boxes and
//! min–max whiskers over code layouts, one line per method), and a construct's cost across runs.

use plotters::prelude::*;

const PALETTE: [RGBColor; 5] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
];

pub fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

fn span(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    if !lo.is_finite() || !hi.is_finite() {
        return (0.0, 1.0);
    }
    if hi <= lo {
        (lo - 1.0, hi + 1.0)
    } else {
        (lo, hi)
    }
}

type Plot<'a> = Result<(), Box<dyn std::error::Error + 'a>>;

/// The legend every chart with several series shows, upper left.
fn draw_legend<'a, DB: DrawingBackend + 'a, Coords: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, Coords>,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK.mix(0.2))
        .label_font(("sans-serif", 11))
        .draw()
        .map_err(|e| e.to_string())
}

/// Nanoseconds per batch against runs per batch, with the OLS line `intercept + slope·runs`.
pub fn batch_regression(
    title: &str,
    points: &[(f64, f64)],
    slope: f64,
    intercept: f64,
    r2: f64,
) -> String {
    let mut svg = String::new();
    let drawn: Plot = (|| {
        let root = SVGBackend::with_string(&mut svg, (340, 230)).into_drawing_area();
        root.fill(&WHITE)?;
        let (_, x_hi) = span(points.iter().map(|p| p.0));
        let (_, y_hi) = span(points.iter().map(|p| p.1));
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("{title}  (R² {r2:.4})"), ("sans-serif", 13))
            .margin(6)
            .x_label_area_size(28)
            .y_label_area_size(52)
            .build_cartesian_2d(0.0..x_hi * 1.02, 0.0..y_hi * 1.05)?;
        chart
            .configure_mesh()
            .x_labels(5)
            .x_desc("runs per batch")
            .y_desc("ns per batch")
            .y_label_formatter(&|v| format_si(*v))
            .x_label_formatter(&|v| format_si(*v))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        chart.draw_series(
            points
                .iter()
                .map(|&(x, y)| Circle::new((x, y), 2, colour(0).mix(0.6).filled())),
        )?;
        chart.draw_series(LineSeries::new(
            [(0.0, intercept), (x_hi, intercept + slope * x_hi)],
            colour(1).stroke_width(2),
        ))?;
        root.present()?;
        Ok(())
    })();
    drawn.map_or_else(|e| format!("<p>chart unavailable: {e}</p>"), |_| svg)
}

/// One size of a control program: the layout estimates (box and whiskers) and each method's
/// prediction.
pub struct SizePoint {
    pub size: f64,
    pub layouts: Vec<f64>,
    pub predicted: Vec<(String, f64)>,
}

fn quartiles(values: &[f64]) -> (f64, f64, f64, f64, f64) {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let q = |p: f64| {
        let pos = p * (v.len() - 1) as f64;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
    };
    (v[0], q(0.25), q(0.5), q(0.75), v[v.len() - 1])
}

/// Measured (quartile boxes, min–max whiskers over layouts) and predicted time per size.
pub fn measured_vs_predicted(title: &str, points: &[SizePoint]) -> String {
    let mut svg = String::new();
    let drawn: Plot = (|| {
        let root = SVGBackend::with_string(&mut svg, (340, 230)).into_drawing_area();
        root.fill(&WHITE)?;
        let (x_lo, x_hi) = span(points.iter().map(|p| p.size));
        let (_, y_hi) = span(points.iter().flat_map(|p| {
            p.layouts
                .iter()
                .copied()
                .chain(p.predicted.iter().map(|q| q.1))
        }));
        let pad = (x_hi - x_lo) * 0.06;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 13))
            .margin(6)
            .x_label_area_size(28)
            .y_label_area_size(52)
            .build_cartesian_2d((x_lo - pad)..(x_hi + pad), 0.0..y_hi * 1.08)?;
        chart
            .configure_mesh()
            .x_labels(5)
            .x_desc("size")
            .y_desc("ns per run")
            .y_label_formatter(&|v| format_si(*v))
            .x_label_formatter(&|v| format_si(*v))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        let half = pad * 0.35;
        for p in points.iter().filter(|p| !p.layouts.is_empty()) {
            let (min, q1, median, q3, max) = quartiles(&p.layouts);
            let c = colour(0);
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(p.size, min), (p.size, max)],
                c,
            )))?;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(p.size - half, q1), (p.size + half, q3)],
                c.mix(0.25).filled(),
            )))?;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(p.size - half, median), (p.size + half, median)],
                c.stroke_width(2),
            )))?;
        }
        let methods: Vec<String> = points
            .first()
            .map(|p| p.predicted.iter().map(|q| q.0.clone()).collect())
            .unwrap_or_default();
        for (i, method) in methods.iter().enumerate() {
            let line: Vec<(f64, f64)> = points
                .iter()
                .filter_map(|p| {
                    p.predicted
                        .iter()
                        .find(|q| &q.0 == method)
                        .map(|q| (p.size, q.1))
                })
                .collect();
            chart
                .draw_series(LineSeries::new(line, colour(i + 1).stroke_width(2)))?
                .label(method.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 14, y)], colour(i + 1).stroke_width(2))
                });
        }
        draw_legend(&mut chart)?;
        root.present()?;
        Ok(())
    })();
    drawn.map_or_else(|e| format!("<p>chart unavailable: {e}</p>"), |_| svg)
}

/// (run index, estimate, ci_low, ci_high)
pub type TrendPoint = (f64, f64, f64, f64);

/// One line per series (e.g. per compiler) of trend points, in `unit` (ns or instructions).
pub fn trend(title: &str, unit: &str, series: &[(String, Vec<TrendPoint>)]) -> String {
    let mut svg = String::new();
    let drawn: Plot = (|| {
        let root = SVGBackend::with_string(&mut svg, (420, 240)).into_drawing_area();
        root.fill(&WHITE)?;
        let (x_lo, x_hi) = span(series.iter().flat_map(|s| s.1.iter().map(|p| p.0)));
        let (_, y_hi) = span(series.iter().flat_map(|s| s.1.iter().map(|p| p.3)));
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 13))
            .margin(6)
            .x_label_area_size(28)
            .y_label_area_size(52)
            .build_cartesian_2d((x_lo - 0.5)..(x_hi + 0.5), 0.0..(y_hi * 1.1).max(1e-9))?;
        chart
            .configure_mesh()
            .x_labels(5)
            .x_desc("run")
            .y_desc(unit)
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        for (i, (name, points)) in series.iter().enumerate() {
            let c = colour(i);
            for &(x, _, lo, hi) in points {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(x, lo), (x, hi)],
                    c.mix(0.6),
                )))?;
            }
            chart
                .draw_series(LineSeries::new(
                    points.iter().map(|p| (p.0, p.1)),
                    c.stroke_width(2),
                ))?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 14, y)], c.stroke_width(2))
                });
            chart.draw_series(
                points
                    .iter()
                    .map(|p| Circle::new((p.0, p.1), 3, c.filled())),
            )?;
        }
        draw_legend(&mut chart)?;
        root.present()?;
        Ok(())
    })();
    drawn.map_or_else(|e| format!("<p>chart unavailable: {e}</p>"), |_| svg)
}

/// The canary's time per run over the run's wall time (seconds from its first reading):
/// readings above `threshold` (the machine disturbed) in red, the typical level and the
/// threshold as horizontal lines.
pub fn canary_timeline(readings: &[(f64, f64)], typical: f64, threshold: f64) -> String {
    let mut svg = String::new();
    let drawn: Plot = (|| {
        let root = SVGBackend::with_string(&mut svg, (840, 220)).into_drawing_area();
        root.fill(&WHITE)?;
        let (x_lo, x_hi) = span(readings.iter().map(|r| r.0));
        let (_, y_hi) = span(readings.iter().map(|r| r.1).chain([threshold]));
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "canary: ns per run over the run (red: machine disturbed)",
                ("sans-serif", 13),
            )
            .margin(6)
            .x_label_area_size(28)
            .y_label_area_size(52)
            .build_cartesian_2d(x_lo..x_hi.max(x_lo + 1.0), 0.0..(y_hi * 1.1).max(1e-9))?;
        chart
            .configure_mesh()
            .x_labels(5)
            .x_desc("seconds")
            .y_desc("ns per run")
            .y_label_formatter(&|v| format_si(*v))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        for (level, style, name) in [
            (typical, colour(0).stroke_width(1), "typical (median)"),
            (threshold, colour(1).stroke_width(1), "disturbed above"),
        ] {
            chart
                .draw_series(LineSeries::new([(x_lo, level), (x_hi, level)], style))?
                .label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], style));
        }
        chart.draw_series(readings.iter().map(|&(x, y)| {
            let c = if y > threshold { colour(1) } else { colour(0) };
            Circle::new((x, y), 2, c.filled())
        }))?;
        draw_legend(&mut chart)?;
        root.present()?;
        Ok(())
    })();
    drawn.map_or_else(|e| format!("<p>chart unavailable: {e}</p>"), |_| svg)
}

/// The branch probe's walk: the share of its coin tosses lost at each walk length (log
/// scale), with half marked and the machine's and the model's kept tosses as vertical lines.
pub fn branch_memory(shares: &[(u64, f64)], kept: Option<f64>, model_kept: f64) -> String {
    let mut svg = String::new();
    let drawn: Plot = (|| {
        let root = SVGBackend::with_string(&mut svg, (840, 260)).into_drawing_area();
        root.fill(&WHITE)?;
        let (lo, hi) = span(shares.iter().map(|s| s.0 as f64).chain([model_kept]));
        let (lo, hi) = (lo.max(1.0), hi.max(lo.max(1.0) * 2.0));
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "branch probe: share of coin tosses lost by walk length",
                ("sans-serif", 13),
            )
            .margin(6)
            .x_label_area_size(28)
            .y_label_area_size(52)
            .build_cartesian_2d((lo..hi).log_scale(), 0.0..110.0)?;
        chart
            .configure_mesh()
            .x_labels(8)
            .x_desc("tosses in the walk")
            .y_desc("% lost")
            .x_label_formatter(&|v| format_si(*v))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        let half = colour(2).stroke_width(1);
        chart.draw_series(LineSeries::new([(lo, 50.0), (hi, 50.0)], half))?;
        let lines = [
            (Some(model_kept), colour(1), "the model"),
            (kept, colour(0), "this machine"),
        ];
        for (at, c, name) in lines {
            let Some(x) = at else { continue };
            let style = c.stroke_width(2);
            chart
                .draw_series(LineSeries::new([(x, 0.0), (x, 105.0)], style))?
                .label(format!("{name}: {x:.0}"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], style));
        }
        let points: Vec<(f64, f64)> = shares.iter().map(|&(n, s)| (n as f64, 100.0 * s)).collect();
        chart.draw_series(LineSeries::new(points.clone(), colour(0).stroke_width(1)))?;
        chart.draw_series(
            points
                .iter()
                .map(|&(x, y)| Circle::new((x, y), 3, colour(0).filled())),
        )?;
        draw_legend(&mut chart)?;
        root.present()?;
        Ok(())
    })();
    drawn.map_or_else(|e| format!("<p>chart unavailable: {e}</p>"), |_| svg)
}

/// 1.2k, 3.4M …: compact axis labels.
pub fn format_si(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.1}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else if a >= 10.0 || a == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_branch_chart_marks_both_figures() {
        let shares = [(2000, 0.0), (8000, 0.09), (16_000, 0.71), (128_000, 1.0)];
        let svg = branch_memory(&shares, Some(11_580.0), 10_950.0);
        assert!(
            svg.starts_with("<svg")
                && svg.contains("this machine: 11580")
                && svg.contains("the model: 10950"),
            "{svg}"
        );
        let unknown = branch_memory(&shares, None, 10_950.0);
        assert!(!unknown.contains("this machine"), "{unknown}");
    }
    #[test]
    fn charts_are_svg_with_their_titles() {
        let svg = batch_regression(
            "fapp:1000",
            &[(1.0, 10.0), (2.0, 19.0), (3.0, 31.0)],
            10.0,
            0.0,
            0.99,
        );
        assert!(
            svg.starts_with("<svg") && svg.contains("fapp:1000"),
            "{svg}"
        );
        let svg = measured_vs_predicted(
            "isort",
            &[SizePoint {
                size: 10.0,
                layouts: vec![1.0, 2.0, 3.0, 4.0],
                predicted: vec![("LS".into(), 2.5)],
            }],
        );
        assert!(svg.contains("<rect") && svg.contains("LS"), "{svg}");
        let svg = canary_timeline(&[(0.0, 100.0), (1.0, 101.0), (2.0, 190.0)], 100.0, 120.0);
        assert!(
            svg.contains("canary") && svg.contains("disturbed above"),
            "{svg}"
        );
        // The reading above the threshold is drawn red, like the threshold line and its legend.
        let calm = canary_timeline(&[(0.0, 100.0), (1.0, 101.0), (2.0, 110.0)], 100.0, 120.0);
        assert_eq!(
            svg.matches("#D62728").count(),
            calm.matches("#D62728").count() + 1,
            "{svg}"
        );
    }

    #[test]
    fn quartiles_of_four_layouts() {
        assert_eq!(
            quartiles(&[4.0, 1.0, 3.0, 2.0]),
            (1.0, 1.75, 2.5, 3.25, 4.0)
        );
    }
}
