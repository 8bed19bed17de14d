//! One object holding everything the GPU pass needs per frame: the source, its pyramid, the
//! selector, the streamer and the static meshes.

use glam::{DVec2, Vec3};

use super::{
    ClipmapConfig, ClipmapMeshes, ClipmapSelector, HeightStreamer, HeightUpdates, Heightmap,
    MinMaxPyramid, Selection, TerrainError,
};
use crate::geom::{Camera, CameraSpec};

/// The clipmap terrain state. Per frame call [`ClipmapTerrain::frame`], upload
/// `updates` into the height texture array (layer = level, R32Float, `window_size`² texels),
/// the `selection.instances` into the instance buffer and `selection.frame` into the uniform,
/// then draw each [`super::MeshKind`] with its instance range.
pub struct ClipmapTerrain {
    pub heightmap: Heightmap,
    pub pyramid: MinMaxPyramid,
    pub selector: ClipmapSelector,
    pub streamer: HeightStreamer,
    pub meshes: ClipmapMeshes,
    updates: HeightUpdates,
}

/// What one frame produced.
pub struct ClipmapFrame<'a> {
    pub selection: &'a Selection,
    pub updates: &'a HeightUpdates,
}

impl ClipmapConfig {
    /// A sensible configuration for a heightmap: the finest level has one vertex per sample,
    /// 10 levels of 255² vertices.
    pub fn for_heightmap(hm: &Heightmap) -> Self {
        Self {
            levels: 10,
            grid: 255,
            base_spacing: hm.horizontal_scale,
            morph_width: None,
            active_height_factor: 2.5,
        }
    }
}

impl ClipmapTerrain {
    pub fn new(heightmap: Heightmap, cfg: ClipmapConfig) -> Result<Self, TerrainError> {
        cfg.validate()?;
        Ok(Self {
            pyramid: MinMaxPyramid::new(&heightmap),
            selector: ClipmapSelector::new(cfg)?,
            streamer: HeightStreamer::new(cfg),
            meshes: ClipmapMeshes::new(&cfg),
            heightmap,
            updates: HeightUpdates::default(),
        })
    }

    pub fn config(&self) -> &ClipmapConfig {
        &self.selector.cfg
    }

    /// Select and stream for `camera`. The updates are the height writes since the previous
    /// frame (all layers on the first frame or after [`HeightStreamer::invalidate`]).
    pub fn frame(&mut self, camera: &Camera) -> ClipmapFrame<'_> {
        self.updates.clear();
        let p = camera.position.as_dvec3();
        let selection = self
            .selector
            .select(camera, &self.heightmap, &mut self.pyramid);
        let first = selection.first_level;
        self.streamer.update_from(
            &self.heightmap,
            DVec2::new(p.x, p.y),
            first,
            &mut self.updates,
        );
        ClipmapFrame {
            selection,
            updates: &self.updates,
        }
    }

    /// Bytes of the height texture array (independent of the source size).
    pub fn window_bytes(&self) -> usize {
        let n = self.config().window_size() as usize;
        n * n * 4 * self.config().levels as usize
    }

    /// A camera over the middle of the heightmap, a little above the ground, looking along +X+Y
    /// and slightly down.
    pub fn suggested_camera(hm: &Heightmap) -> CameraSpec {
        let (w, h) = hm.world_size();
        let (x, y) = (w * 0.5, h * 0.5);
        let ground = hm.height_at(x, y);
        let z = ground + (hm.horizontal_scale as f32 * 24.0).max(200.0);
        CameraSpec {
            position: Vec3::new(x as f32, y as f32, z),
            yaw: 45.0,
            pitch: -12.0,
        }
    }
}

/// A fixed, deterministic flight over a heightmap for `lanthorn bench --terrain`: one loop
/// around the map's middle (radius a quarter of the map, at most 40,000 units), following the
/// ground 300 units up, looking ahead and slightly down.
pub fn fixed_flight(hm: &Heightmap, frames: usize) -> Vec<CameraSpec> {
    let (w, h) = hm.world_size();
    let (cx, cy) = (w * 0.5, h * 0.5);
    let r = (w.min(h) * 0.25).min(40_000.0);
    (0..frames)
        .map(|i| {
            let t = i as f64 / frames.max(1) as f64 * std::f64::consts::TAU;
            let (x, y) = (cx + r * t.cos(), cy + r * t.sin());
            let z = hm.height_at(x, y) + 300.0;
            let yaw = (t.to_degrees() + 90.0) as f32;
            CameraSpec {
                position: Vec3::new(x as f32, y as f32, z),
                yaw,
                pitch: -10.0,
            }
        })
        .collect()
}

/// CPU figures of a flight (what `lanthorn bench --terrain --json` reports for the terrain).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TerrainBenchStats {
    pub frames: usize,
    pub clipmap_select_us_median: f64,
    pub clipmap_select_us_max: f64,
    pub terrain_triangles_median: u64,
    pub terrain_draw_calls_max: usize,
    /// Frame 0 (the initial fill) excluded.
    pub upload_bytes_per_frame_median: usize,
    pub upload_bytes_per_frame_max: usize,
    pub window_bytes: usize,
}

impl ClipmapTerrain {
    /// Fly `path` (aspect `aspect`) and measure selection time, triangles, draws and uploads.
    pub fn bench_flight(&mut self, path: &[CameraSpec], aspect: f32) -> TerrainBenchStats {
        let mut sel_us = Vec::with_capacity(path.len());
        let mut tris = Vec::with_capacity(path.len());
        let mut bytes = Vec::with_capacity(path.len());
        let mut draws = 0;
        for spec in path {
            let cam = Camera::new(*spec, aspect);
            self.updates.clear();
            let p = cam.position.as_dvec3();
            let t0 = std::time::Instant::now();
            let selection = self
                .selector
                .select(&cam, &self.heightmap, &mut self.pyramid);
            sel_us.push(t0.elapsed().as_secs_f64() * 1e6);
            tris.push(selection.stats.triangles);
            draws = draws.max(selection.draws().count());
            let first = selection.first_level;
            bytes.push(self.streamer.update_from(
                &self.heightmap,
                DVec2::new(p.x, p.y),
                first,
                &mut self.updates,
            ));
        }
        fn median<T: Copy + PartialOrd>(v: &[T]) -> Option<T> {
            let mut s = v.to_vec();
            s.sort_by(|a, b| a.partial_cmp(b).unwrap());
            s.get(s.len() / 2).copied()
        }
        let moving = if bytes.len() > 1 {
            &bytes[1..]
        } else {
            &bytes[..]
        };
        TerrainBenchStats {
            frames: path.len(),
            clipmap_select_us_median: median(&sel_us).unwrap_or(0.0),
            clipmap_select_us_max: sel_us.iter().copied().fold(0.0, f64::max),
            terrain_triangles_median: median(&tris).unwrap_or(0),
            terrain_draw_calls_max: draws,
            upload_bytes_per_frame_median: median(moving).unwrap_or(0),
            upload_bytes_per_frame_max: moving.iter().copied().max().unwrap_or(0),
            window_bytes: self.window_bytes(),
        }
    }
}
