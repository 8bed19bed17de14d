//! One object holding everything the GPU pass needs per frame: the source, its pyramid, the
//! selector, the streamer and the static meshes.

use glam::{DVec2, Vec3};

use super::{
    ClipmapConfig, ClipmapMeshes, ClipmapSelector, HeightStreamer, HeightUpdates, Heightmap,
    MinMaxPyramid, Selection, TerrainError,
};
use lanthorn_geom::{Camera, CameraSpec};

/// The clipmap terrain state. Per frame call [`ClipmapTerrain::frame`], upload
/// `updates` into the height texture array (layer = level, R32Float, `window_size`² texels),
/// the `selection.instances` into the instance buffer and `selection.frame` into the uniform,
/// then draw each [`super::MeshKind`] with its instance range.
pub struct ClipmapTerrain {
    /// The height source.
    pub heightmap: Heightmap,
    /// Its height bounds over blocks.
    pub pyramid: MinMaxPyramid,
    /// What each frame draws.
    pub selector: ClipmapSelector,
    /// The height windows kept up with the camera.
    pub streamer: HeightStreamer,
    /// The static meshes.
    pub meshes: ClipmapMeshes,
    updates: HeightUpdates,
}

/// What one frame produced.
pub struct ClipmapFrame<'a> {
    /// What to draw.
    pub selection: &'a Selection,
    /// The height writes to upload first.
    pub updates: &'a HeightUpdates,
}

/// The view the default grid is sized for: 1280 pixels across the camera's 90° (the demo's and
/// `bench`'s default size), as a focal length in pixels.
const REFERENCE_FOCAL_PX: f64 = 640.0;

/// The screen error, in pixels of the reference view, that the detail a level adds over the next
/// coarser level ([`level_detail`]) may make at the level's edge (where the coarser level takes
/// over). Calibrated against the full-resolution mesh (tests/gpu/terrain.rs, 640×360, the rough
/// `procedural:1024`): grids 255, 127 and 63 make 1.2, 2.5 and 5.0 px there, and the frames
/// differ from the full mesh by a mean 0.28, 0.85 and 2.2 of 255 (that test's bound is 2).
pub const DETAIL_ERROR_PX: f64 = 2.5;

/// Levels whose detail the grid size looks at (the finer ones matter: further out a level's
/// detail is seen from further away).
const DETAIL_LEVELS: u32 = 4;

impl ClipmapConfig {
    /// A sensible configuration for a heightmap: the finest level has one vertex per sample,
    /// 10 levels of [`ClipmapConfig::grid_for_detail`]² vertices.
    pub fn for_heightmap(hm: &Heightmap) -> Self {
        Self {
            levels: 10,
            grid: Self::grid_for_detail(hm),
            base_spacing: hm.horizontal_scale,
            morph_width: None,
            active_height_factor: 2.5,
        }
    }
}

impl ClipmapConfig {
    /// Vertices per level side for `hm`: 127, or 255 where some level's detail
    /// ([`level_detail`]), seen from the level's edge `grid · spacing / 2` away, would project
    /// past [`DETAIL_ERROR_PX`] in the reference view at 127. Never 63: a coast is a colour edge
    /// drawn where the height crosses sea level, and on a flat coast a small height error moves
    /// it far — ETOPO5's golden view at 63 differed by a mean 2.0/255 and 2 % of its pixels,
    /// though its detail measure would allow 63. The keep's terrain gets 127 (2.0 px), a third of
    /// the triangles of 255 (docs/terrain.md#what-the-terrain-pass-costs).
    pub fn grid_for_detail(hm: &Heightmap) -> u32 {
        let worst = (0..DETAIL_LEVELS)
            .map(|l| level_detail(hm, l) / (hm.horizontal_scale * (1u64 << l) as f64))
            .fold(0.0, f64::max);
        // error = detail · focal / (grid · spacing · 2^l / 2) ≤ DETAIL_ERROR_PX
        let needed = 2.0 * worst * REFERENCE_FOCAL_PX / DETAIL_ERROR_PX;
        [127, 255]
            .into_iter()
            .find(|&g| g as f64 >= needed)
            .unwrap_or(255)
    }
}

/// The height (world units) that level `level`'s vertices add over the next coarser level's
/// surface, at the 90th percentile: at each odd vertex of a level, its height against the
/// coarser grid's interpolation there (edge midpoints: the mean of the two ends; cell centres:
/// of the four corners). A high percentile, not the mean: a map that is mostly smooth (the
/// ocean floor of a global map) has its rough coasts and mountains where the eye goes. Looked at
/// over a regular subset of at most 128² coarse cells, so a procedural heightmap costs a few
/// milliseconds.
pub fn level_detail(hm: &Heightmap, level: u32) -> f64 {
    let step = 1i64 << level;
    let (w, h) = hm.size();
    let cells = |samples: u64| ((samples as i64 - 1) / (2 * step)).max(0);
    let (cx, cy) = (cells(w), cells(h));
    let stride = |c: i64| (c / 128).max(1) as usize;
    let mut errors = Vec::new();
    for j in (0..cy).step_by(stride(cy)) {
        for i in (0..cx).step_by(stride(cx)) {
            let (x, y) = (2 * step * i, 2 * step * j);
            let z = |dx: i64, dy: i64| hm.sample(x + dx * step, y + dy * step) as f64;
            let corners = [z(0, 0), z(2, 0), z(0, 2), z(2, 2)];
            errors.extend([
                (z(1, 0) - 0.5 * (corners[0] + corners[1])).abs(),
                (z(0, 1) - 0.5 * (corners[0] + corners[2])).abs(),
                (z(1, 1) - 0.25 * corners.iter().sum::<f64>()).abs(),
            ]);
        }
    }
    if errors.is_empty() {
        return 0.0;
    }
    let k = errors.len() * 9 / 10;
    *errors.select_nth_unstable_by(k, f64::total_cmp).1
}

impl ClipmapTerrain {
    /// A terrain over `heightmap` with `cfg` (checked).
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

    /// Its configuration.
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
    /// Frames flown.
    pub frames: usize,
    /// Microseconds a selection took, the median…
    pub clipmap_select_us_median: f64,
    /// …and the most.
    pub clipmap_select_us_max: f64,
    /// Triangles drawn, the median.
    pub terrain_triangles_median: u64,
    /// Draws, the most in a frame.
    pub terrain_draw_calls_max: usize,
    /// Frame 0 (the initial fill) excluded.
    pub upload_bytes_per_frame_median: usize,
    /// Bytes uploaded, the most in a frame.
    pub upload_bytes_per_frame_max: usize,
    /// The height windows' size on the GPU.
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
