//! Geometry-clipmap selection (pure CPU): per frame, where every level's pieces go and which of
//! them survive frustum culling.
//!
//! Layout of level `l` (spacing `s = base · 2^l`, all coordinates in level units), with `T`
//! quads per tile and `c = floor(camera / s)` the camera's cell:
//! - tiles + filler form the `(4T+1)`-quad square `G = [c − 2T, c + 2T + 1]²`: a 4×4 grid of
//!   `T`-quad tiles with a one-quad filler cross through the middle; the centre quad of the
//!   cross is the camera's cell. Levels > 0 skip the inner 2×2 tiles and the inner half of the
//!   cross (the finer level is there); the finest level draws all 16 tiles and the full cross.
//! - the level square `F = [o, o + 4T + 2]²` with `o = 2·floor(c/2) − 2T` (even, so `F`'s corners
//!   are vertices of the coarser level): `F` is exactly the hole that level `l+1` leaves. The
//!   L-shaped trim fills `F \ G` (one quad wide along two sides); which two sides follows from
//!   the two bits `c mod 2` (the snapped offset against the coarser level).
//! - the seam: zero-area triangles along `F`'s boundary closing the T-junctions against level
//!   `l+1`'s edges (two fine edges per coarse edge).
//!
//! The coarsest level has no trim and no seam; its `G` is the whole clipmap square.

mod select;

pub use self::select::ClipmapSelector;

use std::ops::Range;

use bytemuck::{Pod, Zeroable};
use glam::{DVec2, DVec3, Vec3, Vec4};

use super::{Heightmap, MeshPart, MinMaxPyramid, PartRun, TerrainError};
use lanthorn_geom::{Camera, Octagon, Plane};

/// The static mesh kinds, also the order of instance ranges in a [`Selection`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u32)]
pub enum MeshKind {
    /// The square tiles of a level's ring (all 16 on the finest level drawn).
    Tile = 0,
    /// The cross of strips between a level's tiles.
    Filler = 1,
    /// The L-shaped strip that fills a level's odd side.
    Trim = 2,
    /// The ring of triangles that closes the T-junctions towards the coarser level.
    Seam = 3,
    /// The finest active level's centre cross (one instance).
    Cross = 4,
}

impl MeshKind {
    /// Every kind, in instance-range order.
    pub const ALL: [MeshKind; 5] = [
        MeshKind::Tile,
        MeshKind::Filler,
        MeshKind::Trim,
        MeshKind::Seam,
        MeshKind::Cross,
    ];
}

/// Clipmap parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipmapConfig {
    /// Number of levels L (1..=24).
    pub levels: u32,
    /// Vertices per side of a level, `n = 2^k − 1` (15, 31, …, 255, 511, 1023).
    pub grid: u32,
    /// World units between vertices of the finest level.
    pub base_spacing: f64,
    /// Width of the morph band in level units; `None` = `round(0.4 T)` clamped to `[1, T − 2]`.
    pub morph_width: Option<f32>,
    /// Finest active level by camera height (Losasso & Hoppe): levels whose square is narrower
    /// than `active_height_factor ×` the camera's height above the ground are skipped and the
    /// next one draws its full square. 0 keeps every level active.
    pub active_height_factor: f32,
}

impl Default for ClipmapConfig {
    fn default() -> Self {
        Self {
            levels: 10,
            grid: 255,
            base_spacing: 32.0,
            morph_width: None,
            active_height_factor: 2.5,
        }
    }
}

impl ClipmapConfig {
    /// `levels` levels of `grid` vertices a side, `base_spacing` world units apart on the finest; checked (`validate`).
    pub fn new(levels: u32, grid: u32, base_spacing: f64) -> Result<Self, TerrainError> {
        let c = Self {
            levels,
            grid,
            base_spacing,
            morph_width: None,
            active_height_factor: 2.5,
        };
        c.validate()?;
        Ok(c)
    }

    /// Whether the settings can work: 1 to 24 levels, a grid of 2^k − 1 vertices (15 to 4095),
    /// a positive spacing.
    pub fn validate(&self) -> Result<(), TerrainError> {
        let bad = |s: String| Err(TerrainError::BadConfig(s));
        if !(1..=24).contains(&self.levels) {
            return bad(format!("level count {} must be 1..=24", self.levels));
        }
        if self.grid < 15 || self.grid > 4095 || !(self.grid + 1).is_power_of_two() {
            return bad(format!(
                "grid size {} must be 2^k − 1 between 15 and 4095 (e.g. 127, 255)",
                self.grid
            ));
        }
        if !(self.base_spacing.is_finite() && self.base_spacing > 0.0) {
            return bad(format!(
                "base spacing {} must be positive",
                self.base_spacing
            ));
        }
        if !(self.active_height_factor >= 0.0 && self.active_height_factor.is_finite()) {
            return bad(format!(
                "active height factor {} must be ≥ 0",
                self.active_height_factor
            ));
        }
        if let Some(w) = self.morph_width {
            let t = self.tile_quads() as f32;
            if !(w >= 0.5 && w <= t - 1.5) {
                return bad(format!(
                    "morph width {w} must be within [0.5, T − 1.5] = [0.5, {}]",
                    t - 1.5
                ));
            }
        }
        Ok(())
    }

    /// Quads per tile side: `T = (n + 1)/4 − 1`.
    pub fn tile_quads(&self) -> i32 {
        (self.grid as i32 + 1) / 4 - 1
    }

    /// Quads per side of a level square `F` (`4T + 2 = n − 1`).
    pub fn level_quads(&self) -> i32 {
        4 * self.tile_quads() + 2
    }

    /// Texels per side of a height window layer: the level square's `n` vertices plus a
    /// one-texel border for normals (`n + 2`).
    pub fn window_size(&self) -> u32 {
        self.grid + 2
    }

    /// World units between the vertices of `level`.
    pub fn spacing(&self, level: u32) -> f64 {
        self.base_spacing * (1u64 << level) as f64
    }

    /// The width of the band where a level morphs into the coarser one (level units).
    pub fn morph_width_units(&self) -> f32 {
        let t = self.tile_quads() as f32;
        self.morph_width
            .unwrap_or_else(|| (0.4 * t).round().clamp(1.0, t - 2.0))
    }

    /// Chebyshev distance (level units) from the camera where alpha reaches 1. Every vertex of
    /// the level square's boundary is at least `2T` away, so it is fully morphed.
    pub fn morph_end(&self) -> f32 {
        2.0 * self.tile_quads() as f32 - 0.5
    }

    /// Where alpha starts rising; at least `T + 1`, beyond every vertex the finer level touches.
    pub fn morph_start(&self) -> f32 {
        self.morph_end() - self.morph_width_units()
    }

    /// The finest level drawn for a camera `height_above_ground` over the terrain.
    pub fn first_active_level(&self, height_above_ground: f64) -> u32 {
        let mut first = 0;
        let need = self.active_height_factor as f64 * height_above_ground.max(0.0);
        while first + 1 < self.levels && (self.level_quads() as f64 * self.spacing(first)) < need {
            first += 1;
        }
        first
    }

    /// The camera's cell in level `l`.
    pub fn cell(&self, cam: DVec2, level: u32) -> [i64; 2] {
        let s = self.spacing(level);
        [(cam.x / s).floor() as i64, (cam.y / s).floor() as i64]
    }

    /// Lower-left corner of the level square `F` (even level units).
    pub fn level_origin(&self, cam: DVec2, level: u32) -> [i64; 2] {
        let c = self.cell(cam, level);
        let t = self.tile_quads() as i64;
        [
            2 * c[0].div_euclid(2) - 2 * t,
            2 * c[1].div_euclid(2) - 2 * t,
        ]
    }

    /// Grid point at texel `(0,0)`'s window position: the window covers
    /// `[origin − 1, origin − 1 + N)` in both axes (N = `window_size`).
    pub fn window_origin(&self, cam: DVec2, level: u32) -> [i64; 2] {
        let o = self.level_origin(cam, level);
        [o[0] - 1, o[1] - 1]
    }

    /// Where `level` sits for a camera at `cam` (world x, y).
    pub fn placement(&self, cam: DVec2, level: u32) -> LevelPlacement {
        let t = self.tile_quads() as i64;
        let cell = self.cell(cam, level);
        let coarsest = level + 1 == self.levels;
        let (origin, quads, trim_rotation) = if coarsest {
            ([cell[0] - 2 * t, cell[1] - 2 * t], 4 * t + 1, None)
        } else {
            let bits = ((cell[0] & 1) | ((cell[1] & 1) << 1)) as usize;
            (
                self.level_origin(cam, level),
                4 * t + 2,
                Some(TRIM_ROTATION[bits]),
            )
        };
        LevelPlacement {
            level,
            spacing: self.spacing(level),
            cell,
            origin,
            quads,
            trim_rotation,
            window_origin: self.window_origin(cam, level),
        }
    }
}

/// Trim rotation from the two bits `(c.x & 1) | (c.y & 1) << 1`: bit x set = the tiles sit at
/// the right of the level square so the trim takes the left column, and so on. Rotation `r` =
/// `r` quarter turns counter-clockwise of the canonical L (right column + top row).
pub const TRIM_ROTATION: [u32; 4] = [0, 1, 3, 2];

/// Where one level sits this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LevelPlacement {
    /// The level (0: the finest).
    pub level: u32,
    /// World units between this level's vertices.
    pub spacing: f64,
    /// The camera's cell `floor(camera / spacing)` (level units): the snapped position.
    pub cell: [i64; 2],
    /// Lower-left corner of the level's square (level units; even except on the coarsest level).
    pub origin: [i64; 2],
    /// Quads per side of the level's square (`4T+2`, or `4T+1` on the coarsest level).
    pub quads: i64,
    /// Trim rotation (quarter turns CCW), `None` on the coarsest level.
    pub trim_rotation: Option<u32>,
    /// Grid point held by the height window's first row/column (level units).
    pub window_origin: [i64; 2],
}

impl LevelPlacement {
    /// The level square in world units.
    pub fn world_rect(&self) -> (DVec2, DVec2) {
        let a = DVec2::new(self.origin[0] as f64, self.origin[1] as f64) * self.spacing;
        (a, a + DVec2::splat(self.quads as f64 * self.spacing))
    }
}

/// One instance of a static mesh: 16 bytes, WGSL
/// `struct TerrainInstance { offset: vec2<i32>, level: u32, rotation: u32 }`.
/// A local mesh vertex `v` lands on level grid point `offset + rotate(rotation, v)`, i.e. base
/// grid point `(offset + rotate(rotation, v)) << level`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Pod, Zeroable)]
pub struct TerrainInstance {
    /// Level-grid coordinates of the mesh's local origin.
    pub offset: [i32; 2],
    /// The level it draws (0: the finest).
    pub level: u32,
    /// Quarter turns counter-clockwise: 0: (x, y), 1: (−y, x), 2: (−x, −y), 3: (y, −x).
    pub rotation: u32,
}

/// Rotate a local grid coordinate by `r` quarter turns counter-clockwise.
#[inline]
pub fn rotate(r: u32, v: [i32; 2]) -> [i32; 2] {
    match r & 3 {
        0 => [v[0], v[1]],
        1 => [-v[1], v[0]],
        2 => [-v[0], -v[1]],
        _ => [v[1], -v[0]],
    }
}

impl TerrainInstance {
    /// Level-grid position of a local vertex.
    #[inline]
    pub fn grid_point(&self, v: [i32; 2]) -> [i32; 2] {
        let r = rotate(self.rotation, v);
        [self.offset[0] + r[0], self.offset[1] + r[1]]
    }

    /// Base-grid position (finest level units) of a local vertex.
    #[inline]
    pub fn base_point(&self, v: [i32; 2]) -> [i64; 2] {
        let g = self.grid_point(v);
        [(g[0] as i64) << self.level, (g[1] as i64) << self.level]
    }
}

/// Per-frame uniform for the terrain vertex shader: 48 bytes, WGSL
/// `struct TerrainFrame { anchor: vec2<i32>, window_size: u32, levels: u32,
///   camera_offset: vec4<f32>, base_spacing: f32, morph_start: f32, morph_width: f32,
///   tile_quads: u32 }`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct TerrainFrame {
    /// `floor(camera.xy / base_spacing)`: base-grid point all positions are made relative to.
    pub anchor: [i32; 2],
    /// Texels per side of each height window layer (toroidal modulus).
    pub window_size: u32,
    /// Levels drawn.
    pub levels: u32,
    /// `camera − anchor · base_spacing` (xyz, computed in f64), w = 0.
    pub camera_offset: [f32; 4],
    /// World units between the finest level's vertices.
    pub base_spacing: f32,
    /// Morph alpha = clamp((d − morph_start) / morph_width, 0, 1), d = Chebyshev distance to
    /// the camera in level units; the coarsest level never morphs.
    pub morph_start: f32,
    /// Level units over which a vertex morphs (see `morph_start`).
    pub morph_width: f32,
    /// Quads along a tile's side.
    pub tile_quads: u32,
}

impl TerrainFrame {
    /// The frame uniform for a camera at `camera` (the terrain's own frame).
    pub fn new(cfg: &ClipmapConfig, camera: DVec3) -> Self {
        let b = cfg.base_spacing;
        let anchor = [(camera.x / b).floor() as i64, (camera.y / b).floor() as i64];
        let off = camera - DVec3::new(anchor[0] as f64 * b, anchor[1] as f64 * b, 0.0);
        Self {
            anchor: [anchor[0] as i32, anchor[1] as i32],
            window_size: cfg.window_size(),
            levels: cfg.levels,
            camera_offset: [off.x as f32, off.y as f32, off.z as f32, 0.0],
            base_spacing: b as f32,
            morph_start: cfg.morph_start(),
            morph_width: cfg.morph_width_units(),
            tile_quads: cfg.tile_quads() as u32,
        }
    }
}

/// Counters of one selection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SelectStats {
    /// Levels drawn.
    pub levels: u32,
    /// Pieces (tiles, fillers, trims, seams, the cross) considered.
    pub pieces_total: u32,
    /// Pieces culled (frustum, octagon, fog).
    pub pieces_culled: u32,
    /// Tiles considered.
    pub tiles_total: u32,
    /// Tiles culled.
    pub tiles_culled: u32,
    /// Pieces whose box needed a pyramid look-up (the global height range was not enough).
    pub pyramid_queries: u32,
    /// Pieces dropped because the fog hides them wholly (counted in `pieces_culled` too).
    pub pieces_fogged: u32,
    /// Triangles drawn: of the surviving instances' parts (seam triangles included).
    pub triangles: u64,
    /// Parts of surviving pieces left out (wholly outside the frustum).
    pub parts_culled: u32,
}

/// The most draws a selection makes: a draw per kind and run of its mesh's parts (the filler
/// has one part, the other kinds four, so 4 × 4 runs each), whatever the number of levels.
pub const MAX_DRAWS: usize = 1 + 4 * 16;

/// The output of one selection. `instances` is grouped by [`MeshKind`]; `ranges[kind]` is that
/// kind's slice, and within it by the run of the mesh's parts the frustum sees (`runs`) —
/// upload `instances` as-is and draw each of [`Selection::draws`].
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// The frame uniform.
    pub frame: TerrainFrame,
    /// The finest level drawn this frame (see `ClipmapConfig::active_height_factor`); it draws
    /// all 16 tiles and the centre cross. Windows of finer levels need no streaming.
    pub first_level: u32,
    /// Where each level sits.
    pub levels: Vec<LevelPlacement>,
    /// The instances drawn, grouped by kind.
    pub instances: Vec<TerrainInstance>,
    /// Each kind's slice of `instances` (`MeshKind` order).
    pub ranges: [Range<u32>; 5],
    /// Each kind's instances by the parts drawn of them: sub-ranges of `ranges[kind]`, in order.
    pub runs: Vec<(MeshKind, PartRun, Range<u32>)>,
    /// What the selection counted.
    pub stats: SelectStats,
    /// Culled instances (for the "culled tiles" overlay), grouped the same way.
    pub culled: Vec<(MeshKind, TerrainInstance)>,
}

impl Default for TerrainFrame {
    fn default() -> Self {
        Self::zeroed()
    }
}

impl Selection {
    /// The instances of `kind`.
    pub fn of_kind(&self, kind: MeshKind) -> &[TerrainInstance] {
        let r = &self.ranges[kind as usize];
        &self.instances[r.start as usize..r.end as usize]
    }

    /// The draws of this frame: a kind, the run of its mesh's parts and the instances drawn
    /// so (none empty; every instance in one).
    pub fn draws(&self) -> impl Iterator<Item = (MeshKind, PartRun, Range<u32>)> + '_ {
        self.runs.iter().cloned()
    }
}

/// World-space bounds of an instance (for the tile-bounds overlay): its rectangle and the
/// pyramid's conservative height range (one level cell of margin for the morph).
pub fn instance_aabb(
    cfg: &ClipmapConfig,
    kind: MeshKind,
    inst: &TerrainInstance,
    hm: &Heightmap,
    pyramid: &mut MinMaxPyramid,
) -> lanthorn_geom::Aabb {
    let rect = instance_rect(kind, cfg.tile_quads(), inst);
    rect_aabb(cfg.spacing(inst.level), rect, hm, pyramid)
}

/// World-space bounds of one part of an instance's mesh, as [`instance_aabb`]'s.
pub fn part_aabb(
    cfg: &ClipmapConfig,
    part: &MeshPart,
    inst: &TerrainInstance,
    hm: &Heightmap,
    pyramid: &mut MinMaxPyramid,
) -> lanthorn_geom::Aabb {
    rect_aabb(cfg.spacing(inst.level), part_rect(part, inst), hm, pyramid)
}

/// The level rectangle a mesh part of `inst` covers.
pub(crate) fn part_rect(part: &MeshPart, inst: &TerrainInstance) -> ([i64; 2], [i64; 2]) {
    let p = inst.grid_point(part.min);
    let q = inst.grid_point(part.max);
    (
        [p[0].min(q[0]) as i64, p[1].min(q[1]) as i64],
        [p[0].max(q[0]) as i64, p[1].max(q[1]) as i64],
    )
}

/// Level rectangle `[a, b]` at `spacing` over the pyramid's heights there (a cell of margin).
fn rect_aabb(
    spacing: f64,
    (a, b): ([i64; 2], [i64; 2]),
    hm: &Heightmap,
    pyramid: &mut MinMaxPyramid,
) -> lanthorn_geom::Aabb {
    let min = DVec2::new(a[0] as f64, a[1] as f64) * spacing;
    let max = DVec2::new(b[0] as f64, b[1] as f64) * spacing;
    let m = DVec2::splat(spacing);
    let (lo, hi) = pyramid.bounds_world(hm, (min - m).to_array(), (max + m).to_array());
    lanthorn_geom::Aabb::new(min.as_vec2().extend(lo), max.as_vec2().extend(hi))
}

/// Local extents of each mesh kind at rotation 0 (level units, see `mesh.rs`).
pub fn local_rect(kind: MeshKind, t: i32) -> ([i32; 2], [i32; 2]) {
    let h = 2 * t + 1;
    match kind {
        MeshKind::Tile => ([0, 0], [t, t]),
        MeshKind::Filler => ([0, 0], [t, 1]),
        MeshKind::Trim => ([-h, -h], [h, h]),
        MeshKind::Seam => ([0, 0], [2 * h, 2 * h]),
        MeshKind::Cross => ([-t, -t], [t + 1, t + 1]),
    }
}

/// Level-grid rectangle covered by an instance of `kind` (its bounding box).
pub fn instance_rect(kind: MeshKind, t: i32, inst: &TerrainInstance) -> ([i64; 2], [i64; 2]) {
    let (a, b) = local_rect(kind, t);
    let p = inst.grid_point(a);
    let q = inst.grid_point(b);
    (
        [p[0].min(q[0]) as i64, p[1].min(q[1]) as i64],
        [p[0].max(q[0]) as i64, p[1].max(q[1]) as i64],
    )
}

/// The instance offset that puts `kind` rotated by `r` onto the level rectangle starting at
/// `target_min`.
fn place(kind: MeshKind, t: i32, r: u32, target_min: [i64; 2]) -> [i32; 2] {
    let (a, b) = local_rect(kind, t);
    let p = rotate(r, a);
    let q = rotate(r, b);
    [
        (target_min[0] - p[0].min(q[0]) as i64) as i32,
        (target_min[1] - p[1].min(q[1]) as i64) as i32,
    ]
}
