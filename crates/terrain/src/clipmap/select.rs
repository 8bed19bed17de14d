//! The selector: per frame, which pieces of every level go where and which survive frustum
//! culling against the heightmap's min/max pyramid.

use super::*;

/// Frame-to-frame selector; owns its output buffers so nothing is reallocated per frame.
pub struct ClipmapSelector {
    /// The configuration it selects for.
    pub cfg: ClipmapConfig,
    /// Frustum culling on (default) or off (debug overlays, tests).
    pub cull: bool,
    /// The part of the screen (NDC) the terrain is seen through, e.g. the union of the outdoor
    /// cells' octagons: culling uses the frustum through its x/y bounds. Default: all of it.
    pub screen: Octagon,
    /// Pieces whose every point lies at least this far from the camera are dropped: the fog
    /// has turned them into the sky behind (`TerrainShading::fogged_out_distance`). `None`
    /// draws them.
    pub fogged_out: Option<f32>,
    /// Levels left out past the finest one the camera's height calls for (0: none): the next
    /// coarser level draws all its tiles where they were. The sun's far cascade takes its
    /// casters so: its texels are wider than the finest levels' quads.
    pub coarsen: u32,
    selection: Selection,
    per_kind: [Vec<(TerrainInstance, PartRun)>; 5],
    /// Each kind's mesh parts (what culling tests and counts).
    parts: [Vec<MeshPart>; 5],
    global_z: Option<(f32, f32)>,
    prev_first: Option<u32>,
}

impl ClipmapSelector {
    /// A selector for `cfg` (checked).
    pub fn new(cfg: ClipmapConfig) -> Result<Self, TerrainError> {
        cfg.validate()?;
        let meshes = crate::ClipmapMeshes::new(&cfg);
        let parts = MeshKind::ALL.map(|k| meshes.get(k).parts.clone());
        Ok(Self {
            cfg,
            cull: true,
            screen: Octagon::FULL,
            fogged_out: None,
            coarsen: 0,
            selection: Selection::default(),
            per_kind: Default::default(),
            parts,
            global_z: None,
            prev_first: None,
        })
    }

    /// The last selection.
    pub fn selection(&self) -> &Selection {
        &self.selection
    }

    /// Select for `camera`. Heights bound boxes through `pyramid` (built for `hm`).
    pub fn select(
        &mut self,
        camera: &Camera,
        hm: &Heightmap,
        pyramid: &mut MinMaxPyramid,
    ) -> &Selection {
        let cfg = self.cfg;
        let cam = camera.position.as_dvec3();
        let cam2 = cam.truncate();
        let global = *self
            .global_z
            .get_or_insert_with(|| global_height_range(hm, pyramid));
        let planes = self.culling_planes(camera);
        let first = self.first_level_with_hysteresis(hm, cam);

        let sel = &mut self.selection;
        sel.frame = TerrainFrame::new(&cfg, cam);
        sel.levels.clear();
        sel.culled.clear();
        sel.first_level = first;
        sel.stats = SelectStats {
            levels: cfg.levels - first,
            ..Default::default()
        };
        for v in self.per_kind.iter_mut() {
            v.clear();
        }
        let mut pieces = PieceCuller {
            t: cfg.tile_quads(),
            cam,
            planes,
            fogged_out: self.fogged_out.filter(|_| self.cull),
            global,
            hm,
            pyramid,
            sel,
            per_kind: &mut self.per_kind,
            parts: &self.parts,
        };
        for l in 0..cfg.levels {
            let p = cfg.placement(cam2, l);
            pieces.sel.levels.push(p);
            if l < first {
                continue;
            }
            let pre = if self.cull {
                pieces.classify_level(&p)
            } else {
                Class::Inside
            };
            pieces.select_ring_tiles(&p, l > first, pre);
            pieces.select_filler_arms(&p, pre);
            if l == first {
                pieces.select_centre_cross(&p, pre);
            }
            pieces.select_trim_and_seam(&p, pre);
        }
        self.gather_instances();
        &self.selection
    }

    /// Camera-relative planes of the frustum through the screen region (they keep precision
    /// far from the origin).
    fn culling_planes(&self, camera: &Camera) -> BoxPlanes {
        let mut rel_cam = *camera;
        rel_cam.position = Vec3::ZERO;
        let screen = self.screen.tightened();
        BoxPlanes::new(&if self.screen.is_empty() {
            rel_cam.frustum_planes()
        } else {
            rel_cam.screen_frustum_planes(
                glam::Vec2::new(screen.min[0].max(-1.0), screen.min[1].max(-1.0)),
                glam::Vec2::new(screen.max[0].min(1.0), screen.max[1].min(1.0)),
            )
        })
    }

    /// The finest level drawn for the camera's height above the ground below it.
    fn first_level_with_hysteresis(&mut self, hm: &Heightmap, cam: DVec3) -> u32 {
        let cfg = &self.cfg;
        let ground = hm.sample(
            (cam.x / hm.horizontal_scale).round() as i64,
            (cam.y / hm.horizontal_scale).round() as i64,
        ) as f64;
        // Hysteresis: finer levels come back as soon as the camera is low enough, but go away
        // only 20 % above their threshold, so hovering at one height does not flip a level (and
        // its window refill) every frame.
        let above = cam.z - ground;
        let mut first = cfg.first_active_level(above);
        if let Some(prev) = self.prev_first {
            if first > prev {
                first = cfg.first_active_level(above / 1.2).max(prev);
            }
        }
        self.prev_first = Some(first);
        (first + self.coarsen).min(cfg.levels - 1)
    }

    /// The surviving instances into `selection.instances`, grouped by kind and then by the
    /// run of parts drawn (runs in the order they first come, nearer levels first; instances in
    /// selection order within each), and their triangles.
    fn gather_instances(&mut self) {
        let sel = &mut self.selection;
        sel.instances.clear();
        sel.runs.clear();
        for k in MeshKind::ALL {
            let list = &self.per_kind[k as usize];
            let start = sel.instances.len() as u32;
            let first_run = sel.runs.len();
            for &(_, run) in list {
                if !sel.runs[first_run..].iter().any(|(_, r, _)| *r == run) {
                    sel.runs.push((k, run, 0..0));
                }
            }
            for (_, run, range) in &mut sel.runs[first_run..] {
                range.start = sel.instances.len() as u32;
                sel.instances
                    .extend(list.iter().filter(|(_, r)| r == run).map(|(i, _)| *i));
                range.end = sel.instances.len() as u32;
                sel.stats.triangles +=
                    run.triangles(&self.parts[k as usize]) as u64 * range.len() as u64;
            }
            sel.ranges[k as usize] = start..sel.instances.len() as u32;
        }
    }
}

/// The heightmap's whole height range (analytic where the heightmap knows it).
pub(super) fn global_height_range(hm: &Heightmap, pyramid: &mut MinMaxPyramid) -> (f32, f32) {
    if let Some(b) = hm.analytic_bound(-(1 << 40), -(1 << 40), 1 << 40, 1 << 40) {
        return b;
    }
    let (w, h) = hm.size();
    pyramid.bounds_samples(hm, 0, 0, w as i64 - 1, h as i64 - 1)
}

/// One selection's pieces on their way through frustum culling: into `per_kind` when visible,
/// into `sel.culled` when not.
pub(super) struct PieceCuller<'a> {
    /// Quads per tile.
    t: i32,
    cam: DVec3,
    planes: BoxPlanes,
    /// See [`ClipmapSelector::fogged_out`].
    fogged_out: Option<f32>,
    /// The heightmap's whole height range.
    global: (f32, f32),
    hm: &'a Heightmap,
    pyramid: &'a mut MinMaxPyramid,
    sel: &'a mut Selection,
    per_kind: &'a mut [Vec<(TerrainInstance, PartRun)>; 5],
    parts: &'a [Vec<MeshPart>; 5],
}

impl PieceCuller<'_> {
    /// The whole level at once first (global heights): most levels are all in or all out.
    fn classify_level(&self, p: &LevelPlacement) -> Class {
        let (s, cam2) = (p.spacing, self.cam.truncate());
        let t1 = 2 * self.t as i64 + 2;
        let lo = DVec2::new((p.cell[0] - t1) as f64, (p.cell[1] - t1) as f64) * s - cam2;
        let hi = DVec2::new((p.cell[0] + t1 + 1) as f64, (p.cell[1] + t1 + 1) as f64) * s - cam2;
        let z = (
            self.global.0 - self.cam.z as f32,
            self.global.1 - self.cam.z as f32,
        );
        classify(&self.planes, lo.as_vec2(), hi.as_vec2(), z)
    }

    /// The 4×4 tiles around the camera's cell; `ring_only` (levels coarser than the first)
    /// skips the inner 2×2, where the finer level is.
    fn select_ring_tiles(&mut self, p: &LevelPlacement, ring_only: bool, pre: Class) {
        let (t64, c) = (self.t as i64, p.cell);
        let b = [c[0] - 2 * t64, c[1] - 2 * t64];
        for ty in 0..4i64 {
            for tx in 0..4i64 {
                if ring_only && (1..=2).contains(&tx) && (1..=2).contains(&ty) {
                    continue;
                }
                let o = [
                    (b[0] + tx * t64 + (tx >= 2) as i64) as i32,
                    (b[1] + ty * t64 + (ty >= 2) as i64) as i32,
                ];
                self.push(MeshKind::Tile, o, 0, p, pre);
            }
        }
    }

    /// Outer filler arms: right, top, left, bottom of the centre quad `c`.
    fn select_filler_arms(&mut self, p: &LevelPlacement, pre: Class) {
        let (t64, c) = (self.t as i64, p.cell);
        let arms: [(u32, [i64; 2]); 4] = [
            (0, [c[0] + t64 + 1, c[1]]),
            (1, [c[0], c[1] + t64 + 1]),
            (2, [c[0] - 2 * t64, c[1]]),
            (3, [c[0], c[1] - 2 * t64]),
        ];
        for (r, m) in arms {
            let o = place(MeshKind::Filler, self.t, r, m);
            self.push(MeshKind::Filler, o, r, p, pre);
        }
    }

    /// The finest level's centre cross.
    fn select_centre_cross(&mut self, p: &LevelPlacement, pre: Class) {
        let o = [p.cell[0] as i32, p.cell[1] as i32];
        self.push(MeshKind::Cross, o, 0, p, pre);
    }

    /// The L-shaped trim and the seam (none on the coarsest level).
    fn select_trim_and_seam(&mut self, p: &LevelPlacement, pre: Class) {
        let Some(r) = p.trim_rotation else { return };
        let h = 2 * self.t as i64 + 1;
        let o = [(p.origin[0] + h) as i32, (p.origin[1] + h) as i32];
        self.push(MeshKind::Trim, o, r, p, pre);
        let o = [p.origin[0] as i32, p.origin[1] as i32];
        self.push(MeshKind::Seam, o, 0, p, pre);
    }

    /// One piece of level `p`, kept or culled; `pre` is the level's own class.
    fn push(
        &mut self,
        kind: MeshKind,
        offset: [i32; 2],
        rotation: u32,
        p: &LevelPlacement,
        pre: Class,
    ) {
        let inst = TerrainInstance {
            offset,
            level: p.level,
            rotation,
        };
        let stats = &mut self.sel.stats;
        stats.pieces_total += 1;
        if kind == MeshKind::Tile {
            stats.tiles_total += 1;
        }
        let fogged = self.is_fogged_out(kind, &inst, p.spacing);
        if fogged {
            self.sel.stats.pieces_fogged += 1;
        }
        let run = match (fogged, pre) {
            (true, _) | (_, Class::Outside) => None,
            (false, Class::Inside) => Some(PartRun::all(self.parts[kind as usize].len())),
            (false, Class::Straddles) => self.parts_seen(kind, &inst, p.spacing),
        };
        if let Some(run) = run {
            let parts = self.parts[kind as usize].len();
            self.sel.stats.parts_culled += (parts - run.count as usize) as u32;
            self.per_kind[kind as usize].push((inst, run));
        } else {
            let stats = &mut self.sel.stats;
            stats.pieces_culled += 1;
            if kind == MeshKind::Tile {
                stats.tiles_culled += 1;
            }
            self.sel.culled.push((kind, inst));
        }
    }

    /// Whether the piece's box (with the global height range) lies wholly beyond
    /// `fogged_out` of the camera.
    fn is_fogged_out(&self, kind: MeshKind, inst: &TerrainInstance, spacing: f64) -> bool {
        let Some(limit) = self.fogged_out else {
            return false;
        };
        let (a, b) = instance_rect(kind, self.t, inst);
        let min = DVec3::new(
            a[0] as f64 * spacing,
            a[1] as f64 * spacing,
            self.global.0 as f64,
        );
        let max = DVec3::new(
            b[0] as f64 * spacing,
            b[1] as f64 * spacing,
            self.global.1 as f64,
        );
        let gap = (min - self.cam).max(self.cam - max).max(DVec3::ZERO);
        gap.length() >= limit as f64
    }

    /// The shortest run of a piece's mesh parts that holds every part whose box the frustum
    /// may see; `None` when it sees none of them (nor the piece: each part's box lies in the
    /// piece's). A part's box is its rectangle over the pyramid's heights, as a piece's.
    fn parts_seen(
        &mut self,
        kind: MeshKind,
        inst: &TerrainInstance,
        spacing: f64,
    ) -> Option<PartRun> {
        if !self.is_visible(kind, inst, spacing) {
            return None;
        }
        let parts = &self.parts[kind as usize];
        if parts.len() == 1 {
            return Some(PartRun::all(1));
        }
        let mut mask = 0u32;
        for (i, part) in parts.iter().enumerate() {
            if self.rect_visible(part_rect(part, inst), spacing) {
                mask |= 1 << i;
            }
        }
        (mask != 0).then(|| PartRun::covering(mask, parts.len()))
    }

    /// The piece's box against the frustum: with the global height range, then, if that
    /// straddles, with the pyramid's range under the piece.
    fn is_visible(&mut self, kind: MeshKind, inst: &TerrainInstance, spacing: f64) -> bool {
        self.rect_visible(instance_rect(kind, self.t, inst), spacing)
    }

    /// A box over level rectangle `[a, b]`: see [`Self::is_visible`].
    fn rect_visible(&mut self, (a, b): ([i64; 2], [i64; 2]), spacing: f64) -> bool {
        let (cam, cam2) = (self.cam, self.cam.truncate());
        let min = DVec2::new(a[0] as f64, a[1] as f64) * spacing;
        let max = DVec2::new(b[0] as f64, b[1] as f64) * spacing;
        let rmin = (min - cam2).as_vec2();
        let rmax = (max - cam2).as_vec2();
        let z = |(lo, hi): (f32, f32)| (lo - cam.z as f32, hi - cam.z as f32);
        match classify(&self.planes, rmin, rmax, z(self.global)) {
            Class::Outside => false,
            Class::Inside => true,
            Class::Straddles => {
                self.sel.stats.pyramid_queries += 1;
                // One level cell of margin: the morph averages neighbours.
                let m = DVec2::splat(spacing);
                let zr =
                    self.pyramid
                        .bounds_world(self.hm, (min - m).to_array(), (max + m).to_array());
                let zr = z(zr);
                classify(&self.planes, rmin, rmax, zr) != Class::Outside
                    && !self.planes.misses_box(rmin, rmax, zr)
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Class {
    Outside,
    Inside,
    Straddles,
}

/// The four side planes of the frustum in SIMD-friendly form (x, y, z of the normals, their
/// absolute values, distances). They meet at the eye, so everything behind the camera is
/// already outside one of them; the near plane only removes a sliver and is not tested.
/// Also the frustum's four edges (rays from the eye) for the exact test, [`Self::misses_box`].
#[derive(Clone, Copy)]
pub(super) struct BoxPlanes {
    n: [Vec4; 3],
    a: [Vec4; 3],
    d: Vec4,
    edges: [Vec3; 4],
}

impl BoxPlanes {
    fn new(planes: &[Plane; 5]) -> Self {
        let p = &planes[1..5];
        let col = |f: &dyn Fn(&Plane) -> f32| Vec4::new(f(&p[0]), f(&p[1]), f(&p[2]), f(&p[3]));
        // Left and right, bottom and top: each edge lies on one of each pair, inside the
        // other two planes.
        let edge = |a: usize, b: usize| {
            let d = p[a].normal.cross(p[b].normal);
            let others = p[1 - a].normal + p[5 - b].normal;
            if d.dot(others) < 0.0 {
                -d
            } else {
                d
            }
        };
        Self {
            edges: [edge(0, 2), edge(0, 3), edge(1, 2), edge(1, 3)],
            n: [
                col(&|q| q.normal.x),
                col(&|q| q.normal.y),
                col(&|q| q.normal.z),
            ],
            a: [
                col(&|q| q.normal.x.abs()),
                col(&|q| q.normal.y.abs()),
                col(&|q| q.normal.z.abs()),
            ],
            d: col(&|q| q.dist),
        }
    }
}

impl BoxPlanes {
    /// Whether box `[min, max] × [z.0, z.1]` (camera-relative) misses the frustum though no
    /// side plane alone has it outside: a box beside a corner of the frustum, or under the
    /// eye, is inside every plane on its own. The frustum is the cone of its edges from the
    /// eye; a plane with all of the cone on one side and the box on the other is one of the
    /// box's faces or parallel to a box edge and a frustum edge (separating axes).
    fn misses_box(&self, min: glam::Vec2, max: glam::Vec2, z: (f32, f32)) -> bool {
        let c = Vec3::new(
            0.5 * (min.x + max.x),
            0.5 * (min.y + max.y),
            0.5 * (z.0 + z.1),
        );
        let e = Vec3::new(
            0.5 * (max.x - min.x),
            0.5 * (max.y - min.y),
            0.5 * (z.1 - z.0),
        );
        let separates = |axis: Vec3| {
            if axis.length_squared() < 1e-12 {
                return false;
            }
            let centre = c.dot(axis);
            let radius = e.dot(axis.abs());
            // The cone projects to a half-line from the eye (at 0) or to the whole line.
            let along = self.edges.map(|d| d.dot(axis));
            (along.iter().all(|&a| a >= 0.0) && centre + radius < 0.0)
                || (along.iter().all(|&a| a <= 0.0) && centre - radius > 0.0)
        };
        let faces = [Vec3::X, Vec3::Y, Vec3::Z];
        faces.iter().any(|&f| separates(f))
            || faces
                .iter()
                .any(|&f| self.edges.iter().any(|&d| separates(f.cross(d))))
    }
}

/// Box `[min, max] × [z.0, z.1]` (camera-relative) against the frustum's side planes.
#[inline(always)]
pub(super) fn classify(
    planes: &BoxPlanes,
    min: glam::Vec2,
    max: glam::Vec2,
    z: (f32, f32),
) -> Class {
    let (cx, cy, cz) = (
        0.5 * (min.x + max.x),
        0.5 * (min.y + max.y),
        0.5 * (z.0 + z.1),
    );
    let (ex, ey, ez) = (
        0.5 * (max.x - min.x),
        0.5 * (max.y - min.y),
        0.5 * (z.1 - z.0),
    );
    let dc = planes.n[0] * cx + planes.n[1] * cy + planes.n[2] * cz - planes.d;
    let r = planes.a[0] * ex + planes.a[1] * ey + planes.a[2] * ez;
    if (dc + r).cmplt(Vec4::ZERO).any() {
        Class::Outside
    } else if (dc - r).cmpge(Vec4::ZERO).all() {
        Class::Inside
    } else {
        Class::Straddles
    }
}
