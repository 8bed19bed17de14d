//! `lanthorn bench`: a deterministic camera path rendered headless; warm-up frames excluded.

use std::time::Instant;

use glam::Vec3;

use crate::geom::{Camera, CameraSpec};
use crate::level::Level;
use crate::render::frame::FrameSettings;
use crate::render::overdraw::OverdrawCounter;
use crate::render::world::OctagonClip;
use crate::render::{Gpu, Renderer, TerrainStats};
use crate::terrain::ClipmapTerrain;
use crate::vis::{CullMode, Culler, VisibleSet};

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
        }
    }
}

/// The camera path: a slow circle of 96 units around the start, turning a full circle with a
/// gentle pitch sway. Deterministic for a given start and frame count.
pub fn camera_path(start: CameraSpec, frames: u32) -> Vec<CameraSpec> {
    circle_path(start, frames, 96.0)
}

fn circle_path(start: CameraSpec, frames: u32, radius: f32) -> Vec<CameraSpec> {
    (0..frames)
        .map(|i| {
            let t = i as f32 / frames.max(1) as f32;
            let a = t * std::f32::consts::TAU;
            let offset = Vec3::new(a.cos() - 1.0, a.sin(), 0.0) * radius;
            CameraSpec {
                position: start.position + offset,
                yaw: start.yaw + t * 360.0,
                pitch: 10.0 * (a * 2.0).sin(),
            }
        })
        .collect()
}

/// A walk through the level for levels with cells: depth-first from the start's cell through
/// portals (bigger cells first), waypoints at portal centres and at a point inside each cell.
/// A cell is convex and the portal centres lie on its boundary, so every segment stays inside
/// open cells (a cell's box centre need not be in the cell: imported leaves are slanted); the
/// camera moves 8 units per frame and looks where it goes. Falls back to `camera_path` for
/// levels without cells or when the start is in solid.
pub fn level_path(level: &Level, start: CameraSpec, frames: u32) -> Vec<CameraSpec> {
    let Some(first) = level.locate(start.position) else {
        return camera_path(start, frames);
    };
    let speed = 8.0;
    let needed = frames as f32 * speed;
    let mut points = vec![start.position];
    let mut length = 0.0;
    let mut visited = vec![false; level.cells.len()];
    // Cells on the way down, with the points either side of the portal we entered through
    // (parent side, child side): backtracking goes back through it.
    let mut stack: Vec<(u32, Option<[Vec3; 2]>)> = vec![(first, None)];
    visited[first as usize] = true;
    let centre = |poly: &[Vec3]| poly.iter().copied().sum::<Vec3>() / poly.len().max(1) as f32;
    let push = |points: &mut Vec<Vec3>, p: Vec3, length: &mut f32| {
        *length += (p - *points.last().unwrap()).length();
        points.push(p);
    };
    while length < needed {
        let Some(&(cell, _)) = stack.last() else {
            break;
        };
        let c = &level.cells[cell as usize];
        let next = c
            .portals
            .iter()
            .map(|&p| {
                (
                    &level.portals[p as usize],
                    level.portals[p as usize].other(cell),
                )
            })
            .filter(|(_, o)| {
                !visited[*o as usize]
                    && level.cells[*o as usize].medium == crate::level::Medium::Air
                    && level.cells[*o as usize].flags & crate::level::cell_flags::OUTSIDE == 0
            })
            .max_by(|a, b| {
                let va = level.cells[a.1 as usize].aabb.size();
                let vb = level.cells[b.1 as usize].aabb.size();
                (va.x * va.y * va.z).total_cmp(&(vb.x * vb.y * vb.z))
            });
        match next {
            Some((portal, other)) => {
                visited[other as usize] = true;
                // Through the portal's centre, a unit either side of it (on the plane itself
                // a point may locate into the solid beside the portal).
                let (c, n) = (centre(&portal.polygon), portal.plane.normal);
                let into_cell = if portal.front == cell { n } else { -n };
                let crossing = [c + into_cell, c - into_cell];
                for p in crossing {
                    push(&mut points, p, &mut length);
                }
                push(&mut points, inside(level, other), &mut length);
                stack.push((other, Some(crossing)));
            }
            None => {
                let (_, crossing) = stack.pop().unwrap();
                if let (Some(&(back, _)), Some([parent_side, child_side])) =
                    (stack.last(), crossing)
                {
                    push(&mut points, child_side, &mut length);
                    push(&mut points, parent_side, &mut length);
                    push(&mut points, inside(level, back), &mut length);
                }
            }
        }
    }
    if points.len() < 2 || length < 1.0 {
        // Nowhere to walk (one cell): circle as wide as the start's cell allows, so every
        // frame is taken from inside it (a path into solid would bench empty frames).
        let cell = &level.cells[first as usize];
        return [96.0, 48.0, 24.0, 12.0, 0.0]
            .iter()
            .map(|&r| circle_path(start, frames, r))
            .find(|path| path.iter().all(|c| cell.contains(c.position, -8.0)))
            .unwrap_or_else(|| circle_path(start, frames, 0.0));
    }
    // Constant speed along the polyline; the view turns smoothly toward the direction of travel.
    let mut out = Vec::with_capacity(frames as usize);
    let (mut seg, mut along) = (0usize, 0.0f32);
    let mut yaw = start.yaw;
    for _ in 0..frames {
        let mut step = speed;
        while seg + 1 < points.len() {
            let len = (points[seg + 1] - points[seg]).length();
            if along + step <= len {
                along += step;
                break;
            }
            step -= len - along;
            along = 0.0;
            seg += 1;
        }
        let (a, b) = (points[seg], points[(seg + 1).min(points.len() - 1)]);
        let len = (b - a).length().max(1e-3);
        let p = a + (b - a) * (along / len).min(1.0);
        let d = b - a;
        if d.truncate().length() > 1.0 {
            let target = d.y.atan2(d.x).to_degrees();
            let delta = (target - yaw + 540.0).rem_euclid(360.0) - 180.0;
            yaw += delta.clamp(-6.0, 6.0);
        }
        out.push(CameraSpec {
            position: p,
            yaw,
            pitch: 0.0,
        });
    }
    out
}

/// A point inside `cell`: its box centre when that is in the cell with a unit to spare, else the
/// average of its portals' centres (on its boundary, so their average is inside a convex cell),
/// pulled toward the box centre as far as the cell allows.
fn inside(level: &Level, cell: u32) -> Vec3 {
    let c = &level.cells[cell as usize];
    let centre = c.aabb.center();
    if c.contains(centre, -1.0) {
        return centre;
    }
    let portals: Vec<Vec3> = c
        .portals
        .iter()
        .map(|&p| {
            let poly = &level.portals[p as usize].polygon;
            poly.iter().copied().sum::<Vec3>() / poly.len().max(1) as f32
        })
        .collect();
    let boundary = portals.iter().copied().sum::<Vec3>() / portals.len().max(1) as f32;
    [0.5, 0.25, 0.125, 0.0625]
        .iter()
        .map(|&t| boundary.lerp(centre, t))
        .find(|&p| c.contains(p, -1.0))
        .unwrap_or(boundary)
}

/// Per-frame figures, after warm-up.
#[derive(Clone, Debug, Default)]
pub struct BenchReport {
    pub frame_ms: Vec<f64>,
    pub draw_calls: Vec<u32>,
    pub sub_draws: Vec<u32>,
    pub triangles: Vec<u64>,
    /// World surfaces drawn per frame.
    pub surfaces: Vec<u32>,
    pub cpu_stage_ms: Vec<(&'static str, Vec<f64>)>,
    pub gpu_pass_ms: Vec<(&'static str, Vec<f64>)>,
    /// Culling time per frame (µs) and visible cells.
    pub cull_us: Vec<f64>,
    pub cells_visible: Vec<f64>,
    pub adapter: String,
    pub cull: &'static str,
    /// Per-frame terrain figures (empty without `--terrain`).
    pub terrain: Vec<TerrainStats>,
    /// Units the camera moved since the previous frame.
    pub camera_moved: Vec<f64>,
    /// Frames whose eye was in no cell (culled by the frustum fallback): 0 on a walk.
    pub frames_eye_outside: u32,
    /// Per frame: the eye was in no cell, and where the camera was.
    pub eye_outside: Vec<bool>,
    pub cameras: Vec<CameraSpec>,
    /// Per octagon mode (`OctagonClip::ALL`), per frame: fragments that pass the depth test ÷
    /// pixels they cover (`render::overdraw`); portal in every mode, the others with clip
    /// distances (or discard without them).
    pub overdraw: [Vec<f64>; 3],
    /// The frames as a Chrome trace (`--trace`).
    pub trace: Option<super::trace::Trace>,
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
    let mut renderer = Renderer::new(gpu, level, opts.size);
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
    if let Some(t) = terrain {
        renderer.set_terrain(gpu, t);
    }
    let mut report = BenchReport {
        adapter: gpu.describe(),
        cull: opts.cull.name(),
        trace: opts.trace.then(super::trace::Trace::new),
        ..Default::default()
    };
    let mut culler = Culler::new(level, opts.cull);
    let mut visible = VisibleSet::default();
    let counter = opts
        .overdraw
        .then(|| OverdrawCounter::create(gpu, opts.size));
    let total = opts.warmup + opts.frames;
    let mut previous = None;
    for i in 0..total {
        let spec = path[(i.saturating_sub(opts.warmup) as usize).min(path.len().saturating_sub(1))];
        let moved = previous.map_or(0.0, |p: glam::Vec3| p.distance(spec.position) as f64);
        previous = Some(spec.position);
        let camera = Camera::new(spec, aspect);
        let t = Instant::now();
        let mut settings = FrameSettings {
            time: opts.fixed_time.unwrap_or(i as f32 / 60.0),
            surface_tests: super::surface_tests(opts.cull),
            ..opts.settings
        };
        super::overlays::cull_frame(
            level,
            &mut culler,
            &mut renderer,
            &camera,
            &opts.overlays,
            &mut visible,
            &mut settings,
        );
        let vis_ms = culler.micros / 1e3;
        let mut stats = renderer.render(gpu, &camera, &visible, &settings);
        let frame_ms = t.elapsed().as_secs_f64() * 1e3;
        if i < opts.warmup {
            continue;
        }
        stats.cpu_ms.insert(0, ("visibility", vis_ms));
        let span = crate::render::pass::CpuSpan {
            name: "visibility",
            start: t,
            end: t + std::time::Duration::from_secs_f64(vis_ms / 1e3),
        };
        stats.cpu_spans.insert(0, span);
        if let Some(trace) = &mut report.trace {
            trace.frame((i - opts.warmup) as usize, &stats);
        }
        report.frame_ms.push(frame_ms);
        report.camera_moved.push(moved);
        report.cull_us.push(culler.micros);
        report.cells_visible.push(visible.cells.len() as f64);
        report.frames_eye_outside += visible.eye_outside as u32;
        report.eye_outside.push(visible.eye_outside);
        report.cameras.push(spec);
        report.draw_calls.push(stats.world.draw_calls);
        report.sub_draws.push(stats.world.sub_draws);
        report.surfaces.push(stats.world.surfaces);
        report.triangles.push(stats.world.triangles);
        // Frames that drew the terrain (in a level, only those that see an outdoor cell).
        if renderer.terrain.is_some() && stats.terrain.draw_calls > 0 {
            report.terrain.push(stats.terrain);
        }
        push_named(&mut report.cpu_stage_ms, &stats.cpu_ms);
        push_named(&mut report.gpu_pass_ms, &stats.gpu_ms);
        if let Some(counter) = &counter {
            count_overdraw(gpu, &renderer, counter, &mut report);
        }
    }
    report
}

fn push_named(into: &mut Vec<(&'static str, Vec<f64>)>, values: &[(&'static str, f64)]) {
    for (name, v) in values {
        match into.iter_mut().find(|(n, _)| n == name) {
            Some((_, list)) => list.push(*v),
            None => into.push((name, vec![*v])),
        }
    }
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// The value at quantile `q` (0..1) by nearest rank; 0 for an empty list.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let idx = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
    v[idx]
}

impl BenchReport {
    /// The per-frame figures (`--per-frame`): arrays, one entry per measured frame.
    pub fn per_frame_json(&self) -> serde_json::Value {
        serde_json::json!({
            "frame_ms": self.frame_ms,
            "triangles": self.triangles,
            "surfaces": self.surfaces,
            "sub_draws": self.sub_draws,
            "cells_visible": self.cells_visible,
            "cull_us": self.cull_us,
            "eye_outside": self.eye_outside,
            "camera": self.cameras.iter().map(|c| [c.position.x, c.position.y, c.position.z, c.yaw, c.pitch]).collect::<Vec<_>>(),
        })
    }

    pub fn to_json(&self) -> serde_json::Value {
        let tris: Vec<f64> = self.triangles.iter().map(|t| *t as f64).collect();
        let mut j = serde_json::json!({
            "frames": self.frame_ms.len(),
            "frames_eye_outside": self.frames_eye_outside,
            "frame_ms_median": quantile(&self.frame_ms, 0.5),
            "frame_ms_p95": quantile(&self.frame_ms, 0.95),
            "draw_calls_max": self.draw_calls.iter().copied().max().unwrap_or(0),
            "sub_draws_max": self.sub_draws.iter().copied().max().unwrap_or(0),
            "triangles_median": quantile(&tris, 0.5),
            "surfaces_median": quantile(&self.surfaces.iter().map(|&s| s as f64).collect::<Vec<_>>(), 0.5),
            "adapter": self.adapter,
            "cull": self.cull,
            "flow_us_median": quantile(&self.cull_us, 0.5),
            "cells_visible_median": quantile(&self.cells_visible, 0.5),
        });
        let obj = j.as_object_mut().expect("object");
        let overdraw: serde_json::Map<String, serde_json::Value> = OctagonClip::ALL
            .iter()
            .zip(&self.overdraw)
            .filter(|(_, v)| !v.is_empty())
            .map(|(c, v)| (c.name().to_string(), mean(v).into()))
            .collect();
        if !overdraw.is_empty() {
            obj.insert("overdraw_mean".into(), overdraw.into());
        }
        if !self.terrain.is_empty() {
            let t = &self.terrain;
            let f = |g: &dyn Fn(&TerrainStats) -> f64| t.iter().map(g).collect::<Vec<f64>>();
            let select = f(&|s| s.select_us);
            obj.insert("terrain_frames".into(), t.len().into());
            let tris = f(&|s| s.triangles as f64);
            let bytes = f(&|s| s.upload_bytes as f64);
            obj.insert(
                "clipmap_select_us_median".into(),
                quantile(&select, 0.5).into(),
            );
            obj.insert(
                "clipmap_select_us_p95".into(),
                quantile(&select, 0.95).into(),
            );
            obj.insert(
                "terrain_triangles_median".into(),
                (quantile(&tris, 0.5) as u64).into(),
            );
            obj.insert(
                "terrain_draw_calls_max".into(),
                t.iter().map(|s| s.draw_calls).max().unwrap_or(0).into(),
            );
            obj.insert(
                "upload_bytes_per_frame_median".into(),
                (quantile(&bytes, 0.5) as u64).into(),
            );
            // Streaming follows the camera: bytes per unit moved is the size-independent figure.
            let moved: f64 = self.camera_moved.iter().sum();
            obj.insert(
                "camera_units_per_frame_median".into(),
                quantile(&self.camera_moved, 0.5).into(),
            );
            obj.insert(
                "upload_bytes_per_unit_moved".into(),
                (bytes.iter().sum::<f64>() / moved.max(1e-9)).into(),
            );
            obj.insert(
                "upload_bytes_per_frame_max".into(),
                (quantile(&bytes, 1.0) as u64).into(),
            );
            obj.insert(
                "terrain_stream_us_median".into(),
                quantile(&f(&|s| s.stream_us), 0.5).into(),
            );
            obj.insert(
                "terrain_gpu_bytes".into(),
                t.last().map(|s| s.gpu_bytes).unwrap_or(0).into(),
            );
        }
        for (name, v) in &self.cpu_stage_ms {
            obj.insert(
                format!("cpu_{}_ms_median", key(name)),
                quantile(v, 0.5).into(),
            );
        }
        for (name, v) in &self.gpu_pass_ms {
            obj.insert(
                format!("gpu_{}_ms_median", key(name)),
                quantile(v, 0.5).into(),
            );
        }
        j
    }

    /// Medians for `--compare`: frame ms, triangles, surfaces, sub-draws, draw calls (max),
    /// culling µs, and the mean overdraw (the first octagon mode counted).
    fn compare_figures(&self) -> [f64; 7] {
        let med = |v: Vec<f64>| quantile(&v, 0.5);
        let overdraw = self.overdraw.iter().find(|v| !v.is_empty());
        [
            med(self.frame_ms.clone()),
            med(self.triangles.iter().map(|&t| t as f64).collect()),
            med(self.surfaces.iter().map(|&t| t as f64).collect()),
            med(self.sub_draws.iter().map(|&t| t as f64).collect()),
            self.draw_calls.iter().copied().max().unwrap_or(0) as f64,
            med(self.cull_us.clone()),
            overdraw.map_or(0.0, |v| mean(v)),
        ]
    }

    pub fn print_table(&self) {
        println!("adapter        {}", self.adapter);
        println!("frames         {}", self.frame_ms.len());
        println!(
            "culling        {}: {:.1} µs median, {} cells visible median",
            self.cull,
            quantile(&self.cull_us, 0.5),
            quantile(&self.cells_visible, 0.5)
        );
        println!(
            "frame ms       median {:.2}  p95 {:.2}",
            quantile(&self.frame_ms, 0.5),
            quantile(&self.frame_ms, 0.95)
        );
        for (name, v) in &self.cpu_stage_ms {
            println!("cpu {:<18} median {:.3} ms", name, quantile(v, 0.5));
        }
        for (name, v) in &self.gpu_pass_ms {
            println!("gpu {:<18} median {:.3} ms", name, quantile(v, 0.5));
        }
        println!(
            "world          draw calls max {}, sub-draws max {}",
            self.draw_calls.iter().max().unwrap_or(&0),
            self.sub_draws.iter().max().unwrap_or(&0)
        );
        if !self.terrain.is_empty() {
            let t = &self.terrain;
            let med = |g: &dyn Fn(&TerrainStats) -> f64| {
                quantile(&t.iter().map(g).collect::<Vec<f64>>(), 0.5)
            };
            println!(
                "terrain        select {:.1} µs median, stream {:.1} µs, {:.0} triangles, draw calls max {}",
                med(&|s| s.select_us),
                med(&|s| s.stream_us),
                med(&|s| s.triangles as f64),
                t.iter().map(|s| s.draw_calls).max().unwrap_or(0)
            );
            println!(
                "terrain        upload {:.0} bytes/frame median, GPU memory {} bytes",
                med(&|s| s.upload_bytes as f64),
                t.last().map(|s| s.gpu_bytes).unwrap_or(0)
            );
        }
    }
}

fn key(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect::<String>()
        .replace("___", "_")
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
    let rows: Vec<(CullMode, [f64; 7])> = methods
        .iter()
        .zip(&reports)
        .map(|(&cull, r)| (cull, r.compare_figures()))
        .collect();
    const NAMES: [&str; 7] = [
        "frame_ms",
        "triangles",
        "surfaces",
        "sub_draws",
        "draw_calls",
        "cull_us",
        "overdraw",
    ];
    println!(
        "{:<10} {:>10} {:>10} {:>10} {:>10} {:>11} {:>9} {:>9}",
        "method", NAMES[0], NAMES[1], NAMES[2], NAMES[3], NAMES[4], NAMES[5], NAMES[6]
    );
    let base = rows.first().map(|r| r.1).unwrap_or_default();
    let mut out = serde_json::Map::new();
    for (cull, f) in &rows {
        println!(
            "{:<10} {:>10.2} {:>10.0} {:>10.0} {:>10.0} {:>11.0} {:>9.1} {:>9.2}   ×{:.2} frame, ×{:.2} triangles",
            cull.name(), f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[0] / base[0].max(1e-9), f[1] / base[1].max(1e-9)
        );
        let mut m = serde_json::Map::new();
        for (k, (name, v)) in NAMES.iter().zip(f).enumerate() {
            // Draw calls are the most per frame, overdraw a mean, the rest medians.
            let stat = match *name {
                "draw_calls" => "max",
                "overdraw" => "mean",
                _ => "median",
            };
            m.insert(format!("{name}_{stat}"), serde_json::json!(v));
            m.insert(
                format!("{name}_ratio"),
                serde_json::json!(v / base[k].max(1e-9)),
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
#[path = "bench_tests.rs"]
mod tests;
