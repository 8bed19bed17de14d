//! The draw builder: visible cells and objects into records, sub-draws and batches, keeping its
//! working memory between frames.

use super::*;

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
    /// The cached batches' sub-draws while the others are built, as [`CACHED_BATCHES`].
    cached: [Vec<DrawCommand>; 3],
    list: DrawList,
}

/// The camera view's cell surfaces that pass the tests, per kind (opaque, sky, fence) in item
/// order,
/// and for those that pass in several visible cells the record they are drawn once with: the
/// union of those cells' octagons (conservative, like the camera's liquids).
#[derive(Default)]
pub(in crate::world) struct SharedSurfaces {
    passing: [Vec<(u32, SurfaceRange)>; SHARED_KINDS],
    /// Per surface, what this frame found (together: a frame touches a few hundred surfaces
    /// of thousands, each a cache miss).
    surfaces: Vec<SurfaceFrame>,
    /// This frame's outline corners in clip space, of the convex outlines tested, each at its
    /// surface's `clip_at` (appended as found: stored by the outline's own index they were a
    /// cold line written a surface).
    clip: Vec<Vec4>,
}

/// One surface's state in the camera's view this frame (a line each).
#[derive(Clone, Copy)]
#[repr(align(64))]
struct SurfaceFrame {
    /// The frame it last passed in, in how many cells, their octagons' union, its shared
    /// record (`u32::MAX`: none, drawn per cell), the frame it was drawn in.
    stamp: u32,
    cells: u32,
    union: Octagon,
    record: u32,
    emitted: u32,
    /// The camera's tests that do not depend on the cell, once a frame: the frame it was
    /// last tested in, whether it faces the eye and its box is in view.
    tested: u32,
    facing: bool,
    /// Where its outline's clip-space corners start in `SharedSurfaces::clip`.
    clip_at: u32,
}

impl Default for SurfaceFrame {
    fn default() -> Self {
        SurfaceFrame {
            stamp: 0,
            cells: 0,
            union: Octagon::EMPTY,
            record: u32::MAX,
            emitted: 0,
            tested: 0,
            facing: false,
            clip_at: 0,
        }
    }
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
        keep_within_indices(&mut self.list.commands, mesh.indices.len());
        self.list.stats.views = 1 + inputs.visible.views.len() as u32;
        self.list.nothing_under_liquids = inputs.visible.nothing_under_liquids;
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
    pub(in crate::world) fn list(&self) -> &DrawList {
        &self.list
    }

    /// Records: one per visible cell, then objects, then liquid surfaces (the union of the
    /// octagons of the visible cells that list each). Returns the index of the first liquid
    /// record.
    pub(in crate::world) fn collect_records(
        &mut self,
        mesh: &WorldMesh,
        visible: &VisibleSet,
    ) -> usize {
        let records = &mut self.list.records;
        records.clear();
        self.items.clear();
        let mut objects = visible.objects.iter().peekable();
        for (i, c) in visible.cells.iter().enumerate() {
            while let Some(o) = objects.next_if(|o| o.first_cell as usize <= i) {
                push_object(&mut self.items, records, o);
            }
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
        for o in objects {
            push_object(&mut self.items, records, o);
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
    pub(in crate::world) fn collect_camera_liquids(
        &mut self,
        mesh: &WorldMesh,
        visible: &VisibleSet,
    ) {
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

    pub(in crate::world) fn build_batches(
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
            magnified: 0,
            two_levels: 0,
            batch_start: 0,
            cache: None,
            cached: &mut self.cached,
            cached_surfaces: &mut list.cached_surfaces,
            bake_surfaces: &mut list.bake_surfaces,
        };
        out.cached.iter_mut().for_each(Vec::clear);
        out.cached_surfaces.clear();
        out.bake_surfaces.clear();
        for class in ViewClass::ALL {
            let seen = class_seen(inputs.visible, class);
            for kind in SurfaceKind::ALL {
                let first = out.commands.len() as u32;
                if !seen {
                    list.batches[super::batch(class, kind)] = (first, 0);
                    continue;
                }
                out.batch_start = out.commands.len();
                let surfaces_before = out.surfaces;
                let shared =
                    inputs.tests.once && class == ViewClass::Camera && kind != SurfaceKind::Liquid;
                out.cache = match (class, kind) {
                    (ViewClass::Camera, SurfaceKind::Opaque) => inputs.cache,
                    _ => None,
                };
                if shared {
                    self.shared.emit(&mut out, kind as usize, self.frame);
                }
                for (slot, item) in self.items.iter().enumerate() {
                    let Some(record) = list.records.get(slot) else {
                        break;
                    };
                    if shared
                        && matches!(
                            item,
                            Item::Cell { view: 0, .. } | Item::Object { view: 0, .. }
                        )
                    {
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
                if kind == SurfaceKind::Sky {
                    stats.sky_surfaces += out.surfaces - surfaces_before;
                }
                let count = out.commands.len() as u32 - first;
                list.batches[super::batch(class, kind)] = (first, count);
                stats.count_batch(count, inputs.multi_draw);
            }
        }
        out.count_into(&mut stats);
        for (batch, cached) in CACHED_BATCHES.into_iter().zip(out.cached) {
            let first = out.commands.len() as u32;
            out.commands.append(cached);
            let count = out.commands.len() as u32 - first;
            list.batches[batch] = (first, count);
            stats.count_batch(count, inputs.multi_draw);
        }
        list.stats = stats;
    }
}

impl WorldStats {
    /// Counts a batch of `count` sub-draws: one draw call for them all with multi-draw, else
    /// one each.
    fn count_batch(&mut self, count: u32, multi_draw: bool) {
        self.sub_draws += count;
        if count > 0 {
            self.draw_calls += if multi_draw { 1 } else { count };
        }
    }
}

impl DrawBuilder {
    /// Tests the camera view's cell surfaces once, keeping those that pass and, for each that
    /// passes in several cells, a record with the union of their octagons (while records fit;
    /// beyond, such a surface is drawn per cell).
    pub(in crate::world) fn share(
        &mut self,
        mesh: &WorldMesh,
        inputs: &DrawInputs,
        eyes: &ViewEyes,
    ) {
        let sh = &mut self.shared;
        let n = mesh.surface_cull.len();
        if sh.surfaces.len() != n {
            sh.surfaces = vec![SurfaceFrame::default(); n];
        }
        sh.clip.clear();
        let frame = self.frame;
        for k in 0..SHARED_KINDS {
            sh.passing[k].clear();
        }
        for (slot, item) in self.items.iter().enumerate() {
            if let (Item::Object { object, view: 0 }, Some(record)) =
                (item, self.list.records.get(slot))
            {
                sh.pass_object(mesh, (*object, slot), record, eyes, inputs.tests);
                continue;
            }
            let (Item::Cell { cell, view: 0 }, Some(record)) = (item, self.list.records.get(slot))
            else {
                continue;
            };
            let at = Placement::in_camera_view(eyes, record.octagon, inputs.tests);
            for k in 0..SHARED_KINDS {
                for r in &mesh.cell_surfaces[k][*cell as usize] {
                    if r.lone {
                        // No other cell lists it: nothing to share, nothing to read twice.
                        if sh.passes_alone(mesh, &at, r) {
                            sh.passing[k].push((slot as u32, *r));
                        }
                        continue;
                    }
                    if !sh.passes(mesh, &at, r, frame) {
                        continue;
                    }
                    let f = &mut sh.surfaces[r.surface as usize];
                    if f.stamp != frame {
                        (f.stamp, f.cells, f.union, f.record) =
                            (frame, 0, Octagon::EMPTY, u32::MAX);
                    }
                    f.cells += 1;
                    f.union = f.union.union(&record.octagon);
                    sh.passing[k].push((slot as u32, *r));
                }
            }
        }
        let records = &mut self.list.records;
        for k in 0..SHARED_KINDS {
            let shareable =
                |&&(slot, r): &&(u32, SurfaceRange)| slot & OBJECT_ENTRY == 0 && !r.lone;
            for &(_, r) in sh.passing[k].iter().filter(shareable) {
                let f = &mut sh.surfaces[r.surface as usize];
                if f.cells > 1 && f.record == u32::MAX && records.len() < inputs.max_records {
                    f.record = records.len() as u32;
                    records.push(DrawRecord {
                        octagon: f.union,
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

/// An object's item and record.
fn push_object(
    items: &mut Vec<Item>,
    records: &mut Vec<DrawRecord>,
    o: &lanthorn_vis::VisibleObject,
) {
    items.push(Item::Object {
        object: o.object,
        view: o.view,
    });
    records.push(DrawRecord {
        octagon: o.octagon,
        view: o.view,
        cell: u32::MAX - o.object,
        depth: 0,
        light: match o.ambient {
            Some(_) => GRID_LIT,
            None => pack_light(o.light),
        },
        origin: o.origin.extend(0.0).to_array(),
    });
}

/// The kinds a surface of several visible cells is drawn once with their union: all but the
/// liquids (the first kinds: `SurfaceKind::Liquid` is the last).
const SHARED_KINDS: usize = SurfaceKind::Liquid as usize;

/// Marks an object's entry in `SharedSurfaces::passing` (its slot's top bit): drawn with its
/// own record where it stands in the item order, never shared, not counted as a world surface.
const OBJECT_ENTRY: u32 = 1 << 31;

impl SharedSurfaces {
    /// The camera-view object `object`'s surfaces that pass the tests, in the item order (so
    /// drawn before the cell it is first seen in, front to back).
    fn pass_object(
        &mut self,
        mesh: &WorldMesh,
        (object, slot): (u32, usize),
        record: &DrawRecord,
        eyes: &ViewEyes,
        tests: SurfaceTests,
    ) {
        let at = Placement {
            eye: eyes.of(0),
            origin: Vec4::from(record.origin).truncate(),
            octagon: record.octagon,
            tests,
        };
        for k in 0..SHARED_KINDS {
            for r in &mesh.object_surfaces[k][object as usize] {
                if at.passes_cull(mesh, &r.cull) {
                    self.passing[k].push((slot as u32 | OBJECT_ENTRY, *r));
                }
            }
        }
    }

    /// `Placement::passes` for a camera cell's surface, with what does not depend on the
    /// cell worked out once a frame (a surface is listed by up to a dozen cells).
    fn passes(&mut self, mesh: &WorldMesh, at: &Placement, r: &SurfaceRange, frame: u32) -> bool {
        let f = &mut self.surfaces[r.surface as usize];
        if f.tested != frame {
            f.tested = frame;
            f.facing = at.faces_and_in_view(mesh, &r.cull);
            if f.facing {
                f.clip_at = self.clip.len() as u32;
                project_outline(&mut self.clip, mesh, at, &r.cull);
            }
        }
        let f = self.surfaces[r.surface as usize];
        f.facing && self.meets_octagon(mesh, at, &r.cull, f.clip_at as usize)
    }

    /// `Placement::passes` for a surface only one cell lists (no frame state: it is tested
    /// once a frame anyway), its corners projected into the frame's list rather than the
    /// zeroed 72-corner buffer of `Placement::passes_cull` (warm, that buffer cost a fifth of
    /// the draw building at e1m1's wide views).
    fn passes_alone(&mut self, mesh: &WorldMesh, at: &Placement, r: &SurfaceRange) -> bool {
        if !at.faces_and_in_view(mesh, &r.cull) {
            return false;
        }
        let clip_at = self.clip.len();
        project_outline(&mut self.clip, mesh, at, &r.cull);
        let meets = self.meets_octagon(mesh, at, &r.cull, clip_at);
        self.clip.truncate(clip_at);
        meets
    }

    /// Whether the outline of a surface that faces the eye meets the placement's octagon
    /// (passes where the octagon test is off); a convex one's clip-space corners are
    /// `clip[clip_at..]`.
    fn meets_octagon(
        &self,
        mesh: &WorldMesh,
        at: &Placement,
        c: &SurfaceCull,
        clip_at: usize,
    ) -> bool {
        if !at.tests.octagon {
            return true;
        }
        match c.convex {
            true => at
                .octagon
                .meets_clip_polygon(&self.clip[clip_at..clip_at + c.corner_count as usize]),
            false => at.meets(mesh, c, &at.octagon),
        }
    }

    /// The sub-draws of kind `k`'s passing surfaces, front to back: a surface of one cell with
    /// that cell's record, a shared one once with its own.
    pub(in crate::world) fn emit(&mut self, out: &mut SubDraws<'_>, k: usize, frame: u32) {
        for &(slot, r) in &self.passing[k] {
            if slot & OBJECT_ENTRY != 0 {
                out.push_surface(r.surface, r.indices, (slot & !OBJECT_ENTRY) as usize);
                continue;
            }
            if r.lone {
                out.push_surface(r.surface, r.indices, slot as usize);
                out.surfaces += 1;
                continue;
            }
            let f = &mut self.surfaces[r.surface as usize];
            if f.cells > 1 && f.record != u32::MAX {
                if f.emitted == frame {
                    continue;
                }
                f.emitted = frame;
                out.push_surface(r.surface, r.indices, f.record as usize);
            } else {
                out.push_surface(r.surface, r.indices, slot as usize);
            }
            out.surfaces += 1;
        }
    }
}

/// Appends the clip-space corners of a convex outline (`c`'s) to `clip`, as the camera sees
/// them (nothing for one that is not convex).
fn project_outline(clip: &mut Vec<Vec4>, mesh: &WorldMesh, at: &Placement, c: &SurfaceCull) {
    if c.convex {
        let view_proj = at.eye.1;
        let first = c.first_corner as usize;
        let outline = &mesh.outlines[first..first + c.corner_count as usize];
        clip.extend(outline.iter().map(|p| view_proj * p.extend(1.0)));
    }
}

/// The indexed sub-draws of this frame, as they are appended.
pub(in crate::world) struct SubDraws<'a> {
    commands: &'a mut Vec<DrawCommand>,
    /// Records written this frame: slots beyond did not fit the buffer and are not drawn.
    records: usize,
    triangles: u64,
    /// World surfaces drawn (cells' and the camera's liquids; objects' not counted).
    surfaces: u32,
    /// Cached surfaces that went to the magnified batch, and to the two-level one.
    magnified: u32,
    two_levels: u32,
    /// The first command of the batch being built: sub-draws merge only within it.
    batch_start: usize,
    /// The surface cache, for this batch (`None`: none are cached).
    cache: Option<&'a dyn CacheStates>,
    /// Sub-draws of the cached batches (as `DrawBuilder::cached`), and the surfaces that go
    /// to them or want baking.
    cached: &'a mut [Vec<DrawCommand>; 3],
    cached_surfaces: &'a mut Vec<u32>,
    bake_surfaces: &'a mut Vec<u32>,
}

impl SubDraws<'_> {
    /// Its counts of surfaces and triangles, into `stats`.
    fn count_into(&self, stats: &mut WorldStats) {
        stats.cached = self.cached_surfaces.len() as u32;
        stats.magnified = self.magnified;
        stats.two_levels = self.two_levels;
        stats.baking = self.bake_surfaces.len() as u32;
        stats.triangles = self.triangles;
        stats.surfaces = self.surfaces;
    }

    /// One sub-draw of the indices `r` with the record in `slot` (nothing when empty); it
    /// extends the last one when it continues its indices with the same record.
    pub(in crate::world) fn push(&mut self, r: IndexRange, slot: usize) {
        if r.count == 0 || slot >= self.records {
            return;
        }
        self.triangles += r.count as u64 / 3;
        let start = self.batch_start;
        append_run(self.commands, start, r, slot);
    }

    /// [`push`](Self::push) for `surface`'s indices: to a cached batch where the cache holds
    /// it.
    pub(in crate::world) fn push_surface(&mut self, surface: u32, r: IndexRange, slot: usize) {
        use self::cache_state as state;
        let st = self.cache.map_or(state::DIRECT, |c| c.state(surface));
        // Its place in `cached` (as `CACHED_BATCHES`).
        let batch = match st {
            state::CACHED_MAGNIFIED => Some(0),
            state::CACHED_TWO_LEVELS => Some(1),
            state::CACHED => Some(2),
            _ => None,
        };
        let Some(batch) = batch.filter(|_| r.count > 0 && slot < self.records) else {
            if st == state::BAKE && r.count > 0 && slot < self.records {
                self.bake_surfaces.push(surface);
            }
            return self.push(r, slot);
        };
        self.triangles += r.count as u64 / 3;
        self.magnified += (batch == 0) as u32;
        self.two_levels += (batch == 1) as u32;
        self.cached_surfaces.push(surface);
        append_run(&mut self.cached[batch], 0, r, slot);
    }
}

/// Appends the sub-draw of `r` with `slot` to `commands`, extending the last one (at or after
/// `start`) when it continues its indices with the same record.
pub(in crate::world) fn append_run(
    commands: &mut Vec<DrawCommand>,
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
    commands.push(DrawCommand {
        index_count: r.count,
        instance_count: 1,
        first_index: r.first,
        base_vertex: 0,
        first_instance: slot as u32,
    });
}

/// Whether any view of `class` is seen: most frames have no view through a mirror or
/// teleporter, and their batches stay empty without a pass over the items.
fn class_seen(visible: &VisibleSet, class: ViewClass) -> bool {
    let views = &visible.views;
    match class {
        ViewClass::Camera => true,
        ViewClass::Portal => views.iter().any(|v| !v.mirrored),
        ViewClass::Mirrored => views.iter().any(|v| v.mirrored),
    }
}

/// Which pipeline class draws the items of `view` (0: the camera's own).
pub(in crate::world) fn view_class(visible: &VisibleSet, view: u32) -> ViewClass {
    match visible.views.get((view as usize).wrapping_sub(1)) {
        _ if view == 0 => ViewClass::Camera,
        Some(v) if v.mirrored => ViewClass::Mirrored,
        _ => ViewClass::Portal,
    }
}

/// The sub-draws of one item in batch (`class`, `kind`): its surfaces of that kind that pass
/// the tests. Portal views draw their cells' liquids per cell; the camera's liquids come once
/// each, after.
pub(in crate::world) fn batch_item(
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
pub(in crate::world) fn push_surfaces(
    out: &mut SubDraws<'_>,
    mesh: &WorldMesh,
    surfaces: &[SurfaceRange],
    slot: usize,
    at: &Placement,
) -> u32 {
    let mut n = 0;
    for s in surfaces {
        if at.passes_cull(mesh, &s.cull) {
            out.push_surface(s.surface, s.indices, slot);
            n += 1;
        }
    }
    n
}
