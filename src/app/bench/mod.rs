//! `lanthorn bench`: a deterministic camera path rendered headless; warm-up frames excluded.

use std::time::Instant;

use crate::geom::{Camera, CameraSpec};
use crate::level::Level;
use crate::render::overdraw::OverdrawCounter;
use crate::render::settings::FrameSettings;
use crate::render::world::OctagonClip;
use crate::render::{Gpu, Renderer};
use crate::terrain::ClipmapTerrain;
use crate::vis::CullMode;

use super::session::Session;

mod report;
mod walk;

pub use report::{quantile, BenchReport};
pub use walk::{camera_path, level_path};

#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub frames: u32,
    pub warmup: u32,
    pub size: (u32, u32),
    pub cull: CullMode,
    pub settings: FrameSettings,
    /// `--time`: every frame at this clock (else frame i at i/60 s).
    pub fixed_time: Option<f32>,
    /// A camera path to replay (`--path`) instead of the automatic walk.
    pub path: Option<Vec<CameraSpec>>,
    /// Count the world pass's fragments after each frame (untimed) for `overdraw`.
    pub overdraw: bool,
    /// Keep every frame's CPU stages and GPU passes for `--trace`.
    pub trace: bool,
    /// Culling overlays drawn on every frame (`--overlay`, `--cull-camera`).
    pub overlays: super::overlays::Overlays,
    /// Panels over every frame the world and the terrain skip under (`--ui-cover`: what the
    /// demo's panels cost and save, measured headless).
    pub ui_cover: Vec<crate::render::ui_cover::PixelRect>,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            frames: 200,
            warmup: 10,
            size: (1280, 720),
            cull: CullMode::Portal,
            settings: FrameSettings::default(),
            fixed_time: None,
            path: None,
            overdraw: true,
            trace: false,
            overlays: Default::default(),
            ui_cover: Vec::new(),
        }
    }
}

/// Counts the world fragments of the frame `renderer` just drew into `report.overdraw`.
fn count_overdraw(
    gpu: &Gpu,
    renderer: &Renderer,
    counter: &OverdrawCounter,
    report: &mut BenchReport,
) {
    let portal = report.cull == CullMode::Portal.name();
    let mut covered = None;
    for (i, clip) in OctagonClip::ALL.into_iter().enumerate() {
        if i > 0 && !portal && covered.is_some() {
            break;
        }
        if let Some(n) = counter.count(gpu, &renderer.world, clip) {
            let covered = *covered.get_or_insert(n.covered.max(1));
            report.overdraw[i].push(n.fragments as f64 / covered as f64);
        }
    }
}

pub fn run(gpu: &Gpu, level: &Level, start: CameraSpec, opts: &BenchOptions) -> BenchReport {
    run_with_terrain(gpu, level, None, start, opts)
}

/// [`run`] with an optional clipmap terrain; with one, the camera flies the terrain's fixed
/// path (`terrain::fixed_flight`: a loop over the map's middle, 300 units above the ground)
/// instead of circling `start`.
pub fn run_with_terrain(
    gpu: &Gpu,
    level: &Level,
    terrain: Option<ClipmapTerrain>,
    start: CameraSpec,
    opts: &BenchOptions,
) -> BenchReport {
    let aspect = opts.size.0 as f32 / opts.size.1 as f32;
    // A terrain alone: the fixed flight over it; a level (with or without its terrain): a walk
    // through its cells.
    let path = match &terrain {
        _ if opts.path.is_some() => opts.path.clone().unwrap_or_default(),
        Some(t) if level.cells.is_empty() => {
            crate::terrain::fixed_flight(&t.heightmap, opts.frames.max(1) as usize)
        }
        _ => level_path(level, start, opts.frames),
    };
    let mut session = Session::new(gpu, level, terrain, opts.size, opts.cull)
        .with(opts.settings, opts.overlays)
        .traced(opts.trace);
    session.ui_cover = opts.ui_cover.clone();
    let mut report = BenchReport {
        adapter: gpu.describe(),
        cull: opts.cull.name(),
        ..Default::default()
    };
    let counter = opts
        .overdraw
        .then(|| OverdrawCounter::create(gpu, opts.size));
    let mut previous = None;
    for i in 0..opts.warmup + opts.frames {
        let spec = path[(i.saturating_sub(opts.warmup) as usize).min(path.len().saturating_sub(1))];
        let moved = previous.map_or(0.0, |p: glam::Vec3| p.distance(spec.position) as f64);
        previous = Some(spec.position);
        let camera = Camera::new(spec, aspect);
        let t = Instant::now();
        let time = opts.fixed_time.unwrap_or(i as f32 / 60.0);
        let stats = session.frame(gpu, &camera, time);
        let frame_ms = t.elapsed().as_secs_f64() * 1e3;
        if i < opts.warmup {
            continue;
        }
        session.record(&stats);
        report.camera_moved.push(moved);
        report.cameras.push(spec);
        report.add_frame(frame_ms, &stats, &session);
        if let Some(counter) = &counter {
            count_overdraw(gpu, &session.renderer, counter, &mut report);
        }
    }
    report.trace = session.take_trace();
    report
}

/// What `lanthorn bench` writes besides its table.
#[derive(Clone, Debug, Default)]
pub struct BenchOutput {
    /// One JSON object on the last line of stdout.
    pub json: bool,
    /// Per-frame arrays in the JSON.
    pub per_frame: bool,
    /// An SVG of frame time and triangles along the path (`app::plot`).
    pub plot: Option<std::path::PathBuf>,
    /// A Chrome trace of the frames (`app::trace`).
    pub trace: Option<std::path::PathBuf>,
}

impl BenchOutput {
    fn plot(&self, reports: &[&BenchReport]) -> anyhow::Result<()> {
        let Some(path) = &self.plot else {
            return Ok(());
        };
        let triangles: Vec<Vec<f64>> = reports
            .iter()
            .map(|r| r.triangles.iter().map(|&t| t as f64).collect())
            .collect();
        let series: Vec<super::plot::Series<'_>> = reports
            .iter()
            .zip(&triangles)
            .map(|(r, t)| super::plot::Series {
                name: r.cull,
                frame_ms: &r.frame_ms,
                triangles: t,
            })
            .collect();
        super::plot::write(path, &series)?;
        eprintln!("bench: wrote {}", path.display());
        Ok(())
    }
}

/// `lanthorn bench --compare`: the same path once per culling method; a table of each
/// method's medians and its ratio to the first (portal), and with `json` one JSON object.
pub fn run_compare(
    gpu: &Gpu,
    world: &super::World,
    opts: &BenchOptions,
    methods: &[CullMode],
    output: &BenchOutput,
) -> anyhow::Result<()> {
    let reports: Vec<BenchReport> = methods
        .iter()
        .map(|&cull| {
            let opts = BenchOptions {
                cull,
                ..opts.clone()
            };
            eprintln!("bench --compare: {} …", cull.name());
            run_with_terrain(gpu, &world.level, None, world.camera, &opts)
        })
        .collect();
    output.plot(&reports.iter().collect::<Vec<_>>())?;
    let rows: Vec<(CullMode, [f64; 9])> = methods
        .iter()
        .zip(&reports)
        .map(|(&cull, r)| (cull, r.compare_figures()))
        .collect();
    println!(
        "{:<10} {:>9} {:>9} {:>9} {:>10} {:>9} {:>9} {:>10} {:>8} {:>8}",
        "method",
        "frame_ms",
        "p95",
        "worst",
        "triangles",
        "surfaces",
        "sub_draws",
        "draw_calls",
        "cull_us",
        "overdraw"
    );
    let base = rows.first().map(|r| r.1).unwrap_or_default();
    let mut out = serde_json::Map::new();
    for (cull, f) in &rows {
        println!(
            "{:<10} {:>9.2} {:>9.2} {:>9.2} {:>10.0} {:>9.0} {:>9.0} {:>10.0} {:>8.1} {:>8.2}   ×{:.2} frame, ×{:.2} triangles",
            cull.name(), f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[0] / base[0].max(1e-9), f[3] / base[3].max(1e-9)
        );
        let mut m = serde_json::Map::new();
        for (k, key) in COMPARE_KEYS.iter().enumerate() {
            m.insert(key.to_string(), serde_json::json!(f[k]));
            // `triangles_ratio`, …; `frame_ms_p95_ratio` and `frame_ms_worst_ratio` apart.
            let name = ["_median", "_max", "_mean"]
                .iter()
                .find_map(|s| key.strip_suffix(s))
                .unwrap_or(key);
            m.insert(
                format!("{name}_ratio"),
                serde_json::json!(f[k] / base[k].max(1e-9)),
            );
        }
        out.insert(cull.name().into(), serde_json::Value::Object(m));
    }
    if output.json {
        println!(
            "{}",
            serde_json::to_string(&serde_json::json!({ "compare": out }))?
        );
    }
    Ok(())
}

/// The JSON keys of `--compare`'s figures (`BenchReport::compare_figures`); each also gets a
/// `NAME_ratio` against the first method. Draw calls are the most a frame, overdraw a mean,
/// the frame time its median, 95th percentile and worst, the rest medians.
const COMPARE_KEYS: [&str; 9] = [
    "frame_ms_median",
    "frame_ms_p95",
    "frame_ms_worst",
    "triangles_median",
    "surfaces_median",
    "sub_draws_median",
    "draw_calls_max",
    "cull_us_median",
    "overdraw_mean",
];

/// `lanthorn bench`: flies the path over `world` and prints the table (and the JSON line).
pub fn run_command(
    gpu: &Gpu,
    world: super::World,
    opts: &BenchOptions,
    output: &BenchOutput,
) -> anyhow::Result<()> {
    let report = run_with_terrain(gpu, &world.level, world.terrain, world.camera, opts);
    report.print_table();
    output.plot(&[&report])?;
    if let (Some(trace), Some(path)) = (&report.trace, &output.trace) {
        trace.write(path)?;
    }
    if output.json {
        let mut j = report.to_json();
        if output.per_frame {
            j["per_frame"] = report.per_frame_json();
        }
        println!("{}", serde_json::to_string(&j)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
