//! What a bench run measured, frame by frame, and how it is printed (table, JSON).

use crate::geom::CameraSpec;
use crate::render::world::OctagonClip;
use crate::render::{FrameStats, TerrainStats};

/// Per-frame figures, after warm-up.
#[derive(Clone, Debug, Default)]
pub struct BenchReport {
    pub frame_ms: Vec<f64>,
    pub draw_calls: Vec<u32>,
    pub sub_draws: Vec<u32>,
    pub triangles: Vec<u64>,
    /// World surfaces drawn per frame.
    pub surfaces: Vec<u32>,
    /// Of those, the sky's per frame.
    pub sky_surfaces: Vec<u32>,
    /// The camera's opaque surfaces drawn from the surface cache per frame (moving objects'
    /// too, which `surfaces` leaves out).
    pub cached: Vec<u32>,
    /// Of those, the ones magnified all over (read as texel fetches) per frame.
    pub magnified: Vec<u32>,
    /// Of those, the ones drawn from the two finest levels' own views per frame.
    pub two_levels: Vec<u32>,
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
    pub trace: Option<crate::app::trace::Trace>,
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

/// The median of per-frame counts.
fn median_count(counts: &[u32]) -> f64 {
    quantile(
        &counts.iter().map(|&c| f64::from(c)).collect::<Vec<_>>(),
        0.5,
    )
}

impl BenchReport {
    /// Adds a measured frame: its time, what it drew and what its culling found.
    pub(super) fn add_frame(
        &mut self,
        frame_ms: f64,
        stats: &FrameStats,
        session: &crate::app::session::Session<'_>,
    ) {
        let visible = &session.visible;
        self.frame_ms.push(frame_ms);
        self.cull_us.push(session.culler.micros);
        self.cells_visible.push(visible.cells.len() as f64);
        self.frames_eye_outside += visible.eye_outside as u32;
        self.eye_outside.push(visible.eye_outside);
        self.draw_calls.push(stats.world.draw_calls);
        self.sub_draws.push(stats.world.sub_draws);
        self.surfaces.push(stats.world.surfaces);
        self.sky_surfaces.push(stats.world.sky_surfaces);
        self.cached.push(stats.world.cached);
        self.magnified.push(stats.world.magnified);
        self.two_levels.push(stats.world.two_levels);
        self.triangles.push(stats.world.triangles);
        // Frames that drew the terrain (in a level, only those that see an outdoor cell).
        if session.renderer.terrain.is_some() && stats.terrain.draw_calls > 0 {
            self.terrain.push(stats.terrain);
        }
        push_named(&mut self.cpu_stage_ms, &stats.cpu_ms);
        push_named(&mut self.gpu_pass_ms, &stats.gpu_ms);
    }

    /// The per-frame figures (`--per-frame`): arrays, one entry per measured frame.
    pub fn per_frame_json(&self) -> serde_json::Value {
        serde_json::json!({
            "frame_ms": self.frame_ms,
            "triangles": self.triangles,
            "surfaces": self.surfaces,
            "sky_surfaces": self.sky_surfaces,
            "cached": self.cached,
            "magnified": self.magnified,
            "two_levels": self.two_levels,
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
            "surfaces_median": median_count(&self.surfaces),
            "sky_surfaces_median": median_count(&self.sky_surfaces),
            "cached_median": median_count(&self.cached),
            "magnified_median": median_count(&self.magnified),
            "two_levels_median": median_count(&self.two_levels),
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
                "terrain_pieces_fogged_median".into(),
                quantile(&f(&|s| s.pieces_fogged as f64), 0.5).into(),
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

    /// The figures of `--compare` (`COMPARE_FIGURES`): frame ms (median, 95th percentile,
    /// worst), triangles, surfaces, sub-draws (medians), draw calls (most), culling µs
    /// (median), and the mean overdraw (the first octagon mode counted).
    pub(super) fn compare_figures(&self) -> [f64; 9] {
        let med = |v: Vec<f64>| quantile(&v, 0.5);
        let overdraw = self.overdraw.iter().find(|v| !v.is_empty());
        [
            med(self.frame_ms.clone()),
            quantile(&self.frame_ms, 0.95),
            self.frame_ms.iter().copied().fold(0.0, f64::max),
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
            "world          draw calls max {}, sub-draws max {}, surfaces median {} (sky {}), from the surface cache {} (objects' too; magnified {}, two levels {})",
            self.draw_calls.iter().max().unwrap_or(&0),
            self.sub_draws.iter().max().unwrap_or(&0),
            median_count(&self.surfaces),
            median_count(&self.sky_surfaces),
            median_count(&self.cached),
            median_count(&self.magnified),
            median_count(&self.two_levels),
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
