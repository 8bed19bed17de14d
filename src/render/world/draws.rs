//! What the world pass draws for a visible set, built on the CPU with no GPU: one per-draw
//! record per visible cell or object (and per camera-view liquid surface), one indexed sub-draw
//! per record and pipeline, grouped into batches by view class and surface kind.

use bytemuck::{Pod, Zeroable};

use glam::{Mat4, Vec3, Vec4};

use super::mesh::{IndexRange, SurfaceCull, SurfaceKind, SurfaceRange, WorldMesh};
use crate::geom::octagon::MAX_CLIPPED;
use crate::geom::{Camera, Octagon};
use crate::vis::VisibleSet;

/// The GPU per-draw record of DESIGN.md: octagon, view, cell; plus the object's translation.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct DrawRecord {
    pub octagon: Octagon,
    pub view: u32,
    /// Cell id, or `u32::MAX - object` for objects.
    pub cell: u32,
    /// Portals the flow crossed to reach the cell (the `depth` tint; 0 without a flow).
    pub depth: u32,
    /// Light multiplier of an object lit where it is: RGB bytes, `LIGHT_UNIT` is 1
    /// (`LIGHT_ONE` for everything with its own lightmap).
    pub light: u32,
    pub origin: [f32; 4],
}

/// The byte that means a light multiplier of 1 in `DrawRecord::light` (room up to ×4).
pub const LIGHT_UNIT: u32 = 64;
/// `DrawRecord::light` of 1 in every channel.
pub const LIGHT_ONE: u32 = LIGHT_UNIT | (LIGHT_UNIT << 8) | (LIGHT_UNIT << 16);

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
    pub triangles: u64,
    /// World surfaces drawn (every copy; objects' not counted).
    pub surfaces: u32,
    /// Of the camera's opaque surfaces, those drawn from the surface cache, and those drawn
    /// directly that it wants to hold (baked for the next frames).
    pub cached: u32,
    pub baking: u32,
}

/// One drawable this frame: a cell (and the view it is seen in) or an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Cell { cell: u32, view: u32 },
    Object { object: u32, view: u32 },
}

/// Which views a pipeline draws. The camera's own view has no clip plane, so its fragment
/// shader has no plane test: without a `discard` the depth test runs before shading (on
/// lavapipe this halves the world pass).
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

/// Batches in drawing order: view class × surface kind (`class * 3 + kind`).
pub const BATCHES: usize = 10;
/// The batch of the camera's opaque surfaces drawn from the surface cache (its own pipeline);
/// batches below are [view class] × [opaque, sky, liquid].
pub const CACHED_BATCH: usize = 9;
/// The order the frame draws its batches in: the cached batch first (most of what the camera
/// sees, front to back), then view class × kind. The id pass and the fragment counters follow
/// it too, so depth ties and overdraw come out as in the frame.
pub(crate) const BATCH_ORDER: [usize; BATCHES] = [CACHED_BATCH, 0, 1, 2, 3, 4, 5, 6, 7, 8];

/// The view class and surface kind of `batch`'s draws.
pub(crate) fn batch_class_kind(batch: usize) -> (ViewClass, SurfaceKind) {
    if batch == CACHED_BATCH {
        return (ViewClass::Camera, SurfaceKind::Opaque);
    }
    (ViewClass::ALL[batch / 3], SurfaceKind::ALL[batch % 3])
}

/// What the world pass uploads and records for one frame.
#[derive(Clone, Debug, Default)]
pub struct DrawList {
    /// Per-draw records; a sub-draw's `first_instance` is its record's index.
    pub records: Vec<DrawRecord>,
    /// Indexed sub-draws, batch after batch.
    pub commands: Vec<wgpu::util::DrawIndexedIndirectArgs>,
    /// Per batch: (first command, count) into `commands`.
    pub batches: [(u32, u32); BATCHES],
    /// Sub-draws, views and triangles; `draw_calls` counts one per non-empty batch with
    /// multi-draw, one per sub-draw without.
    pub stats: WorldStats,
    /// The views after the camera's (view `i + 1`): where each is seen from.
    pub view_links: Vec<ViewLink>,
    /// The camera's opaque surfaces drawn from the surface cache, and those drawn directly
    /// that the cache wants (`surface_cache::state`), front to back.
    pub cached_surfaces: Vec<u32>,
    pub bake_surfaces: Vec<u32>,
}

impl DrawList {
    /// The sub-draws of (`class`, `kind`) in the frame's order: for the camera's opaque
    /// surfaces the cached batch's first, then the batch's.
    /// Batches in the frame's order with their (first command, count).
    pub(crate) fn batches_in_order(&self) -> impl Iterator<Item = (usize, (u32, u32))> + '_ {
        BATCH_ORDER.into_iter().map(|b| (b, self.batches[b]))
    }

    pub(crate) fn commands_of(
        &self,
        class: ViewClass,
        kind: SurfaceKind,
    ) -> impl Iterator<Item = &wgpu::util::DrawIndexedIndirectArgs> + '_ {
        let cached = class == ViewClass::Camera && kind == SurfaceKind::Opaque;
        let batches = [CACHED_BATCH, class as usize * 3 + kind as usize];
        batches
            .into_iter()
            .skip(1 - cached as usize)
            .flat_map(move |b| {
                let (first, count) = self.batches[b];
                &self.commands[first as usize..(first + count) as usize]
            })
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

/// Builds draw lists, keeping its working memory between frames so a warm frame does not
/// allocate.
#[derive(Default)]
pub struct DrawBuilder {
    items: Vec<Item>,
    /// Camera-view liquid surfaces this frame, once each, with the union of their cells'
    /// octagons (`liquid_stamp` marks the frame a surface was first seen in).
    liquids: Vec<u32>,
    liquid_stamp: Vec<u32>,
    liquid_octagon: Vec<Octagon>,
    frame: u32,
    /// Camera-view surfaces listed by several visible cells (`SurfaceTests::once`).
    shared: SharedSurfaces,
    /// The cached batch's sub-draws while the others are built.
    cached: Vec<wgpu::util::DrawIndexedIndirectArgs>,
    list: DrawList,
}

/// The camera view's cell surfaces that pass the tests, per kind (opaque, sky) in item order,
/// and for those that pass in several visible cells the record they are drawn once with: the
/// union of those cells' octagons (conservative, like the camera's liquids).
#[derive(Default)]
struct SharedSurfaces {
    passing: [Vec<(u32, SurfaceRange)>; 2],
    /// Per surface: the frame it last passed in, in how many cells, their octagons' union,
    /// its shared record (`u32::MAX`: none, drawn per cell), the frame it was drawn in.
    stamp: Vec<u32>,
    cells: Vec<u32>,
    union: Vec<Octagon>,
    record: Vec<u32>,
    emitted: Vec<u32>,
}

/// Which tests a surface of a visible cell (or object) must pass to be drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurfaceTests {
    /// Its box's screen octagon meets its cell's octagon (inside the frustum, too).
    pub octagon: bool,
    /// Its plane faces the eye (only where every pipeline culls back faces: not in levels whose
    /// id pass keeps back faces as occluders).
    pub back_faces: bool,
    /// In the camera's view, once, whichever visible cells list it: clipped to the union of
    /// their octagons (GLQuake marks surfaces once too); off, each visible cell draws its copy
    /// clipped to its own octagon.
    pub once: bool,
    /// Its bounding box is not wholly outside one of the frustum's side planes (quakespasm's
    /// per-surface `R_CullBox`; the octagon test is exact and keeps a subset).
    pub boxes: bool,
}

impl SurfaceTests {
    /// Whole cells: the truth of vis-check, and the baseline the tests are measured against.
    pub const NONE: SurfaceTests = SurfaceTests {
        octagon: false,
        back_faces: false,
        once: false,
        boxes: false,
    };
    pub const ALL: SurfaceTests = SurfaceTests {
        octagon: true,
        back_faces: true,
        once: true,
        boxes: false,
    };
    /// GLQuake's as quakespasm has it (`R_MarkSurfaces`): surfaces of the marked leaves, each
    /// once, facing the eye, with a box in the frustum.
    pub const GLQUAKE: SurfaceTests = SurfaceTests {
        octagon: false,
        back_faces: true,
        once: true,
        boxes: true,
    };
}

/// What one frame's draws are built from.
#[derive(Clone, Copy)]
pub struct DrawInputs<'a> {
    pub visible: &'a VisibleSet,
    pub camera: &'a Camera,
    /// Records that fit the buffer: those beyond are not drawn.
    pub max_records: usize,
    /// One draw command per batch (multi-draw indirect), or one per sub-draw.
    pub multi_draw: bool,
    pub tests: SurfaceTests,
    /// Per surface, `surface_cache::state` (empty: nothing is cached): the camera's opaque
    /// surfaces in the cache go to [`CACHED_BATCH`].
    pub cache_states: &'a [u8],
}

/// The draws of one frame in a fresh builder (tests, tools; the pass keeps one builder).
pub fn build_draws(mesh: &WorldMesh, inputs: &DrawInputs) -> DrawList {
    DrawBuilder::default().build(mesh, inputs).clone()
}

impl DrawBuilder {
    /// This frame's draws: records for the visible cells, then objects, then camera-view
    /// liquids; sub-draws per batch (portal views test their clip plane, mirrored views wind
    /// the other way), one per run of consecutive surfaces that pass the tests.
    pub fn build(&mut self, mesh: &WorldMesh, inputs: &DrawInputs) -> &DrawList {
        let liquid_base = self.collect_records(mesh, inputs.visible);
        self.list.records.truncate(inputs.max_records);
        let eyes = ViewEyes::of_inputs(inputs);
        if inputs.tests.once {
            self.share(mesh, inputs, &eyes);
        }
        self.build_batches(mesh, inputs, &eyes, liquid_base);
        self.list.stats.views = 1 + inputs.visible.views.len() as u32;
        self.list.view_links.clear();
        let links = inputs.visible.views.iter().map(|v| ViewLink {
            parent: v.parent,
            portal: v.portal,
            mirrored: v.mirrored,
        });
        self.list.view_links.extend(links);
        &self.list
    }

    /// The list of the last `build`.
    pub(super) fn list(&self) -> &DrawList {
        &self.list
    }

    /// Records: one per visible cell, then objects, then liquid surfaces (the union of the
    /// octagons of the visible cells that list each). Returns the index of the first liquid
    /// record.
    fn collect_records(&mut self, mesh: &WorldMesh, visible: &VisibleSet) -> usize {
        let records = &mut self.list.records;
        records.clear();
        self.items.clear();
        for (i, c) in visible.cells.iter().enumerate() {
            self.items.push(Item::Cell {
                cell: c.cell,
                view: c.view,
            });
            records.push(DrawRecord {
                octagon: c.octagon,
                view: c.view,
                cell: c.cell,
                depth: visible.flow_depth.get(i).copied().unwrap_or(0) as u32,
                light: LIGHT_ONE,
                origin: [0.0; 4],
            });
        }
        for o in &visible.objects {
            self.items.push(Item::Object {
                object: o.object,
                view: o.view,
            });
            records.push(DrawRecord {
                octagon: o.octagon,
                view: o.view,
                cell: u32::MAX - o.object,
                depth: 0,
                light: pack_light(o.light),
                origin: o.origin.extend(0.0).to_array(),
            });
        }
        self.collect_camera_liquids(mesh, visible);
        let liquid_base = self.list.records.len();
        for &l in &self.liquids {
            self.list.records.push(DrawRecord {
                octagon: self.liquid_octagon[l as usize],
                view: 0,
                cell: u32::MAX,
                depth: 0,
                light: LIGHT_ONE,
                origin: [0.0; 4],
            });
        }
        liquid_base
    }

    /// Liquids of the camera's view once each, with the union of their cells' octagons; views
    /// through portals draw their cells' own.
    fn collect_camera_liquids(&mut self, mesh: &WorldMesh, visible: &VisibleSet) {
        let n = mesh.liquid_ranges.len();
        if self.liquid_stamp.len() != n {
            self.liquid_stamp = vec![0; n];
            self.liquid_octagon = vec![Octagon::EMPTY; n];
        }
        self.frame = self.frame.wrapping_add(1).max(1);
        self.liquids.clear();
        for c in visible.cells.iter().filter(|c| c.view == 0) {
            for &l in &mesh.cell_liquids[c.cell as usize] {
                let li = l as usize;
                if self.liquid_stamp[li] != self.frame {
                    self.liquid_stamp[li] = self.frame;
                    self.liquid_octagon[li] = c.octagon;
                    self.liquids.push(l);
                } else {
                    self.liquid_octagon[li] = self.liquid_octagon[li].union(&c.octagon);
                }
            }
        }
    }

    fn build_batches(
        &mut self,
        mesh: &WorldMesh,
        inputs: &DrawInputs,
        eyes: &ViewEyes,
        liquid_base: usize,
    ) {
        let list = &mut self.list;
        list.commands.clear();
        let mut stats = WorldStats::default();
        let mut out = SubDraws {
            commands: &mut list.commands,
            records: list.records.len(),
            triangles: 0,
            surfaces: 0,
            batch_start: 0,
            states: &[],
            cached: &mut self.cached,
            cached_surfaces: &mut list.cached_surfaces,
            bake_surfaces: &mut list.bake_surfaces,
        };
        out.cached.clear();
        out.cached_surfaces.clear();
        out.bake_surfaces.clear();
        for class in ViewClass::ALL {
            for kind in SurfaceKind::ALL {
                let first = out.commands.len() as u32;
                out.batch_start = out.commands.len();
                let shared =
                    inputs.tests.once && class == ViewClass::Camera && kind != SurfaceKind::Liquid;
                out.states = match (class, kind) {
                    (ViewClass::Camera, SurfaceKind::Opaque) => inputs.cache_states,
                    _ => &[],
                };
                if shared {
                    self.shared.emit(&mut out, kind as usize, self.frame);
                }
                for (slot, item) in self.items.iter().enumerate() {
                    let Some(record) = list.records.get(slot) else {
                        break;
                    };
                    if shared && matches!(item, Item::Cell { view: 0, .. }) {
                        continue;
                    }
                    let at = Placement {
                        eye: eyes.of(record.view),
                        origin: Vec4::from(record.origin).truncate(),
                        octagon: record.octagon,
                        tests: inputs.tests,
                    };
                    batch_item(
                        &mut out,
                        mesh,
                        inputs.visible,
                        (class, kind),
                        *item,
                        slot,
                        &at,
                    );
                }
                if kind == SurfaceKind::Liquid && class == ViewClass::Camera {
                    for (i, &l) in self.liquids.iter().enumerate() {
                        let slot = liquid_base + i;
                        let Some(record) = list.records.get(slot) else {
                            break;
                        };
                        let at = Placement::in_camera_view(eyes, record.octagon, inputs.tests);
                        let s = mesh.liquid_surfaces[l as usize];
                        if at.passes(mesh, s) {
                            out.surfaces += 1;
                            out.push(mesh.liquid_ranges[l as usize], slot);
                        }
                    }
                }
                let count = out.commands.len() as u32 - first;
                list.batches[class as usize * 3 + kind as usize] = (first, count);
                stats.sub_draws += count;
                if count > 0 {
                    stats.draw_calls += if inputs.multi_draw { 1 } else { count };
                }
            }
        }
        let first = out.commands.len() as u32;
        out.commands.append(out.cached);
        let count = out.commands.len() as u32 - first;
        list.batches[CACHED_BATCH] = (first, count);
        stats.sub_draws += count;
        if count > 0 {
            stats.draw_calls += if inputs.multi_draw { 1 } else { count };
        }
        stats.cached = out.cached_surfaces.len() as u32;
        stats.baking = out.bake_surfaces.len() as u32;
        stats.triangles = out.triangles;
        stats.surfaces = out.surfaces;
        list.stats = stats;
    }
}

impl DrawBuilder {
    /// Tests the camera view's cell surfaces once, keeping those that pass and, for each that
    /// passes in several cells, a record with the union of their octagons (while records fit;
    /// beyond, such a surface is drawn per cell).
    fn share(&mut self, mesh: &WorldMesh, inputs: &DrawInputs, eyes: &ViewEyes) {
        let sh = &mut self.shared;
        let n = mesh.surface_cull.len();
        if sh.stamp.len() != n {
            sh.stamp = vec![0; n];
            sh.cells = vec![0; n];
            sh.union = vec![Octagon::EMPTY; n];
            sh.record = vec![u32::MAX; n];
            sh.emitted = vec![0; n];
        }
        let frame = self.frame;
        for k in 0..2 {
            sh.passing[k].clear();
        }
        for (slot, item) in self.items.iter().enumerate() {
            let (Item::Cell { cell, view: 0 }, Some(record)) = (item, self.list.records.get(slot))
            else {
                continue;
            };
            let at = Placement::in_camera_view(eyes, record.octagon, inputs.tests);
            for k in 0..2 {
                for r in &mesh.cell_surfaces[k][*cell as usize] {
                    if !at.passes(mesh, r.surface) {
                        continue;
                    }
                    let s = r.surface as usize;
                    if sh.stamp[s] != frame {
                        (sh.stamp[s], sh.cells[s], sh.union[s]) = (frame, 0, Octagon::EMPTY);
                        sh.record[s] = u32::MAX;
                    }
                    sh.cells[s] += 1;
                    sh.union[s] = sh.union[s].union(&record.octagon);
                    sh.passing[k].push((slot as u32, *r));
                }
            }
        }
        let records = &mut self.list.records;
        for k in 0..2 {
            for &(_, r) in &sh.passing[k] {
                let s = r.surface as usize;
                if sh.cells[s] > 1 && sh.record[s] == u32::MAX && records.len() < inputs.max_records
                {
                    sh.record[s] = records.len() as u32;
                    records.push(DrawRecord {
                        octagon: sh.union[s],
                        view: 0,
                        cell: u32::MAX,
                        depth: 0,
                        light: LIGHT_ONE,
                        origin: [0.0; 4],
                    });
                }
            }
        }
    }
}

impl SharedSurfaces {
    /// The sub-draws of kind `k`'s passing surfaces, front to back: a surface of one cell with
    /// that cell's record, a shared one once with its own.
    fn emit(&mut self, out: &mut SubDraws<'_>, k: usize, frame: u32) {
        for &(slot, r) in &self.passing[k] {
            let s = r.surface as usize;
            let record = self.record[s];
            if self.cells[s] > 1 && record != u32::MAX {
                if self.emitted[s] == frame {
                    continue;
                }
                self.emitted[s] = frame;
                out.push_surface(r.surface, r.indices, record as usize);
            } else {
                out.push_surface(r.surface, r.indices, slot as usize);
            }
            out.surfaces += 1;
        }
    }
}

/// The eye and the view-projection of every view: what the per-surface tests see from.
struct ViewEyes<'a> {
    camera: (Vec3, Mat4),
    views: &'a [crate::vis::View],
}

impl<'a> ViewEyes<'a> {
    fn of_inputs(inputs: &'a DrawInputs) -> Self {
        ViewEyes {
            camera: (inputs.camera.position, inputs.camera.view_proj()),
            views: &inputs.visible.views,
        }
    }

    fn of(&self, view: u32) -> (Vec3, Mat4) {
        match self.views.get((view as usize).wrapping_sub(1)) {
            Some(v) if view > 0 => (v.eye, v.view_proj),
            _ => self.camera,
        }
    }
}

/// Where an item is drawn from: its view's eye, its translation (objects), its octagon.
struct Placement {
    eye: (Vec3, Mat4),
    origin: Vec3,
    octagon: Octagon,
    tests: SurfaceTests,
}

/// A surface seen this far behind its plane is still drawn (an eye on the plane sees it).
const BACK_FACE_TOLERANCE: f32 = 0.01;

impl Placement {
    /// A cell of the camera's own view (no translation).
    fn in_camera_view(eyes: &ViewEyes, octagon: Octagon, tests: SurfaceTests) -> Placement {
        Placement {
            eye: eyes.of(0),
            origin: Vec3::ZERO,
            octagon,
            tests,
        }
    }

    fn passes(&self, mesh: &WorldMesh, surface: u32) -> bool {
        let c = &mesh.surface_cull[surface as usize];
        !(self.tests.back_faces && self.faces_away(c))
            && !(self.tests.boxes && !self.box_in_view(mesh, c))
            && !(self.tests.octagon && !self.meets(mesh, c, &self.octagon))
    }

    /// The outline's bounding box has a corner inside each of the frustum's side planes
    /// (`x >= -w`, `x <= w`, `y >= -w`, `y <= w` in clip space).
    fn box_in_view(&self, mesh: &WorldMesh, c: &SurfaceCull) -> bool {
        let first = c.first_corner as usize;
        let corners = &mesh.outlines[first..first + c.corner_count as usize];
        let b = crate::geom::Aabb::from_points(corners.iter().map(|&p| p + self.origin));
        let clip = b.corners().map(|p| self.eye.1 * p.extend(1.0));
        let side = |f: fn(Vec4) -> f32| clip.iter().any(|&q| f(q) >= 0.0);
        side(|q| q.w + q.x) && side(|q| q.w - q.x) && side(|q| q.w + q.y) && side(|q| q.w - q.y)
    }

    fn faces_away(&self, c: &SurfaceCull) -> bool {
        let eye = self.eye.0;
        c.normal != Vec3::ZERO && c.normal.dot(eye - self.origin) - c.dist < -BACK_FACE_TOLERANCE
    }

    /// The surface's outline has a part inside `octagon` on screen.
    fn meets(&self, mesh: &WorldMesh, c: &SurfaceCull, octagon: &Octagon) -> bool {
        let view_proj = self.eye.1;
        let first = c.first_corner as usize;
        let corners = &mesh.outlines[first..first + c.corner_count as usize];
        if !c.convex {
            return match screen_octagon(&view_proj, corners, self.origin) {
                Some(o) => !o.intersect(octagon).is_empty(),
                None => false,
            };
        }
        meets_octagon(&view_proj, corners, self.origin, octagon)
    }

    /// Why the tests drop the surface (`None`: it is drawn).
    fn reason(&self, mesh: &WorldMesh, surface: u32) -> Option<CullReason> {
        let c = &mesh.surface_cull[surface as usize];
        if self.tests.back_faces && self.faces_away(c) {
            Some(CullReason::BackFace)
        } else if self.tests.boxes && !self.box_in_view(mesh, c) {
            Some(CullReason::Frustum)
        } else if self.tests.octagon && !self.meets(mesh, c, &Octagon::FULL) {
            Some(CullReason::Frustum)
        } else if self.tests.octagon && !self.meets(mesh, c, &self.octagon) {
            Some(CullReason::Octagon)
        } else {
            None
        }
    }
}

/// Why the per-surface test dropped a surface of a visible cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CullReason {
    /// Outside the view (or behind the near plane).
    Frustum,
    /// On screen, but outside its cell's octagon.
    Octagon,
    /// Its plane faces away from the eye.
    BackFace,
}

/// The surfaces of the visible cells (camera view) that `inputs.tests` drop, and why: the
/// culled-surfaces overlay. A surface several cells list is reported once, for the first
/// cell that drops it, unless another cell draws it.
pub fn culled_surfaces(mesh: &WorldMesh, inputs: &DrawInputs) -> Vec<(u32, CullReason)> {
    let eyes = ViewEyes::of_inputs(inputs);
    let mut drawn = std::collections::HashSet::new();
    let mut dropped: Vec<(u32, CullReason)> = Vec::new();
    for c in inputs.visible.cells.iter().filter(|c| c.view == 0) {
        let placement = Placement::in_camera_view(&eyes, c.octagon, inputs.tests);
        for k in 0..3 {
            let Some(ranges) = mesh.cell_surfaces[k].get(c.cell as usize) else {
                continue;
            };
            for r in ranges {
                match placement.reason(mesh, r.surface) {
                    None => {
                        drawn.insert(r.surface);
                    }
                    Some(why) => dropped.push((r.surface, why)),
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    dropped.retain(|(s, _)| !drawn.contains(s) && seen.insert(*s));
    dropped
}

/// Whether a convex outline (moved by `origin`) has a part in front of the near plane inside
/// `octagon` on screen (exactly: the polygon clipped by the near plane and the octagon's
/// planes, `Octagon::meets_clip_polygon`).
fn meets_octagon(view_proj: &Mat4, corners: &[Vec3], origin: Vec3, octagon: &Octagon) -> bool {
    let mut clip = [Vec4::ZERO; MAX_CLIPPED];
    if corners.len() > clip.len() {
        return true;
    }
    for (c, &p) in clip.iter_mut().zip(corners) {
        *c = *view_proj * (p + origin).extend(1.0);
    }
    octagon.meets_clip_polygon(&clip[..corners.len()])
}

/// The screen octagon of points (moved by `origin`); the full screen when some lie behind
/// the near plane, `None` when all do. For outlines that are not convex polygons.
fn screen_octagon(view_proj: &Mat4, corners: &[Vec3], origin: Vec3) -> Option<Octagon> {
    let mut behind = 0;
    let octagon = Octagon::from_points(corners.iter().filter_map(|&c| {
        let p = *view_proj * (c + origin).extend(1.0);
        if p.w - p.z < 0.0 || p.w <= 1e-6 {
            behind += 1;
            None
        } else {
            Some(glam::Vec2::new(p.x, p.y) / p.w)
        }
    }));
    match behind {
        0 => Some(octagon),
        n if n == corners.len() => None,
        _ => Some(Octagon::FULL),
    }
}

/// The indexed sub-draws of this frame, as they are appended.
struct SubDraws<'a> {
    commands: &'a mut Vec<wgpu::util::DrawIndexedIndirectArgs>,
    /// Records written this frame: slots beyond did not fit the buffer and are not drawn.
    records: usize,
    triangles: u64,
    /// World surfaces drawn (cells' and the camera's liquids; objects' not counted).
    surfaces: u32,
    /// The first command of the batch being built: sub-draws merge only within it.
    batch_start: usize,
    /// The surface cache's states for this batch (empty: none are cached).
    states: &'a [u8],
    /// Sub-draws of the cached batch, and the surfaces that go to it or want baking.
    cached: &'a mut Vec<wgpu::util::DrawIndexedIndirectArgs>,
    cached_surfaces: &'a mut Vec<u32>,
    bake_surfaces: &'a mut Vec<u32>,
}

impl SubDraws<'_> {
    /// One sub-draw of the indices `r` with the record in `slot` (nothing when empty); it
    /// extends the last one when it continues its indices with the same record.
    fn push(&mut self, r: IndexRange, slot: usize) {
        if r.count == 0 || slot >= self.records {
            return;
        }
        self.triangles += r.count as u64 / 3;
        let start = self.batch_start;
        append_run(self.commands, start, r, slot);
    }

    /// [`push`](Self::push) for `surface`'s indices: to the cached batch where the cache
    /// holds it.
    fn push_surface(&mut self, surface: u32, r: IndexRange, slot: usize) {
        use super::surface_cache::state;
        let st = self
            .states
            .get(surface as usize)
            .copied()
            .unwrap_or(state::DIRECT);
        if st != state::CACHED || r.count == 0 || slot >= self.records {
            if st == state::BAKE && r.count > 0 && slot < self.records {
                self.bake_surfaces.push(surface);
            }
            return self.push(r, slot);
        }
        self.triangles += r.count as u64 / 3;
        self.cached_surfaces.push(surface);
        append_run(self.cached, 0, r, slot);
    }
}

/// Appends the sub-draw of `r` with `slot` to `commands`, extending the last one (at or after
/// `start`) when it continues its indices with the same record.
fn append_run(
    commands: &mut Vec<wgpu::util::DrawIndexedIndirectArgs>,
    start: usize,
    r: IndexRange,
    slot: usize,
) {
    if commands.len() > start {
        let last = commands
            .last_mut()
            .expect("a command after the batch start");
        if last.first_instance == slot as u32 && last.first_index + last.index_count == r.first {
            last.index_count += r.count;
            return;
        }
    }
    commands.push(wgpu::util::DrawIndexedIndirectArgs {
        index_count: r.count,
        instance_count: 1,
        first_index: r.first,
        base_vertex: 0,
        first_instance: slot as u32,
    });
}

/// Which pipeline class draws the items of `view` (0: the camera's own).
fn view_class(visible: &VisibleSet, view: u32) -> ViewClass {
    match visible.views.get((view as usize).wrapping_sub(1)) {
        _ if view == 0 => ViewClass::Camera,
        Some(v) if v.mirrored => ViewClass::Mirrored,
        _ => ViewClass::Portal,
    }
}

/// The sub-draws of one item in batch (`class`, `kind`): its surfaces of that kind that pass
/// the tests. Portal views draw their cells' liquids per cell; the camera's liquids come once
/// each, after.
fn batch_item(
    out: &mut SubDraws<'_>,
    mesh: &WorldMesh,
    visible: &VisibleSet,
    (class, kind): (ViewClass, SurfaceKind),
    item: Item,
    slot: usize,
    at: &Placement,
) {
    let (Item::Cell { view, .. } | Item::Object { view, .. }) = item;
    if view_class(visible, view) != class {
        return;
    }
    let k = kind as usize;
    match item {
        Item::Cell { cell, view } if kind == SurfaceKind::Liquid && view > 0 => {
            for &l in &mesh.cell_liquids[cell as usize] {
                let s = mesh.liquid_surfaces[l as usize];
                if at.passes(mesh, s) {
                    out.surfaces += 1;
                    out.push(mesh.liquid_ranges[l as usize], slot);
                }
            }
        }
        Item::Cell { cell, .. } => {
            let surfaces = &mesh.cell_surfaces[k][cell as usize];
            out.surfaces += push_surfaces(out, mesh, surfaces, slot, at);
        }
        Item::Object { object, .. } => {
            let surfaces = &mesh.object_surfaces[k][object as usize];
            push_surfaces(out, mesh, surfaces, slot, at);
        }
    }
}

/// The surfaces of a range that pass the tests (consecutive ones merge into one sub-draw);
/// returns how many.
fn push_surfaces(
    out: &mut SubDraws<'_>,
    mesh: &WorldMesh,
    surfaces: &[SurfaceRange],
    slot: usize,
    at: &Placement,
) -> u32 {
    let mut n = 0;
    for s in surfaces {
        if at.passes(mesh, s.surface) {
            out.push_surface(s.surface, s.indices, slot);
            n += 1;
        }
    }
    n
}

#[cfg(test)]
#[path = "draws_tests.rs"]
mod tests;
