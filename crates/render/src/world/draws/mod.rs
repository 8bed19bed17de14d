//! What the world pass draws for a visible set, built on the CPU with no GPU: one per-draw
//! record per visible cell or object (and per camera-view liquid surface), one indexed sub-draw
//! per record and pipeline, grouped into batches by view class and surface kind.

mod builder;
mod surface_tests;

use bytemuck::{Pod, Zeroable};

use glam::{Mat4, Vec3, Vec4};

use super::mesh::{IndexRange, SurfaceCull, SurfaceKind, SurfaceRange, WorldMesh, KINDS};
use lanthorn_geom::octagon::MAX_CLIPPED;
use lanthorn_geom::{Camera, Octagon};
use lanthorn_vis::VisibleSet;

pub use self::builder::DrawBuilder;
use self::surface_tests::*;
pub use self::surface_tests::{culled_surfaces, CullReason};

/// One indexed sub-draw, laid out as an indexed indirect command (`DrawIndexedIndirectArgs`), so
/// the list uploads as it is; the recording itself knows nothing of the GPU.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct DrawCommand {
    /// Indices drawn, from `first_index`.
    pub index_count: u32,
    /// Always 1: the one instance reads its record.
    pub instance_count: u32,
    /// First index in the world mesh's index buffer.
    pub first_index: u32,
    /// Added to each index; 0, as the mesh's indices are absolute.
    pub base_vertex: i32,
    /// The draw record's index, which the shader reads as the instance index.
    pub first_instance: u32,
}

/// The GPU per-draw record of DESIGN.md: octagon, view, cell; plus the object's translation.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct DrawRecord {
    /// Screen octagon (NDC) the draw is clipped to: the cell's or object's in its view.
    pub octagon: Octagon,
    /// The view it is drawn in (0: the camera's), an index into the frame's views.
    pub view: u32,
    /// Cell id, or `u32::MAX - object` for objects.
    pub cell: u32,
    /// Portals the flow crossed to reach the cell (the `depth` tint; 0 without a flow).
    pub depth: u32,
    /// Light multiplier of an object lit where it is: RGB bytes, `LIGHT_UNIT` is 1
    /// (`LIGHT_ONE` for everything with its own lightmap).
    pub light: u32,
    /// xyz: the object's translation in world units (zero for cells); w: 0.
    pub origin: [f32; 4],
}

/// The byte that means a light multiplier of 1 in `DrawRecord::light` (room up to ×4).
pub const LIGHT_UNIT: u32 = 64;
/// `DrawRecord::light` of 1 in every channel.
pub const LIGHT_ONE: u32 = LIGHT_UNIT | (LIGHT_UNIT << 8) | (LIGHT_UNIT << 16);

/// `DrawRecord::light` of an object lit by the light grid: each face's light is in the object
/// light buffer, by surface (`object_light`). No packed multiplier has this bit.
pub const GRID_LIT: u32 = 1 << 31;

/// Packs a light multiplier (linear RGB, 0..4) into `DrawRecord::light`.
pub fn pack_light(rgb: [f32; 3]) -> u32 {
    let byte = |v: f32| (v * LIGHT_UNIT as f32).round().clamp(0.0, 255.0) as u32;
    byte(rgb[0]) | (byte(rgb[1]) << 8) | (byte(rgb[2]) << 16)
}

/// What the world pass submitted in one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorldStats {
    /// GPU draw commands (a multi-draw counts as one).
    pub draw_calls: u32,
    /// Indirect (or direct) sub-draws.
    pub sub_draws: u32,
    /// Views drawn (1 + mirrors and teleporters seen).
    pub views: u32,
    /// Triangles drawn.
    pub triangles: u64,
    /// World surfaces drawn (every copy; objects' not counted).
    pub surfaces: u32,
    /// Of `surfaces`, the sky's (quakespasm's `r_speeds` counts them apart from its wpoly).
    pub sky_surfaces: u32,
    /// Of the camera's opaque surfaces, those drawn from the surface cache.
    pub cached: u32,
    /// Of `cached`, those magnified wherever they show (drawn from the finest level alone:
    /// `MAGNIFIED_BATCH`).
    pub magnified: u32,
    /// Of `cached`, those drawn from the two finest levels' own views
    /// (`TWO_LEVELS_BATCH`).
    pub two_levels: u32,
    /// Of the camera's opaque surfaces, those drawn directly that the cache wants to hold
    /// (baked for the next frames).
    pub baking: u32,
}

/// One drawable this frame: a cell (and the view it is seen in) or an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Cell { cell: u32, view: u32 },
    Object { object: u32, view: u32 },
}

/// Which views a pipeline draws. The camera's own view has no clip plane, so its fragment
/// shader has no plane test: without a `discard` the depth test runs before shading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ViewClass {
    Camera = 0,
    /// Through a teleporter: the portal plane clips.
    Portal = 1,
    /// Through a mirror: the portal plane clips and triangles wind the other way.
    Mirrored = 2,
}

impl ViewClass {
    pub(crate) const ALL: [ViewClass; 3] =
        [ViewClass::Camera, ViewClass::Portal, ViewClass::Mirrored];
}

/// Batches: view class × surface kind (`batch(class, kind)`), then the three cached ones.
pub const BATCHES: usize = 3 * KINDS + 3;
/// The batch of the camera's opaque surfaces drawn from the surface cache (its own pipeline);
/// batches below are [view class] × [opaque, sky, fence, liquid].
pub const CACHED_BATCH: usize = 3 * KINDS;
/// The batch of the cached surfaces magnified wherever they show (`cache_state::
/// CACHED_MAGNIFIED`), drawn from the cache's finest level (`fs_cached_magnified`).
pub const MAGNIFIED_BATCH: usize = 3 * KINDS + 1;
/// The batch of the cached surfaces with at most two texels a pixel wherever they show
/// (`cache_state::CACHED_TWO_LEVELS`), blended from views of the cache's two finest levels
/// (`fs_cached_two_levels`).
pub const TWO_LEVELS_BATCH: usize = 3 * KINDS + 2;
/// The cached batches, nearest first (as the frame draws them).
pub const CACHED_BATCHES: [usize; 3] = [MAGNIFIED_BATCH, TWO_LEVELS_BATCH, CACHED_BATCH];
/// The order the frame draws its batches in: the cached batches first (most of what the camera
/// sees, front to back; the magnified ones, mostly near, then those at most two texels a pixel,
/// before the rest), then view class ×
/// kind, the camera's liquids last: the top of water blends over the reflection drawn under
/// it (a mirrored view). The id pass and the fragment counters follow it too, so depth ties
/// and overdraw come out as in the frame.
pub(crate) const BATCH_ORDER: [usize; BATCHES] = [
    MAGNIFIED_BATCH,
    TWO_LEVELS_BATCH,
    CACHED_BATCH,
    0,
    1,
    2,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
    3,
];
/// The order of a frame whose camera liquids cover what is under them (`WorldPass::
/// liquids_cover`) and whose cells may lie under them (`DrawList::nothing_under_liquids`
/// false: culling without the portal flow, a window past a cut wall or a fence, an eye within
/// the near plane's reach of a liquid): they come first and write depth, so a pool's
/// floor and walls under the surface fail the depth test instead of being shaded and then
/// covered. Where the flow stopped at every liquid, nothing drawn lies under one, and they go
/// last as in [`BATCH_ORDER`] (still writing depth), after the walkways and pillars in front
/// of them.
pub(crate) const LIQUIDS_FIRST_ORDER: [usize; BATCHES] = [
    3,
    MAGNIFIED_BATCH,
    TWO_LEVELS_BATCH,
    CACHED_BATCH,
    0,
    1,
    2,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
];
const _: () = assert!(KINDS == 4 && SurfaceKind::Liquid as usize == 3);

/// The batch of (`class`, `kind`).
pub(crate) fn batch(class: ViewClass, kind: SurfaceKind) -> usize {
    class as usize * KINDS + kind as usize
}

/// The view class and surface kind of `batch`'s draws.
pub(crate) fn batch_class_kind(batch: usize) -> (ViewClass, SurfaceKind) {
    if CACHED_BATCHES.contains(&batch) {
        return (ViewClass::Camera, SurfaceKind::Opaque);
    }
    (
        ViewClass::ALL[batch / KINDS],
        SurfaceKind::ALL[batch % KINDS],
    )
}

/// What the world pass uploads and records for one frame.
#[derive(Clone, Debug, Default)]
pub struct DrawList {
    /// Per-draw records; a sub-draw's `first_instance` is its record's index.
    pub records: Vec<DrawRecord>,
    /// Indexed sub-draws, batch after batch.
    pub commands: Vec<DrawCommand>,
    /// Per batch: (first command, count) into `commands`.
    pub batches: [(u32, u32); BATCHES],
    /// Sub-draws, views and triangles; `draw_calls` counts one per non-empty batch with
    /// multi-draw, one per sub-draw without.
    pub stats: WorldStats,
    /// The views after the camera's (view `i + 1`): where each is seen from.
    pub view_links: Vec<ViewLink>,
    /// The camera's opaque surfaces drawn from the surface cache, front to back.
    pub cached_surfaces: Vec<u32>,
    /// The camera's opaque surfaces drawn directly that the cache wants
    /// (`surface_cache::state`), front to back.
    pub bake_surfaces: Vec<u32>,
    /// No cell drawn lies under a liquid that covers it (`VisibleSet::nothing_under_liquids`):
    /// covering liquids then go last (`BATCH_ORDER`), after what may stand in front of them.
    pub nothing_under_liquids: bool,
}

impl DrawList {
    /// Batches in the frame's order with their (first command, count); `liquids_first`: the
    /// order of a frame whose camera liquids cover (`LIQUIDS_FIRST_ORDER`).
    pub(crate) fn batches_in_order(
        &self,
        liquids_first: bool,
    ) -> impl Iterator<Item = (usize, (u32, u32))> + '_ {
        let order = if liquids_first {
            LIQUIDS_FIRST_ORDER
        } else {
            BATCH_ORDER
        };
        order.into_iter().map(|b| (b, self.batches[b]))
    }

    /// The sub-draws of (`class`, `kind`) in the frame's order: for the camera's opaque
    /// surfaces the cached batches' first, then the batch's.
    pub(crate) fn commands_of(
        &self,
        class: ViewClass,
        kind: SurfaceKind,
    ) -> impl Iterator<Item = &DrawCommand> + '_ {
        let cached = class == ViewClass::Camera && kind == SurfaceKind::Opaque;
        let [a, b, c] = CACHED_BATCHES;
        let batches = [a, b, c, batch(class, kind)];
        batches
            .into_iter()
            .skip(3 - 3 * cached as usize)
            .flat_map(move |b| {
                let (first, count) = self.batches[b];
                &self.commands[first as usize..(first + count) as usize]
            })
    }
}

/// Makes every sub-draw that would read past the mesh's `index_count` indices a no-op: what
/// wgpu's indirect validation does on the GPU, which the world pass does without
/// (`InstanceFlags::VALIDATION_INDIRECT_CALL` off: a compute pass and a copy of the commands
/// every frame, docs/performance.md). The builder takes every range from the mesh, so none is
/// out of range; an out-of-range index must not reach the GPU all the same.
pub(crate) fn keep_within_indices(commands: &mut [DrawCommand], index_count: usize) {
    for c in commands {
        if c.first_index as usize + c.index_count as usize > index_count {
            c.index_count = 0;
        }
    }
}

/// Where a mirror's or teleporter's view is seen from (the id pass shows it only there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewLink {
    /// The view it is seen in (0: the camera's).
    pub parent: u32,
    /// The portal it is seen through.
    pub portal: u32,
    pub mirrored: bool,
}

pub use crate::settings::SurfaceTests;

/// Per surface, what the frame may do with it (`SurfaceCache::states`).
pub mod cache_state {
    /// Not cached: drawn directly.
    pub const DIRECT: u8 = 0;
    /// Cacheable but not in the cache as this frame needs it: drawn directly, then baked.
    pub const BAKE: u8 = 1;
    /// In the cache: drawn from it.
    pub const CACHED: u8 = 2;
    /// In the cache, and magnified wherever it shows: drawn from the cache's finest level
    /// ([`MAGNIFIED_BATCH`](super::MAGNIFIED_BATCH)).
    pub const CACHED_MAGNIFIED: u8 = 3;
    /// In the cache, and at most two texels of its region a pixel wherever it shows: blended
    /// from the two finest levels' own views
    /// ([`TWO_LEVELS_BATCH`](super::TWO_LEVELS_BATCH)).
    pub const CACHED_TWO_LEVELS: u8 = 4;
}

/// Where the surface cache holds each surface this frame (`SurfacePlan` once its frame is
/// begun): asked only of the surfaces drawn, as they are drawn.
pub trait CacheStates {
    /// Surface `surface`'s [`cache_state`].
    fn state(&self, surface: u32) -> u8;
}

/// What one frame's draws are built from.
#[derive(Clone, Copy)]
pub struct DrawInputs<'a> {
    /// What culling found visible: cells, objects and the views they are seen in.
    pub visible: &'a VisibleSet,
    /// The camera the frame is drawn from.
    pub camera: &'a Camera,
    /// Records that fit the buffer: those beyond are not drawn.
    pub max_records: usize,
    /// One draw command per batch (multi-draw indirect), or one per sub-draw.
    pub multi_draw: bool,
    /// The tests a surface of a visible cell or object must pass to be drawn.
    pub tests: SurfaceTests,
    /// The surface cache, its frame begun (`None`: nothing is cached): the camera's opaque
    /// surfaces it holds go to [`CACHED_BATCHES`].
    pub cache: Option<&'a dyn CacheStates>,
}

/// The draws of one frame in a fresh builder (tests, tools; the pass keeps one builder).
pub fn build_draws(mesh: &WorldMesh, inputs: &DrawInputs) -> DrawList {
    DrawBuilder::default().build(mesh, inputs).clone()
}

#[cfg(test)]
mod tests;
