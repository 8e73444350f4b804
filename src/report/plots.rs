//! SVG plots with `plotters` (SVG backend only, no system libraries): interval
//! panels (a point and its 95% interval per row, one panel per metric) and
//! distributions as lines.

use plotters::prelude::*;

/// One row of an interval panel: label, estimate, 95% interval.
pub struct Row {
    pub label: String,
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

/// A panel: a title, its rows and an optional reference line (0 for
/// differences, the fair share for win rates).
pub struct Panel {
    pub title: String,
    pub rows: Vec<Row>,
    pub reference: Option<f64>,
}

fn err(e: impl std::fmt::Display) -> String {
    format!("cannot draw plot: {e}")
}

/// Panels stacked vertically, each with its rows as points with interval bars.
pub fn interval_panels(title: &str, panels: &[Panel]) -> Result<String, String> {
    let panels: Vec<&Panel> = panels.iter().filter(|p| !p.rows.is_empty()).collect();
    let heights: Vec<u32> = panels
        .iter()
        .map(|p| 70 + 22 * p.rows.len() as u32)
        .collect();
    let total = 40 + heights.iter().sum::<u32>().max(60);
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, (820, total)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let root = root.titled(title, ("sans-serif", 18)).map_err(err)?;
        let mut rest = root;
        for (p, &h) in panels.iter().zip(&heights) {
            let (area, below) = rest.split_vertically(h);
            rest = below;
            let k = p.rows.len();
            let mut lo = p
                .rows
                .iter()
                .map(|r| r.lo)
                .chain(p.reference)
                .filter(|x| x.is_finite())
                .fold(f64::INFINITY, f64::min);
            let mut hi = p
                .rows
                .iter()
                .map(|r| r.hi)
                .chain(p.reference)
                .filter(|x| x.is_finite())
                .fold(f64::NEG_INFINITY, f64::max);
            if !lo.is_finite() || !hi.is_finite() {
                lo = -1.0;
                hi = 1.0;
            }
            let pad = ((hi - lo) * 0.08).max(1e-9);
            let (lo, hi) = (lo - pad, hi + pad);
            let labels: Vec<String> = p.rows.iter().map(|r| r.label.clone()).collect();
            let mut chart = ChartBuilder::on(&area)
                .caption(&p.title, ("sans-serif", 14))
                .margin(6)
                .x_label_area_size(24)
                .y_label_area_size(230)
                .build_cartesian_2d(lo..hi, (0..k).into_segmented())
                .map_err(err)?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_labels(k)
                .y_label_formatter(&|v| match v {
                    SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
                        labels.get(*i).cloned().unwrap_or_default()
                    }
                    SegmentValue::Last => String::new(),
                })
                .x_labels(7)
                .draw()
                .map_err(err)?;
            if let Some(r) = p.reference {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(r, SegmentValue::Exact(0)), (r, SegmentValue::Last)],
                        BLACK.mix(0.5),
                    )))
                    .map_err(err)?;
            }
            let color = RGBColor(31, 119, 180);
            chart
                .draw_series(
                    p.rows
                        .iter()
                        .enumerate()
                        .filter(|(_, r)| r.lo.is_finite())
                        .map(|(i, r)| {
                            PathElement::new(
                                vec![
                                    (r.lo, SegmentValue::CenterOf(i)),
                                    (r.hi, SegmentValue::CenterOf(i)),
                                ],
                                color.stroke_width(2),
                            )
                        }),
                )
                .map_err(err)?;
            chart
                .draw_series(p.rows.iter().enumerate().map(|(i, r)| {
                    Circle::new((r.value, SegmentValue::CenterOf(i)), 4, color.filled())
                }))
                .map_err(err)?;
        }
        rest.present().map_err(err)?;
    }
    Ok(s)
}

/// Distributions as lines: for each series `(name, points (x, share))`.
pub fn lines(
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> Result<String, String> {
    let xmax = series
        .iter()
        .flat_map(|(_, v)| v.iter().map(|p| p.0))
        .fold(1.0f64, f64::max);
    let ymax = series
        .iter()
        .flat_map(|(_, v)| v.iter().map(|p| p.1))
        .fold(1e-9f64, f64::max);
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, (820, 480)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..xmax, 0.0..ymax * 1.05)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .draw()
            .map_err(err)?;
        for (i, (name, pts)) in series.iter().enumerate() {
            let c = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))
                .map_err(err)?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(s)
}
