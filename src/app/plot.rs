//! `bench --plot FILE.svg`: frame time and triangles along the path, one line per culling
//! method. Plain SVG written by hand (two panels of polylines with axes and a legend): no
//! plotting crate, no font library; a viewer lays the text out.

use std::fmt::Write as _;

/// One method's per-frame figures.
pub struct Series<'a> {
    pub name: &'a str,
    pub frame_ms: &'a [f64],
    pub triangles: &'a [f64],
}

const WIDTH: f64 = 900.0;
const PANEL: f64 = 260.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const GAP: f64 = 60.0;
const COLOURS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
];

/// A panel's box and scales: frame index to x, value to y (0 at the bottom).
#[derive(Clone, Copy, Debug)]
struct Panel {
    top: f64,
    frames: usize,
    max: f64,
}

impl Panel {
    fn x(&self, frame: usize) -> f64 {
        let span = (self.frames.max(2) - 1) as f64;
        LEFT + frame as f64 / span * (WIDTH - LEFT - RIGHT)
    }

    fn y(&self, value: f64) -> f64 {
        self.top + PANEL - value / self.max * PANEL
    }
}

/// A round axis maximum at or above `max` (1, 2 or 5 times a power of ten).
fn nice_max(max: f64) -> f64 {
    if !(max > 0.0) || !max.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(max.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|&v| v >= max)
        .unwrap_or(10.0 * p)
}

/// The SVG text of the plot.
pub fn svg<'a>(series: &[Series<'a>]) -> String {
    let frames = series.iter().map(|s| s.frame_ms.len()).max().unwrap_or(0);
    let height = TOP + 2.0 * PANEL + GAP + 50.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let panels: [(&str, fn(&Series<'a>) -> &'a [f64]); 2] =
        [("frame ms", |s| s.frame_ms), ("triangles", |s| s.triangles)];
    for (p, (title, values)) in panels.iter().enumerate() {
        let max = series
            .iter()
            .flat_map(|s| values(s).iter().copied())
            .fold(0.0, f64::max);
        let panel = Panel {
            top: TOP + p as f64 * (PANEL + GAP),
            frames,
            max: nice_max(max),
        };
        axes(&mut out, &panel, title);
        for (i, s) in series.iter().enumerate() {
            polyline(&mut out, &panel, values(s), COLOURS[i % COLOURS.len()]);
        }
    }
    legend(&mut out, series, height - 20.0);
    out.push_str("</svg>\n");
    out
}

fn axes(out: &mut String, panel: &Panel, title: &str) {
    let (top, bottom) = (panel.top, panel.top + PANEL);
    let right = WIDTH - RIGHT;
    let _ = writeln!(
        out,
        r##"<rect x="{LEFT}" y="{top}" width="{}" height="{PANEL}" fill="none" stroke="#888"/>"##,
        right - LEFT
    );
    let _ = writeln!(
        out,
        r#"<text x="{LEFT}" y="{}" font-weight="bold">{title}</text>"#,
        top - 8.0
    );
    for k in 0..=4 {
        let v = panel.max * k as f64 / 4.0;
        let y = panel.y(v);
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{right}" y2="{y:.1}" stroke="#eee"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT - 6.0,
            y + 4.0,
            format_tick(v)
        );
    }
    let last = panel.frames.saturating_sub(1);
    for (f, anchor) in [(0, "start"), (last / 2, "middle"), (last, "end")] {
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{}" text-anchor="{anchor}">frame {f}</text>"#,
            panel.x(f),
            bottom + 16.0
        );
    }
}

fn format_tick(v: f64) -> String {
    if v >= 100.0 || v == v.round() {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

fn polyline(out: &mut String, panel: &Panel, values: &[f64], colour: &str) {
    let mut points = String::new();
    for (f, &v) in values.iter().enumerate() {
        let _ = write!(points, "{:.2},{:.2} ", panel.x(f), panel.y(v));
    }
    let _ = writeln!(
        out,
        r#"<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{}"/>"#,
        points.trim_end()
    );
}

fn legend(out: &mut String, series: &[Series<'_>], y: f64) {
    for (i, s) in series.iter().enumerate() {
        let x = LEFT + i as f64 * 140.0;
        let colour = COLOURS[i % COLOURS.len()];
        let _ = writeln!(
            out,
            r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{colour}" stroke-width="3"/><text x="{}" y="{}">{}</text>"#,
            x + 24.0,
            x + 30.0,
            y + 4.0,
            s.name
        );
    }
}

/// Refuses, before any rendering, a plot path that is not `.svg` or whose folder is missing.
pub fn check_path(path: &std::path::Path) -> anyhow::Result<()> {
    super::check_output_path(path, "svg", "--plot")
}

/// Writes the plot to `path` (whole or not at all).
pub fn write(path: &std::path::Path, series: &[Series<'_>]) -> anyhow::Result<()> {
    crate::files::write_atomically(path, svg(series).as_bytes())
        .map_err(|e| anyhow::anyhow!("{}: cannot write the plot: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The polyline points of the `n`-th polyline, as (x, y).
    fn points(svg: &str, n: usize) -> Vec<(f64, f64)> {
        let line = svg
            .lines()
            .filter(|l| l.starts_with("<polyline"))
            .nth(n)
            .unwrap();
        let list = line
            .split("points=\"")
            .nth(1)
            .unwrap()
            .trim_end_matches("\"/>");
        list.split(' ')
            .map(|p| {
                let (x, y) = p.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect()
    }

    #[test]
    fn lines_map_frames_across_and_values_up_to_a_round_maximum() {
        let ms = [10.0, 40.0, 25.0];
        let tris = [100.0, 200.0, 150.0];
        let (ms2, tris2) = ([5.0, 5.0, 5.0], [50.0, 50.0, 50.0]);
        let s = svg(&[
            Series {
                name: "portal",
                frame_ms: &ms,
                triangles: &tris,
            },
            Series {
                name: "pvs",
                frame_ms: &ms2,
                triangles: &tris2,
            },
        ]);
        // Frame ms: axis maximum 50 (the round value above 40); frame 0 at the left edge,
        // frame 2 at the right.
        let p = points(&s, 0);
        assert_eq!(p.len(), 3);
        assert!((p[0].0 - LEFT).abs() < 0.01 && (p[2].0 - (WIDTH - RIGHT)).abs() < 0.01);
        let bottom = TOP + PANEL;
        assert!((p[1].1 - (bottom - 40.0 / 50.0 * PANEL)).abs() < 0.01);
        assert!((p[0].1 - (bottom - 10.0 / 50.0 * PANEL)).abs() < 0.01);
        // Triangles: second panel, axis maximum 200; the second method's line at 50.
        let q = points(&s, 3);
        let bottom = TOP + 2.0 * PANEL + GAP;
        assert!((q[0].1 - (bottom - 50.0 / 200.0 * PANEL)).abs() < 0.01);
        assert!(s.contains(">portal</text>") && s.contains(">pvs</text>"));
        assert_eq!(s.matches("<polyline").count(), 4);
    }

    #[test]
    fn round_maxima() {
        assert_eq!(nice_max(40.0), 50.0);
        assert_eq!(nice_max(0.3), 0.5);
        assert_eq!(nice_max(1200.0), 2000.0);
        assert_eq!(nice_max(0.0), 1.0);
    }
}
