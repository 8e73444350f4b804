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

/// The size of every label and tick of a plot (`plotters` writes it as 0.81
/// times this in the SVG: 11.3 pixels): fixed, where `plotters` would scale
/// it with the panel's height (a panel of one row had labels 3 pixels high).
const LABEL: u32 = 14;
/// The most characters of a row's label drawn; a longer one is cut in the
/// middle with an ellipsis (its start and its end are what tell rows apart).
const LABEL_CHARS: usize = 56;

/// `label` cut to [`LABEL_CHARS`] characters, its middle left out.
fn short(label: &str) -> String {
    let n = label.chars().count();
    if n <= LABEL_CHARS {
        return label.to_string();
    }
    let keep = LABEL_CHARS - 1;
    let head: String = label.chars().take(keep / 2).collect();
    let tail: String = label.chars().skip(n - (keep - keep / 2)).collect();
    format!("{head}\u{2026}{tail}")
}

/// A tick's value with the decimals its axis's span needs (a seventh of it,
/// about the step between ticks, to one significant digit), never "-0".
fn tick(x: f64, span: f64) -> String {
    let d = ((-(span / 7.0).log10()).ceil().max(0.0) as usize).min(6);
    let s = format!("{x:.d$}");
    if s.trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        s.trim_start_matches('-').to_string()
    } else {
        s
    }
}

/// Panels stacked vertically, each with its rows as points with interval
/// bars; a row without an interval is a hollow point.
pub fn interval_panels(title: &str, panels: &[Panel]) -> Result<String, String> {
    let panels: Vec<&Panel> = panels.iter().filter(|p| !p.rows.is_empty()).collect();
    let heights: Vec<u32> = panels
        .iter()
        .map(|p| 70 + 22 * p.rows.len() as u32)
        .collect();
    let total = 40 + heights.iter().sum::<u32>().max(60);
    // The label area as wide as the longest label needs (about 7 pixels a
    // character at the label's size), so that none is cut at the left edge
    // and short ones leave no empty margin.
    let widest = panels
        .iter()
        .flat_map(|p| &p.rows)
        .map(|r| short(&r.label).chars().count())
        .max()
        .unwrap_or(0) as u32;
    let label_area = (widest * 7 + 16).clamp(48, 420);
    let width = 820.max(label_area + 520);
    let hollow = panels
        .iter()
        .flat_map(|p| &p.rows)
        .any(|r| !r.lo.is_finite());
    let title = if hollow {
        format!("{title}; hollow: no interval")
    } else {
        title.to_string()
    };
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, (width, total)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let root = root.titled(&title, ("sans-serif", 18)).map_err(err)?;
        let mut rest = root;
        for (p, &h) in panels.iter().zip(&heights) {
            let (area, below) = rest.split_vertically(h);
            rest = below;
            let k = p.rows.len();
            let mut lo = p
                .rows
                .iter()
                .flat_map(|r| [r.lo, r.value, r.hi])
                .chain(p.reference)
                .filter(|x| x.is_finite())
                .fold(f64::INFINITY, f64::min);
            let mut hi = p
                .rows
                .iter()
                .flat_map(|r| [r.lo, r.value, r.hi])
                .chain(p.reference)
                .filter(|x| x.is_finite())
                .fold(f64::NEG_INFINITY, f64::max);
            if !lo.is_finite() || !hi.is_finite() {
                lo = -1.0;
                hi = 1.0;
            }
            if hi - lo < 1e-9 {
                // One value everywhere (a row without an interval): a span
                // around it, so that the axis has ticks.
                let w = (lo.abs() * 0.1).max(1.0);
                lo -= w;
                hi += w;
            }
            let pad = (hi - lo) * 0.08;
            let (lo, hi) = (lo - pad, hi + pad);
            let labels: Vec<String> = p.rows.iter().map(|r| short(&r.label)).collect();
            let mut chart = ChartBuilder::on(&area)
                .caption(&p.title, ("sans-serif", 14))
                .margin(6)
                .margin_right(20)
                .x_label_area_size(24)
                .y_label_area_size(label_area)
                .build_cartesian_2d(lo..hi, (0..k).into_segmented())
                .map_err(err)?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .label_style(("sans-serif", LABEL))
                .y_labels(k)
                .y_label_formatter(&|v| match v {
                    SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
                        labels.get(*i).cloned().unwrap_or_default()
                    }
                    SegmentValue::Last => String::new(),
                })
                .x_labels(7)
                .x_label_formatter(&|x| tick(*x, hi - lo))
                .draw()
                .map_err(err)?;
            if let Some(r) = p.reference {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(r, SegmentValue::Exact(0)), (r, SegmentValue::Last)],
                        RGBColor(200, 30, 30).stroke_width(2),
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
                    let style = if r.lo.is_finite() {
                        color.filled()
                    } else {
                        color.stroke_width(2)
                    };
                    Circle::new((r.value, SegmentValue::CenterOf(i)), 4, style)
                }))
                .map_err(err)?;
        }
        rest.present().map_err(err)?;
    }
    Ok(s)
}

/// The series' legend, at the upper right of `chart`.
fn legend<'a, 'b: 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, CT>,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .label_font(("sans-serif", LABEL))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(err)
}

/// Ten colours that stand apart on white (Tableau's), then again.
const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Distributions as lines: for each series `(name, points (x, share))`. A
/// series of one point is a point; every series past the tenth has its
/// points marked too, as its colour is used again.
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
            .margin_right(28)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..xmax, 0.0..ymax * 1.05)
            .map_err(err)?;
        chart
            .configure_mesh()
            .label_style(("sans-serif", LABEL))
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_label_formatter(&|x| tick(*x, xmax))
            .y_label_formatter(&|y| tick(*y, ymax))
            .draw()
            .map_err(err)?;
        for (i, (name, pts)) in series.iter().enumerate() {
            let c = COLOURS[i % COLOURS.len()];
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))
                .map_err(err)?
                .label(short(name))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2))
                });
            if pts.len() == 1 || i >= COLOURS.len() {
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))
                    .map_err(err)?;
            }
        }
        legend(&mut chart)?;
        root.present().map_err(err)?;
    }
    Ok(s)
}

/// A point of the ladder's plot: table size, agent, decisions per second,
/// and Elo with its 95% interval, `(players, agent, decisions/s, (Elo, (lo,
/// hi)))`.
pub type LadderPoint = (usize, String, f64, (f64, (f64, f64)));

/// The ladder's plot: Elo (with its 95% interval) against decisions per
/// second per core, log scale, one colour per table size of `sizes`; each
/// point named.
pub fn ladder(
    rules: &str,
    games: u64,
    sizes: &[usize],
    pts: &[LadderPoint],
    partial: Option<&str>,
) -> Result<String, String> {
    let x = |p: &LadderPoint| p.2.max(1.0);
    // At least three decades (a narrower log axis crowds its labels).
    let xmin = pts.iter().map(x).fold(f64::INFINITY, f64::min).min(1e2);
    let xmax = pts.iter().map(x).fold(1.0, f64::max).max(1e5);
    let ymin = pts.iter().map(|p| p.3 .1 .0).fold(0.0, f64::min) - 20.0;
    let ymax = pts.iter().map(|p| p.3 .1 .1).fold(0.0, f64::max) + 20.0;
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, (900, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        // An interrupted ladder says so in its title, with what it played.
        let caption = match partial {
            Some(note) => (
                format!(
                    "Strength against cost: {rules} - PARTIAL: {note} (of {games} per table size)"
                ),
                14,
            ),
            None => (
                format!("Strength against cost: {rules} ({games} games per table size)"),
                18,
            ),
        };
        let mut chart = ChartBuilder::on(&root)
            .caption(caption.0, ("sans-serif", caption.1))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((xmin / 2.0..xmax * 2.0).log_scale(), ymin..ymax)
            .map_err(err)?;
        chart
            .configure_mesh()
            .label_style(("sans-serif", LABEL))
            .x_desc("decisions per second per core (log scale)")
            .y_desc("rating, Elo (0 = field average), 95% interval")
            .x_label_formatter(&|x| super::text::fmt_rate(*x))
            .y_label_formatter(&|y| tick(*y, ymax - ymin))
            .draw()
            .map_err(err)?;
        let mut names: Vec<((i32, i32), String, RGBAColor)> = Vec::new();
        // The interval bars, in pixels: a name is placed off them too.
        let mut bars: Vec<Boxed> = Vec::new();
        for (k, &players) in sizes.iter().enumerate() {
            let c = COLOURS[k % COLOURS.len()].to_rgba();
            let mine: Vec<_> = pts.iter().filter(|p| p.0 == players).collect();
            chart
                .draw_series(mine.iter().map(|p| {
                    PathElement::new(
                        vec![(x(p), p.3 .1 .0), (x(p), p.3 .1 .1)],
                        c.stroke_width(2),
                    )
                }))
                .map_err(err)?;
            chart
                .draw_series(
                    mine.iter()
                        .map(|p| Circle::new((x(p), p.3 .0), 4, c.filled())),
                )
                .map_err(err)?
                .label(format!("{players} players"))
                .legend(move |(x, y)| Circle::new((x + 8, y), 4, c.filled()));
            for p in &mine {
                names.push((chart.backend_coord(&(x(p), p.3 .0)), p.1.clone(), c));
                let (top, bottom) = (
                    chart.backend_coord(&(x(p), p.3 .1 .1)),
                    chart.backend_coord(&(x(p), p.3 .1 .0)),
                );
                bars.push((top.0 - 1, top.1, top.0 + 1, bottom.1));
            }
        }
        draw_names(&root, names, &bars)?;
        if pts.is_empty() {
            // Interrupted before any agent was timed.
            let font = ("sans-serif", 16).into_font().color(&BLACK);
            root.draw(&Text::new(
                "no agent timed yet: no point to draw",
                (330, 270),
                font,
            ))
            .map_err(err)?;
        } else {
            legend(&mut chart)?;
        }
        root.present().map_err(err)?;
    }
    Ok(s)
}

/// Draws the names of points, `(pixel, name, colour)`, each where it
/// overlaps no name already drawn, no point and none of the `bars` (boxes
/// in pixels; see [`place_label`]), with a thin line to its point when it
/// had to move away from it.
pub fn draw_names(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    names: Vec<((i32, i32), String, RGBAColor)>,
    bars: &[Boxed],
) -> Result<(), String> {
    let points: Vec<(i32, i32)> = names.iter().map(|n| n.0).collect();
    let mut placed: Vec<Boxed> = Vec::new();
    for ((x, y), name, c) in names {
        let (bx, by, w) = place_label(&mut placed, &points, bars, (x, y), &name);
        if (by - y).abs() > 10 || bx < x {
            let end = if bx < x { bx + w } else { bx };
            root.draw(&PathElement::new(vec![(x, y), (end, by)], c.mix(0.5)))
                .map_err(err)?;
        }
        let font = ("sans-serif", 13).into_font().color(&c);
        root.draw(&Text::new(name, (bx, by - 7), font))
            .map_err(err)?;
    }
    Ok(())
}

/// A name's box on the plot, in pixels: left, top, right, bottom.
pub type Boxed = (i32, i32, i32, i32);

/// Where the name of the point at `(x, y)` goes: the first of a few places
/// around it (right, left, then further above and below) whose box meets no
/// box in `placed`, no other point and none of `bars` (an interval bar
/// crossing a name hides both); else the one that meets the fewest.
/// Returns its left end, its middle height and its width, and adds its box
/// to `placed`.
pub fn place_label(
    placed: &mut Vec<Boxed>,
    points: &[(i32, i32)],
    bars: &[Boxed],
    (x, y): (i32, i32),
    name: &str,
) -> (i32, i32, i32) {
    // About 7 pixels a character at the names' size.
    let w = 7 * name.chars().count() as i32 + 2;
    let h = 14;
    let mut best: Option<(usize, (i32, i32))> = None;
    for dy in [0, -14, 14, -28, 28, -42, 42, -56, 56] {
        for left in [false, true] {
            let bx = if left { x - 8 - w } else { x + 8 };
            let by = y + dy;
            let b = (bx, by - h / 2, bx + w, by + h / 2);
            let meets = |o: &Boxed| b.0 < o.2 && o.0 < b.2 && b.1 < o.3 && o.1 < b.3;
            let hits = placed.iter().chain(bars).filter(|o| meets(o)).count()
                + points
                    .iter()
                    .filter(|&&(px, py)| {
                        (px, py) != (x, y) && meets(&(px - 4, py - 4, px + 4, py + 4))
                    })
                    .count();
            if best.is_none_or(|(n, _)| hits < n) {
                best = Some((hits, (bx, by)));
            }
            if hits == 0 {
                placed.push(b);
                return (bx, by, w);
            }
        }
    }
    let (_, (bx, by)) = best.expect("a place was tried");
    placed.push((bx, by - h / 2, bx + w, by + h / 2));
    (bx, by, w)
}

#[cfg(test)]
mod tests {
    use super::{interval_panels, place_label, short, tick, Panel, Row};

    #[test]
    fn names_of_points_close_together_do_not_overprint() {
        // Four points at almost one place, and a fifth apart.
        let points = [(100, 100), (102, 101), (101, 99), (99, 102), (400, 300)];
        let mut placed = Vec::new();
        for (k, &p) in points.iter().enumerate() {
            place_label(&mut placed, &points, &[], p, &format!("agent-{k}"));
        }
        for (i, a) in placed.iter().enumerate() {
            for b in &placed[..i] {
                let meet = a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3;
                assert!(!meet, "{a:?} and {b:?} overlap");
            }
        }
        // The one apart keeps the place at the right of its point.
        assert_eq!((placed[4].0, placed[4].1), (408, 293));
    }

    #[test]
    fn a_name_is_placed_off_the_interval_bars() {
        // A bar 20 pixels right of the point, tall enough to cross every
        // place on that side: the name goes to the left.
        let bars = [(119, 0, 121, 400)];
        let mut placed = Vec::new();
        let (bx, by, w) = place_label(&mut placed, &[(100, 200)], &bars, (100, 200), "pimc-1k");
        assert_eq!((bx + w, by), (92, 200), "{placed:?}");
        // Bars on both sides, short: the name goes above or below them.
        let bars = [(105, 190, 300, 210), (-100, 190, 95, 210)];
        let mut placed = Vec::new();
        let (_, by, _) = place_label(&mut placed, &[(100, 200)], &bars, (100, 200), "pimc-1k");
        assert!((by - 200).abs() >= 14, "{placed:?}");
        let b = placed[0];
        for o in bars {
            assert!(
                !(b.0 < o.2 && o.0 < b.2 && b.1 < o.3 && o.1 < b.3),
                "{b:?} meets {o:?}"
            );
        }
    }

    #[test]
    fn ticks_and_labels_read_as_meant() {
        assert_eq!(tick(-0.0001, 2.0), "0.0");
        assert_eq!(tick(-0.4, 100.0), "0");
        assert_eq!(tick(-12.4, 100.0), "-12");
        assert_eq!(tick(0.2, 1.0), "0.2");
        assert_eq!(tick(0.05, 0.3), "0.05");
        let long = "a".repeat(30) + &"b".repeat(40);
        let cut = short(&long);
        assert_eq!(cut.chars().count(), 56);
        assert!(cut.starts_with("aaaa") && cut.ends_with("bbbb") && cut.contains('\u{2026}'));
        assert_eq!(short("B"), "B");
    }

    #[test]
    fn a_panel_of_one_row_has_labels_of_the_fixed_size() {
        let row = |label: &str, lo: f64| Row {
            label: label.into(),
            value: 1.0,
            lo,
            hi: 2.0,
        };
        let svg = interval_panels(
            "t",
            &[Panel {
                title: "one".into(),
                rows: vec![row("B", 0.5)],
                reference: Some(0.0),
            }],
        )
        .unwrap();
        // Every text is 11 pixels or more: no label shrinks with the panel.
        let sizes: Vec<f64> = svg
            .split("font-size=\"")
            .skip(1)
            .map(|t| t[..t.find('"').unwrap()].parse().unwrap())
            .collect();
        assert!(!sizes.is_empty());
        assert!(sizes.iter().all(|&x| x >= 11.0), "{sizes:?}");
        // A row without an interval: said in the title, drawn hollow.
        let svg = interval_panels(
            "t",
            &[Panel {
                title: "one".into(),
                rows: vec![row("B", f64::NAN)],
                reference: None,
            }],
        )
        .unwrap();
        assert!(svg.contains("hollow: no interval"));
    }
}
