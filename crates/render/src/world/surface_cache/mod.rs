//! The surface cache: software Quake's idea on the GPU. A lit opaque surface seen by the camera
//! is baked once — its material times its light, at the material's own texel grid — into a
//! region of a mipmapped atlas; from the next frame on the camera draws it with one texture
//! fetch instead of a material fetch, a lightmap fetch and their arithmetic (most of the world
//! pass's shading on a software rasterizer: docs/performance.md). A surface is baked again when the styles it was baked
//! with change, or when the eye comes so close that it needs a finer level; regions not drawn
//! lately make room for new ones. What is not (yet) in the cache is drawn as before.
//!
//! This module plans: which surfaces can be drawn from the cache this frame, which to bake and
//! where. It knows nothing of the GPU (`atlas` bakes and draws), so tests check it alone.

pub(super) mod atlas;
mod surface;

use glam::{Vec2, Vec3, Vec4, Vec4Swizzles};
use guillotiere::{size2, AllocId, AtlasAllocator};

use self::surface::cache_surface;
#[cfg(test)]
use self::surface::{affine_fit, texel_stretch};
use super::mesh::WorldMesh;
use lanthorn_level::styles::{StyleMode, ANIMATED, MAX_STYLES, NO_STYLE};
use lanthorn_level::Level;

/// The atlas is this many texels square.
pub const ATLAS_SIZE: u32 = 4096;
/// Mip levels of the atlas: Quake's own textures have four.
pub const ATLAS_LEVELS: u32 = 4;
/// Regions start and end on multiples of this many texels, so each mip level of a region is
/// whole and holds only its own texels.
pub const ALIGN: u32 = 1 << (ATLAS_LEVELS - 1);
/// Texels baked beyond a surface's bounds on each side: a coarser level's texel at the edge
/// averages texels up to `ALIGN - 1` outside, and they must be the surface's own.
pub const PAD: f32 = ALIGN as f32;
/// The coarsest bake level: one cache texel for 2^6 × 2^6 material texels.
pub const MAX_LEVEL: u32 = 6;
/// Atlas texels baked per frame at most; surfaces beyond wait (drawn directly meanwhile).
pub const BAKE_BUDGET: u64 = 1 << 20;
/// A cached surface is drawn from the finest level (`cache_state::CACHED_MAGNIFIED`) where a
/// pixel spans at most this much of a texel of its region anywhere on it: the GPU's level of
/// detail is then at most 0 all over it. No margin: lavapipe's per-quad estimate drew the same
/// pixels with 1.0 as with 0.8 at 82 of the id maps' cameras (docs/performance.md); a GPU whose
/// estimate runs above the exact one may blend a little of the next level in at the far end
/// of such a surface, which the finest level's texel leaves out.
pub const MAGNIFIED_TEXELS: f32 = 1.0;
/// A cached surface is drawn from views of the two finest levels on their own
/// (`cache_state::CACHED_TWO_LEVELS`) where a pixel spans at most this many texels of its
/// region anywhere on it: the GPU's level of detail is then at most 1 all over it, so its
/// trilinear fetch reads no coarser level.
pub const TWO_LEVEL_TEXELS: f32 = 2.0;

/// What the cache needs of a surface, worked out once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CacheSurface {
    /// Lower corner of the surface's bounds in material texels (`uv × size`).
    pub min: Vec2,
    /// Upper corner of those bounds.
    pub max: Vec2,
    /// The material's size in texels.
    pub size: Vec2,
    /// World units per material texel (the geometric mean of the two axes).
    pub texel_world: f32,
    /// The most material texels one world unit along the surface spans, in any direction
    /// (`texel_stretch`).
    pub texel_stretch: f32,
    /// Its plane: unit normal and distance from the origin (`normal · p = w`).
    pub plane: Vec4,
    /// Atlas luxel coordinates at `uv`: `lm_base + uv.x · lm_du + uv.y · lm_dv`.
    pub lm_base: Vec2,
    /// Atlas luxels per unit of `uv.x`.
    pub lm_du: Vec2,
    /// Atlas luxels per unit of `uv.y`.
    pub lm_dv: Vec2,
    /// Lower corner of the luxels a bake may read: the surface's lightmap rect to the centres
    /// of its border.
    pub lm_min: Vec2,
    /// Upper corner of those luxels.
    pub lm_max: Vec2,
    /// Lower corner of the world-space bounds (how close the eye is).
    pub bounds_min: Vec3,
    /// Upper corner of the world-space bounds.
    pub bounds_max: Vec3,
    /// The surface's styles (`LightStyles::packed`), and what its vertices carry besides.
    pub styles: u32,
    /// The material's layer in the material texture array.
    pub layer: u32,
    /// Its vertex flags (`WorldVertex::flags`).
    pub flags: u32,
    /// Its light without a lightmap (`WorldVertex::unlit`).
    pub unlit: f32,
    /// Each lightmap slot's colour where the atlas keeps it grey
    /// (`WorldVertex::style_tints`).
    pub style_tints: [u32; 4],
}

/// Where a surface's bake lies: `level` (2^level material texels per cache texel), its
/// origin in material texels, and its place in the atlas (texels of level 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// One cache texel for 2^level × 2^level material texels.
    pub level: u32,
    /// The corner in material texels, on a multiple of [`ALIGN`] cache texels.
    pub origin: [i64; 2],
    /// The corner in the atlas, in texels of its level 0.
    pub atlas: [u32; 2],
    /// Width and height in atlas texels of level 0, one per cache texel.
    pub size: [u32; 2],
}

impl Region {
    /// The bake of `s` at `level`: its bounds grown by [`PAD`] cache texels, out to multiples of
    /// [`ALIGN`] cache texels in material texel space (so the cache's mips fall on the
    /// material's own), placed at the atlas origin.
    pub fn around(s: &CacheSurface, level: u32) -> Region {
        let step = (1i64 << level) as f64;
        let unit = step * ALIGN as f64;
        let pad = step * PAD as f64;
        let lo = |v: f32| ((v as f64 - pad) / unit).floor() as i64 * unit as i64;
        let hi = |v: f32| ((v as f64 + pad) / unit).ceil() as i64 * unit as i64;
        let origin = [lo(s.min.x), lo(s.min.y)];
        let end = [hi(s.max.x), hi(s.max.y)];
        let cells = |i: usize| ((end[i] - origin[i]) >> level).max(ALIGN as i64) as u32;
        Region {
            level,
            origin,
            atlas: [0, 0],
            size: [cells(0), cells(1)],
        }
    }

    /// Texels of atlas level 0.
    pub fn texels(&self) -> u64 {
        self.size[0] as u64 * self.size[1] as u64
    }

    /// The map from a vertex's `uv` to normalised atlas coordinates: `uv · xy + zw`.
    pub fn uv_map(&self, s: &CacheSurface) -> [f32; 4] {
        let step = (1u64 << self.level) as f64;
        let a = ATLAS_SIZE as f64;
        let scale = |i: usize| (s.size[i] as f64 / step / a) as f32;
        let offset = |i: usize| ((self.atlas[i] as f64 - self.origin[i] as f64 / step) / a) as f32;
        [scale(0), scale(1), offset(0), offset(1)]
    }

    /// The material texel coordinates of the region's corners: (x0, y0), (x1, y1).
    pub fn texel_corners(&self) -> [[f64; 2]; 2] {
        let step = (1u64 << self.level) as f64;
        let o = [self.origin[0] as f64, self.origin[1] as f64];
        [
            o,
            [
                o[0] + self.size[0] as f64 * step,
                o[1] + self.size[1] as f64 * step,
            ],
        ]
    }
}

pub use super::draws::cache_state as state;
use super::draws::CacheStates;

#[derive(Clone, Copy, Debug)]
struct Entry {
    alloc: AllocId,
    region: Region,
    /// The level the bake asked for: the atlas had room only for a coarser `region` when
    /// their levels differ.
    asked: u32,
    /// The brightness of each slot's style it was baked with.
    scales: [f32; 4],
    last_used: u64,
}

/// A surface to bake this frame, at `region`, with its slots' brightnesses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bake {
    /// The surface to bake (an index into `Level::surfaces`).
    pub surface: u32,
    /// Where in the atlas, and at which level.
    pub region: Region,
    /// The map from the surface's `uv` to normalised atlas coordinates
    /// ([`Region::uv_map`]).
    pub uv_map: [f32; 4],
}

/// What a frame's state of a surface reads of it (of its [`CacheSurface`] and plan), in one
/// cache line: a frame asks it of a few hundred surfaces of thousands, each a miss.
#[repr(C, align(64))]
#[derive(Clone, Copy, Default)]
struct Look {
    plane: Vec4,
    bounds_min: Vec3,
    bounds_max: Vec3,
    texel_world: f32,
    texel_stretch: f32,
    styles: u32,
    /// The finest level whose region fits the atlas (`finest_fit`).
    finest: u32,
    /// Its state while the cache holds none of it in this style mode: `BAKE`, or `DIRECT`
    /// where it cannot be cached or its styles animate.
    unheld: u8,
}

impl Look {
    fn of(s: &CacheSurface, finest: u32) -> Look {
        Look {
            plane: s.plane,
            bounds_min: s.bounds_min,
            bounds_max: s.bounds_max,
            texel_world: s.texel_world,
            texel_stretch: s.texel_stretch,
            styles: s.styles,
            finest,
            unheld: state::DIRECT,
        }
    }
}

/// What a frame's state reads of a surface's [`Entry`]: its level, the level asked for, the
/// slots' brightnesses; `level` `u32::MAX` where the cache holds none of it.
#[derive(Clone, Copy)]
struct Held {
    level: u32,
    asked: u32,
    scales: [f32; 4],
}

impl Held {
    const NONE: Held = Held {
        level: u32::MAX,
        asked: u32::MAX,
        scales: [0.0; 4],
    };
}

/// The cache's bookkeeping: which surfaces it holds, where, and when they were last drawn.
pub struct SurfacePlan {
    surfaces: Vec<Option<CacheSurface>>,
    entries: Vec<Option<Entry>>,
    /// Per surface, what a frame's state reads (`CacheStates::state`): of the surface, and of
    /// its entry.
    looks: Vec<Look>,
    held: Vec<Held>,
    alloc: AtlasAllocator,
    frame: u64,
    /// The style mode the states were set up for (animated styles are not cached).
    mode: Option<StyleMode>,
    /// Pixels per world unit at distance 1 (the viewport's focal length).
    focal_px: f32,
    eye: Vec3,
    /// The camera's forward, right and up axes this frame, where told
    /// ([`look_along`](Self::look_along)).
    axes: Option<[Vec3; 3]>,
    scales: [f32; MAX_STYLES],
    /// How many surfaces it can hold at all (counted once: asked every frame, counting them
    /// read every surface's entry).
    cacheable: usize,
}

impl SurfacePlan {
    /// A plan for `level`'s surfaces, worked out from their vertices in `mesh`, holding
    /// none of them yet.
    pub fn new(level: &Level, mesh: &WorldMesh) -> SurfacePlan {
        let mut first = vec![usize::MAX; level.surfaces.len()];
        for (i, v) in mesh.vertices.iter().enumerate().rev() {
            if let Some(f) = first.get_mut(v.surface as usize) {
                *f = i;
            }
        }
        let surfaces: Vec<_> = (0..level.surfaces.len())
            .map(|s| cache_surface(level, mesh.vertices.get(first[s]).copied(), s))
            .collect();
        SurfacePlan::of(surfaces)
    }

    /// A plan for these surfaces (`None`: not cacheable), holding none of them yet.
    fn of(surfaces: Vec<Option<CacheSurface>>) -> SurfacePlan {
        let n = surfaces.len();
        let units = (ATLAS_SIZE / ALIGN) as i32;
        let looks = surfaces
            .iter()
            .map(|s| {
                s.as_ref()
                    .map_or(Look::default(), |s| Look::of(s, finest_fit(s)))
            })
            .collect();
        SurfacePlan {
            cacheable: surfaces.iter().filter(|s| s.is_some()).count(),
            looks,
            held: vec![Held::NONE; n],
            surfaces,
            entries: vec![None; n],
            alloc: AtlasAllocator::new(size2(units, units)),
            frame: 0,
            mode: None,
            focal_px: 640.0,
            eye: Vec3::ZERO,
            axes: None,
            scales: [1.0; MAX_STYLES],
        }
    }

    /// Holds nothing any more (what the atlas holds was baked for another output: the LDR
    /// frame's gamma, or the HDR scene's doubled range); every surface is baked again.
    pub fn forget(&mut self) {
        *self = SurfacePlan::of(std::mem::take(&mut self.surfaces));
    }

    /// Surfaces the cache can hold at all.
    pub fn cacheable(&self) -> usize {
        self.cacheable
    }

    /// What the cache keeps of surface `s`; `None` where it cannot be cached.
    pub fn surface(&self, s: u32) -> Option<&CacheSurface> {
        self.surfaces.get(s as usize).and_then(|s| s.as_ref())
    }

    /// The frame's states (see [`state`]) of every surface, seen from `eye` with `focal_px`
    /// pixels per unit at distance 1 and the styles' brightnesses `scales` (`mode` says which
    /// animate).
    pub fn states(
        &mut self,
        eye: Vec3,
        focal_px: f32,
        scales: &[f32; MAX_STYLES],
        mode: StyleMode,
    ) -> Vec<u8> {
        self.begin_frame(eye, focal_px, scales, mode);
        (0..self.entries.len() as u32)
            .map(|s| self.state(s))
            .collect()
    }

    /// Starts a frame seen from `eye` (as [`states`](Self::states)); the draw builder then
    /// asks [`state`](Self::state) of the surfaces it draws. A walk through a large level
    /// holds thousands of regions, and working out every one's state cost as much as the
    /// draw building.
    pub fn begin_frame(
        &mut self,
        eye: Vec3,
        focal_px: f32,
        scales: &[f32; MAX_STYLES],
        mode: StyleMode,
    ) {
        self.frame += 1;
        (self.eye, self.focal_px, self.scales) = (eye, focal_px.max(1.0), *scales);
        self.axes = None;
        if self.mode != Some(mode) {
            self.mode = Some(mode);
            for (look, s) in self.looks.iter_mut().zip(&self.surfaces) {
                look.unheld = match s {
                    Some(s) if !animates(s.styles, mode) => state::BAKE,
                    _ => state::DIRECT,
                };
            }
        }
    }

    /// The frame's camera looks along `forward`, with `right` and `up` its pixel rows' and
    /// columns' directions (unit vectors; after [`begin_frame`](Self::begin_frame)): the
    /// two-level test then bounds the texels a pixel spans along them.
    pub fn look_along(&mut self, forward: Vec3, right: Vec3, up: Vec3) {
        self.axes = Some([forward, right, up]);
    }

    /// After the draws are built: `drawn` were drawn from the cache (they stay), `wanted` were
    /// drawn directly and are baked now, nearest first, within [`BAKE_BUDGET`] texels (one
    /// at least); a bake
    /// that finds no room evicts the regions drawn longest ago, else tries a coarser level.
    pub fn plan(&mut self, drawn: &[u32], wanted: &[u32]) -> Vec<Bake> {
        for &s in drawn {
            if let Some(e) = self.entries.get_mut(s as usize).and_then(|e| e.as_mut()) {
                e.last_used = self.frame;
            }
        }
        let mut bakes = Vec::new();
        let mut budget = BAKE_BUDGET;
        for &s in wanted {
            let Some(surface) = self.surface(s).copied() else {
                continue;
            };
            self.release(s as usize);
            let level = self.level_to_bake(s as usize);
            // The first bake goes whatever its size: a surface larger than the budget waits
            // for nothing.
            if !bakes.is_empty() && Region::around(&surface, level).texels() > budget {
                break;
            }
            let Some(region) = self.place(s as usize, &surface, level) else {
                continue;
            };
            budget = budget.saturating_sub(region.texels());
            bakes.push(Bake {
                surface: s,
                region,
                uv_map: region.uv_map(&surface),
            });
        }
        bakes
    }

    /// Allocates `s`'s region at `level` or coarser, evicting what was drawn longest ago.
    fn place(&mut self, si: usize, s: &CacheSurface, asked: u32) -> Option<Region> {
        let scales = self.slot_scales(s.styles);
        let mut evictable: Option<Vec<(u64, usize)>> = None;
        for level in asked..=MAX_LEVEL {
            let region = Region::around(s, level);
            let units = |t: u32| (t / ALIGN) as i32;
            let want = size2(units(region.size[0]), units(region.size[1]));
            loop {
                if let Some(a) = self.alloc.allocate(want) {
                    let atlas = [
                        a.rectangle.min.x as u32 * ALIGN,
                        a.rectangle.min.y as u32 * ALIGN,
                    ];
                    let region = Region { atlas, ..region };
                    self.hold(
                        si,
                        Entry {
                            alloc: a.id,
                            region,
                            asked,
                            scales,
                            last_used: self.frame,
                        },
                    );
                    return Some(region);
                }
                let list = evictable.get_or_insert_with(|| self.evictable());
                let Some((_, victim)) = list.pop() else {
                    break;
                };
                self.release(victim);
            }
        }
        None
    }

    /// The cache holds surface `i` in `entry`.
    fn hold(&mut self, i: usize, entry: Entry) {
        self.held[i] = Held {
            level: entry.region.level,
            asked: entry.asked,
            scales: entry.scales,
        };
        self.entries[i] = Some(entry);
    }

    /// The cache holds nothing of surface `i` any more (its region is free).
    fn release(&mut self, i: usize) {
        if let Some(e) = self.entries[i].take() {
            self.alloc.deallocate(e.alloc);
        }
        self.held[i] = Held::NONE;
    }

    /// Entries not drawn this frame, the one drawn longest ago last.
    fn evictable(&self) -> Vec<(u64, usize)> {
        let mut v: Vec<(u64, usize)> = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                e.filter(|e| e.last_used < self.frame)
                    .map(|e| (e.last_used, i))
            })
            .collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v
    }

    /// The coarsest level whose texels are still no larger than a pixel where `s` comes
    /// closest to the eye (the GPU's level is at least as coarse everywhere on it).
    pub fn needed_level(&self, s: &CacheSurface) -> u32 {
        self.needed_level_of(&Look::of(s, 0))
    }

    /// [`needed_level`](Self::needed_level) of what a surface's look holds.
    fn needed_level_of(&self, s: &Look) -> u32 {
        let nearest = self.eye.clamp(s.bounds_min, s.bounds_max);
        let d = self.eye.distance(nearest).max(1e-3);
        let lod = (d / (self.focal_px * s.texel_world)).log2();
        if lod.is_finite() && lod > 0.0 {
            (lod.floor() as u32).min(MAX_LEVEL)
        } else {
            0
        }
    }

    /// Whether a pixel spans at most `MAGNIFIED_TEXELS` of a texel of `s`'s region at `level`
    /// wherever it shows, by either bound (`PixelSpan`).
    /// For the tests: `state` works out one `PixelSpan` and compares it with both thresholds.
    #[cfg(test)]
    fn magnified(&self, s: &Look, level: u32) -> bool {
        self.pixel_span(s, level).within(MAGNIFIED_TEXELS)
    }

    /// Whether `s` at `level` is drawn from the two finest levels' own views: at most
    /// `TWO_LEVEL_TEXELS` a pixel, by either bound (`PixelSpan`).
    /// For the tests: `state` works out one `PixelSpan` and compares it with both thresholds.
    #[cfg(test)]
    fn two_levels(&self, s: &Look, level: u32) -> bool {
        self.pixel_span(s, level).within(TWO_LEVEL_TEXELS)
    }

    /// Both bounds on the texels of `s`'s region at `level` a pixel spans: the one for any
    /// camera at the eye, and the frame's camera's own where it is told.
    fn pixel_span(&self, s: &Look, level: u32) -> PixelSpan {
        PixelSpan {
            any_camera: self.any_camera_span(s, level),
            seen: (self.axes).and_then(|axes| self.seen_span(s, level, axes)),
        }
    }

    /// The bound for any camera at the eye, as a `PixelSpan` pair. At distance r a pixel spans
    /// r / f units across the ray, stretched by 1 / cos θ = r / h along the plane (h: the
    /// eye's height over it): at most r² / (f h) units, r at most the distance to the bounds'
    /// farthest corner (pixels off the axis span less, so this bounds them too).
    fn any_camera_span(&self, s: &Look, level: u32) -> [f32; 2] {
        let h = (s.plane.xyz().dot(self.eye) - s.plane.w).abs();
        let far = (self.eye - s.bounds_min)
            .abs()
            .max((self.eye - s.bounds_max).abs());
        let texels_per_unit = s.texel_stretch / (1u32 << level) as f32;
        [far.length_squared() * texels_per_unit, self.focal_px * h]
    }

    /// The bound along the frame's pixel rows and columns (what the GPU's level of detail
    /// measures) wherever the camera looking along `axes` sees the surface, as a `PixelSpan`
    /// pair; `None` for an eye on its plane. Where the ray through pixel (x, y) meets the
    /// plane at depth z, the point moves z / f (R + v (n·R) / h) a pixel along x (v: from
    /// the eye to the point, h: the eye's signed height over the plane; the same with U
    /// along y). z is linear and the bracket affine in the point, so over the bounds' box
    /// each is largest at a corner, and their product bounds the step everywhere on the
    /// surface in front of the eye. Tighter than the other for a surface seen off the view's
    /// axis, which that one takes as seen along it.
    fn seen_span(&self, s: &Look, level: u32, axes: [Vec3; 3]) -> Option<[f32; 2]> {
        let [forward, right, up] = axes;
        let n = s.plane.xyz();
        let h = n.dot(self.eye) - s.plane.w;
        if h.abs() < 1e-3 {
            return None;
        }
        let (along_x, along_y) = (n.dot(right) / h, n.dot(up) / h);
        let (mut depth, mut step_sq) = (0.0f32, 0.0f32);
        for corner in 0..8 {
            let pick = glam::BVec3::new(corner & 1 != 0, corner & 2 != 0, corner & 4 != 0);
            let v = Vec3::select(pick, s.bounds_max, s.bounds_min) - self.eye;
            depth = depth.max(v.dot(forward));
            let x = (right + v * along_x).length_squared();
            step_sq = step_sq.max(x).max((up + v * along_y).length_squared());
        }
        let texels_per_unit = s.texel_stretch / (1u32 << level) as f32;
        Some([depth * step_sq.sqrt() * texels_per_unit, self.focal_px])
    }

    /// The level surface `i` (`s`) is baked at: the one it needs, or the finest whose region
    /// fits the atlas at all (a surface larger than the atlas at the level it needs was baked
    /// coarser, and then found not fine enough and baked again, every frame).
    fn level_to_bake(&self, i: usize) -> u32 {
        let look = &self.looks[i];
        self.needed_level_of(look).max(look.finest)
    }

    /// Each slot's style brightness this frame (0 for an empty slot), as the shader sees them.
    fn slot_scales(&self, styles: u32) -> [f32; 4] {
        std::array::from_fn(|k| {
            let style = (styles >> (8 * k)) & 255;
            if style == NO_STYLE as u32 {
                0.0
            } else {
                self.scales[(style as usize) & (MAX_STYLES - 1)]
            }
        })
    }

    /// The region `s` holds now, if any.
    pub fn region(&self, s: u32) -> Option<Region> {
        self.entries
            .get(s as usize)
            .copied()
            .flatten()
            .map(|e| e.region)
    }
}

/// Where the cache holds a surface this frame (after [`SurfacePlan::begin_frame`]).
impl CacheStates for SurfacePlan {
    fn state(&self, surface: u32) -> u8 {
        let i = surface as usize;
        let (Some(look), Some(held)) = (self.looks.get(i), self.held.get(i)) else {
            return state::DIRECT;
        };
        if look.unheld == state::DIRECT || held.level == Held::NONE.level {
            return look.unheld;
        }
        // Fine enough, or as fine as the atlas had room for when this level was asked for
        // (asked again, it would be baked coarse again, every frame).
        let level = self.needed_level_of(look).max(look.finest);
        let fine_enough = held.level <= level || held.asked <= level;
        if !(fine_enough && held.scales == self.slot_scales(look.styles)) {
            return state::BAKE;
        }
        // Both bounds worked out once, for both batches' thresholds.
        let span = self.pixel_span(look, held.level);
        if span.within(MAGNIFIED_TEXELS) {
            state::CACHED_MAGNIFIED
        } else if span.within(TWO_LEVEL_TEXELS) {
            state::CACHED_TWO_LEVELS
        } else {
            state::CACHED
        }
    }
}

/// What a pixel spans of a surface's region, by two bounds, each a pair (most, scale): the
/// surface spans at most `t` texels a pixel where most ≤ t · scale. Worked out once a surface a
/// frame and compared with each cached batch's threshold.
#[derive(Clone, Copy, Debug)]
struct PixelSpan {
    /// The bound for any camera at the eye (`SurfacePlan::any_camera_span`).
    any_camera: [f32; 2],
    /// The frame's camera's own, where it is told (`SurfacePlan::seen_span`).
    seen: Option<[f32; 2]>,
}

impl PixelSpan {
    /// Whether either bound keeps a pixel within `texels` texels.
    fn within(&self, texels: f32) -> bool {
        let fits = |[most, scale]: [f32; 2]| most <= texels * scale;
        fits(self.any_camera) || self.seen.is_some_and(fits)
    }
}

/// The finest level at which `s`'s region fits the atlas.
fn finest_fit(s: &CacheSurface) -> u32 {
    let fits = |level: u32| {
        let size = Region::around(s, level).size;
        size[0] <= ATLAS_SIZE && size[1] <= ATLAS_SIZE
    };
    (0..MAX_LEVEL).find(|&l| fits(l)).unwrap_or(MAX_LEVEL)
}

/// Whether one of `styles`' slots animates in `mode` (those surfaces are drawn directly: they
/// would be baked again ten times a second).
fn animates(styles: u32, mode: StyleMode) -> bool {
    mode == StyleMode::Animated
        && (0..4).any(|k| {
            let style = ((styles >> (8 * k)) & 255) as usize;
            style < ANIMATED.len() && ANIMATED[style].len() > 1
        })
}

#[cfg(test)]
mod tests;
