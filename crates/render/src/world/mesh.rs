//! The world geometry as uploaded, built on the CPU so tests can check it without a GPU: every
//! world surface in one vertex and one index buffer, indices grouped by cell and by pipeline.

use bytemuck::{Pod, Zeroable};

use glam::Vec3;

use lanthorn_level::{surface_flags, Level, Surface};

/// Vertex flag (beyond the surface flags): no lightmap, draw at full light.
pub const VERTEX_NO_LIGHTMAP: u32 = 1 << 16;
/// Vertex flag: the surface's light styles are packed into the atlas texel's channels
/// (`light_atlas`).
pub const VERTEX_PACKED_STYLES: u32 = 1 << 17;
/// Vertex flag: the surface is out in the open air (an outdoor cell lists it, or the object
/// rests in one), where the terrain's aerial fog reaches it (`fog`); indoor air takes none.
pub const VERTEX_OUTDOOR: u32 = 1 << 18;

/// Vertex flag: the top of a body of water (a liquid surface facing up, listed by an air cell
/// over a water cell): it shows the reflection the flow opens for it (`vis::View::reflection`)
/// where a frame has one.
pub const VERTEX_WATER_TOP: u32 = 1 << 19;

/// Vertex flag: the surface's material has a normal or specular map (`Material::normal`,
/// `Material::specular`), which a grid-lit object's lamps read.
pub const VERTEX_MAPPED: u32 = 1 << 20;

/// Per level surface: whether it is the top of a body of water ([`VERTEX_WATER_TOP`]).
fn water_tops(level: &Level) -> Vec<bool> {
    use lanthorn_level::{portal_flags, Medium};
    let mut top = vec![false; level.surfaces.len()];
    let medium = |c: u32| level.cells.get(c as usize).map(|c| c.medium);
    for p in &level.portals {
        let cells = [(p.front, p.back), (p.back, p.front)];
        let over = cells
            .into_iter()
            .find(|&(a, w)| medium(a) == Some(Medium::Air) && medium(w) == Some(Medium::Water));
        let Some((air, _)) = over.filter(|_| p.flags & portal_flags::LIQUID_SURFACE != 0) else {
            continue;
        };
        for &si in &level.cells[air as usize].surfaces {
            let s = &level.surfaces[si as usize];
            if s.flags & surface_flags::LIQUID != 0 && s.normal.z > 0.99 {
                top[si as usize] = true;
            }
        }
    }
    top
}

/// A surface's vertex flags: its own, and whether it has no lightmap, packs its styles, lies
/// in the open air, and is the top of water (`outdoor`, `water_top`).
fn vertex_flags(level: &Level, s: &Surface, (outdoor, water_top): (bool, bool)) -> u32 {
    let unlit = s.lightmap.is_none() || level.lightmaps.width == 0;
    let bits = [
        (unlit, VERTEX_NO_LIGHTMAP),
        (super::light_atlas::packs_styles(s), VERTEX_PACKED_STYLES),
        (outdoor, VERTEX_OUTDOOR),
        (water_top, VERTEX_WATER_TOP),
        (mapped(level, s), VERTEX_MAPPED),
    ];
    (bits.iter().filter(|(on, _)| *on)).fold(s.flags, |f, (_, bit)| f | bit)
}

/// Whether `s`'s material has a normal or specular map ([`VERTEX_MAPPED`]).
fn mapped(level: &Level, s: &Surface) -> bool {
    level
        .materials
        .get(s.material as usize)
        .is_some_and(lanthorn_level::Material::has_maps)
}

/// Per level surface: whether it is out in the open air ([`VERTEX_OUTDOOR`]).
fn outdoor_surfaces(level: &Level) -> Vec<bool> {
    let mut outdoor = vec![false; level.surfaces.len()];
    let is_outdoor = |c: &lanthorn_level::Cell| c.flags & lanthorn_level::cell_flags::OUTDOOR != 0;
    for c in level.cells.iter().filter(|c| is_outdoor(c)) {
        for &si in &c.surfaces {
            outdoor[si as usize] = true;
        }
    }
    for o in &level.objects {
        let centre = (o.bounds.min + o.bounds.max) * 0.5 + o.origin;
        let cell = level
            .locate(centre)
            .and_then(|c| level.cells.get(c as usize));
        if cell.is_some_and(is_outdoor) {
            for &si in &o.surfaces {
                outdoor[si as usize] = true;
            }
        }
    }
    outdoor
}

/// A world surface's vertex as the world shader reads it (WGSL `WorldVertex`): the
/// surface's material, lightmap and styles repeated on each.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct WorldVertex {
    /// World position (object space for an object's surface).
    pub position: [f32; 3],
    /// Material texture coordinates, in texture repeats.
    pub uv: [f32; 2],
    /// Atlas luxel coordinates (the shader divides by the atlas size).
    pub lightmap_uv: [f32; 2],
    /// The material's layer in the material texture array.
    pub layer: u32,
    /// The surface's flags (`surface_flags`) and the `VERTEX_*` flags above them.
    pub flags: u32,
    /// Index into `Level::surfaces` (the id pass writes it).
    pub surface: u32,
    /// The surface's light style per lightmap slot (`LightStyles::packed`: slot 0 in the low
    /// byte, 255 ends the slots); slot `k` is lightmap atlas layer `k`.
    pub styles: u32,
    /// The light of a surface without a lightmap (`VERTEX_NO_LIGHTMAP`): shaded by its normal
    /// so walls stay readable (`unlit_light`); worked out here, not per fragment.
    pub unlit: f32,
    /// Each lightmap slot's colour where the atlas keeps it grey (`light_atlas::slot_tints`).
    pub style_tints: [u32; 4],
}

/// `0.55 + 0.45 · |n · l|` for a fixed light direction `l`.
pub(super) fn unlit_light(normal: Vec3) -> f32 {
    0.55 + 0.45
        * normal
            .normalize_or_zero()
            .dot(Vec3::new(0.3, 0.5, 0.8).normalize())
            .abs()
}

impl WorldVertex {
    /// The vertex buffer's attributes (of the WGSL `WorldVertex`).
    pub(crate) const ATTRIBUTES: [wgpu::VertexAttribute; 9] = wgpu::vertex_attr_array![
        0 => Float32x3, 1 => Float32x2, 2 => Float32x2, 3 => Uint32, 4 => Uint32, 5 => Uint32,
        6 => Uint32, 7 => Float32, 8 => Uint32x4
    ];
}

/// Pipelines of the world pass in drawing order: translucent liquids last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfaceKind {
    /// Solid surfaces, drawn first.
    Opaque = 0,
    /// Sky surfaces, which show the sky.
    Sky = 1,
    /// Fences (`surface_flags::FENCE`): solid where their texels are, holes elsewhere
    /// (alpha-tested; never from the surface cache).
    Fence = 2,
    /// Liquid surfaces, translucent, drawn last.
    Liquid = 3,
}

/// Surface kinds.
pub const KINDS: usize = SurfaceKind::ALL.len();

impl SurfaceKind {
    /// Every kind, in drawing order.
    pub const ALL: [SurfaceKind; 4] = [
        SurfaceKind::Opaque,
        SurfaceKind::Sky,
        SurfaceKind::Fence,
        SurfaceKind::Liquid,
    ];

    /// The kind of a surface with `flags` (`surface_flags`): sky, else liquid (glows too:
    /// blended over the solid surfaces as liquids are), else fence, else opaque.
    pub fn of(flags: u32) -> SurfaceKind {
        if flags & surface_flags::SKY != 0 {
            SurfaceKind::Sky
        } else if flags & (surface_flags::LIQUID | surface_flags::GLOW) != 0 {
            SurfaceKind::Liquid
        } else if flags & surface_flags::FENCE != 0 {
            SurfaceKind::Fence
        } else {
            SurfaceKind::Opaque
        }
    }
}

/// An index range in the world index buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexRange {
    /// First index of the range.
    pub first: u32,
    /// Indices in the range.
    pub count: u32,
}

/// A list per index in one allocation (the per-frame tests read a visible cell's surfaces
/// without chasing a pointer per cell).
#[derive(Clone, Debug, PartialEq)]
pub struct Lists<T> {
    first: Vec<u32>,
    items: Vec<T>,
}

impl<T> Default for Lists<T> {
    fn default() -> Self {
        Lists {
            first: vec![0],
            items: Vec::new(),
        }
    }
}

impl<T: Clone> Lists<T> {
    /// Appends the next index's list.
    pub fn push(&mut self, items: &[T]) {
        self.items.extend_from_slice(items);
        self.first.push(self.items.len() as u32);
    }

    /// Index `i`'s list (empty past the last).
    pub fn get(&self, i: usize) -> Option<&[T]> {
        let (&a, &b) = (self.first.get(i)?, self.first.get(i + 1)?);
        Some(&self.items[a as usize..b as usize])
    }

    /// How many lists.
    pub fn len(&self) -> usize {
        self.first.len() - 1
    }

    /// Whether there are no lists.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T: Clone> std::ops::Index<usize> for Lists<T> {
    type Output = [T];
    fn index(&self, i: usize) -> &[T] {
        let (a, b) = (self.first[i] as usize, self.first[i + 1] as usize);
        &self.items[a..b]
    }
}

/// One surface's indices inside its cell's (or object's) range, with what its tests read
/// (a copy of `WorldMesh::surface_cull`'s: a frame reads the lists of the visible cells in
/// order, where reading each surface's own was a cache miss).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SurfaceRange {
    pub surface: u32,
    pub indices: IndexRange,
    pub cull: SurfaceCull,
    /// No other cell lists the surface (most do not: the draw builder keeps no frame state
    /// for these).
    pub lone: bool,
}

/// What the per-surface test needs of a surface: its plane (`normal · p = dist`, the front
/// facing `normal`) and its outline.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SurfaceCull {
    pub normal: Vec3,
    pub dist: f32,
    /// Its outline is `outlines[first_corner..first_corner + corner_count]`: for a planar
    /// surface the convex hull of its vertices in order (a surface's vertex list may hold
    /// a fan centre or T-junction points, and need not run round it); otherwise every vertex.
    pub first_corner: u32,
    pub corner_count: u32,
    /// The outline is a convex polygon in order (else only its bounds are meaningful).
    pub convex: bool,
}

/// The world geometry as uploaded: CPU side, so tests can check it without a GPU.
#[derive(Clone, Debug, Default)]
pub struct WorldMesh {
    /// Every surface's vertices, once per surface.
    pub vertices: Vec<WorldVertex>,
    /// Triangle indices, grouped by cell or object and by kind (`cell_ranges`,
    /// `object_ranges`).
    pub indices: Vec<u32>,
    /// `cell_ranges[kind][cell]`.
    pub cell_ranges: [Vec<IndexRange>; KINDS],
    /// `object_ranges[kind][object]`.
    pub object_ranges: [Vec<IndexRange>; KINDS],
    /// Translucent liquid surfaces of cells are drawn once per frame, not once per cell that
    /// lists them (blending twice would darken them): one range per liquid surface...
    pub liquid_ranges: Vec<IndexRange>,
    /// ...and, per cell, the liquid surfaces it lists (indices into `liquid_ranges`).
    pub cell_liquids: Lists<u32>,
    /// The surface of each of `liquid_ranges`.
    pub liquid_surfaces: Vec<u32>,
    /// `cell_surfaces[kind][cell]`: the surfaces of `cell_ranges[kind][cell]`, in index order.
    /// Surfaces that face the same way are contiguous, so what back-face culling keeps stays
    /// in few runs.
    pub cell_surfaces: [Lists<SurfaceRange>; KINDS],
    /// `object_surfaces[kind][object]`, likewise.
    pub object_surfaces: [Vec<Vec<SurfaceRange>>; KINDS],
    /// Per level surface.
    pub surface_cull: Vec<SurfaceCull>,
    /// The surfaces' outlines (`SurfaceCull::first_corner`).
    pub outlines: Vec<Vec3>,
}

impl WorldMesh {
    /// `layers[material]` is the material's layer in the texture array.
    pub fn build(level: &Level, layers: &[u32]) -> WorldMesh {
        let mut mesh = WorldMesh::default();
        // Vertices once per surface.
        let mut base = Vec::with_capacity(level.surfaces.len());
        let places = (outdoor_surfaces(level), water_tops(level));
        for (si, s) in level.surfaces.iter().enumerate() {
            base.push(mesh.vertices.len() as u32);
            let layer = layers.get(s.material as usize).copied().unwrap_or(0);
            let rect_xy = s.lightmap.map_or([0.0, 0.0], |r| [r.x as f32, r.y as f32]);
            let flags = vertex_flags(level, s, (places.0[si], places.1[si]));
            let style_tints = super::light_atlas::slot_tints(level, s);
            for v in &s.vertices {
                mesh.vertices.push(WorldVertex {
                    position: v.position.to_array(),
                    uv: v.uv.to_array(),
                    lightmap_uv: [rect_xy[0] + v.lightmap_uv.x, rect_xy[1] + v.lightmap_uv.y],
                    layer,
                    flags,
                    surface: si as u32,
                    styles: s.styles.packed(),
                    unlit: unlit_light(s.normal),
                    style_tints,
                });
            }
        }
        for s in &level.surfaces {
            let cull = surface_cull(s, &mut mesh.outlines);
            mesh.surface_cull.push(cull);
        }
        // How many cells list each surface (`SurfaceRange::lone`).
        let mut listings = vec![0u32; level.surfaces.len()];
        for &si in level.cells.iter().flat_map(|c| &c.surfaces) {
            if let Some(n) = listings.get_mut(si as usize) {
                *n += 1;
            }
        }
        // Appends the surfaces of `kind` among `surfaces`, grouped by the way they face.
        let append = |mesh: &mut WorldMesh, surfaces: &[u32], kind: SurfaceKind| {
            let mut of_kind: Vec<u32> = surfaces
                .iter()
                .copied()
                .filter(|&si| SurfaceKind::of(level.surfaces[si as usize].flags) == kind)
                .collect();
            of_kind.sort_by_key(|&si| facing(level.surfaces[si as usize].normal));
            let first = mesh.indices.len() as u32;
            let mut ranges = Vec::with_capacity(of_kind.len());
            for si in of_kind {
                let (s, b) = (&level.surfaces[si as usize], base[si as usize]);
                let start = mesh.indices.len() as u32;
                mesh.indices.extend(s.indices.iter().map(|i| i + b));
                ranges.push(SurfaceRange {
                    cull: mesh.surface_cull[si as usize],
                    lone: listings[si as usize] <= 1,
                    surface: si,
                    indices: IndexRange {
                        first: start,
                        count: mesh.indices.len() as u32 - start,
                    },
                });
            }
            let whole = IndexRange {
                first,
                count: mesh.indices.len() as u32 - first,
            };
            (whole, ranges)
        };
        let mut liquid_of_surface = vec![u32::MAX; level.surfaces.len()];
        for kind in SurfaceKind::ALL {
            for cell in &level.cells {
                if kind == SurfaceKind::Liquid {
                    let mut list = Vec::new();
                    for &si in &cell.surfaces {
                        let s = &level.surfaces[si as usize];
                        if SurfaceKind::of(s.flags) != SurfaceKind::Liquid {
                            continue;
                        }
                        if liquid_of_surface[si as usize] == u32::MAX {
                            liquid_of_surface[si as usize] = mesh.liquid_ranges.len() as u32;
                            let (r, _) = append(&mut mesh, &[si], kind);
                            mesh.liquid_ranges.push(r);
                            mesh.liquid_surfaces.push(si);
                        }
                        list.push(liquid_of_surface[si as usize]);
                    }
                    mesh.cell_liquids.push(&list);
                    mesh.cell_ranges[kind as usize].push(IndexRange::default());
                    mesh.cell_surfaces[kind as usize].push(&[]);
                    continue;
                }
                let (r, ranges) = append(&mut mesh, &cell.surfaces, kind);
                mesh.cell_ranges[kind as usize].push(r);
                mesh.cell_surfaces[kind as usize].push(&ranges);
            }
            for obj in &level.objects {
                let (r, ranges) = append(&mut mesh, &obj.surfaces, kind);
                mesh.object_ranges[kind as usize].push(r);
                mesh.object_surfaces[kind as usize].push(ranges);
            }
        }
        mesh
    }
}

/// The way a surface faces, as one of six axis directions (its normal's largest component).
fn facing(n: Vec3) -> u8 {
    let a = n.abs();
    let axis = if a.x >= a.y && a.x >= a.z {
        0
    } else if a.y >= a.z {
        1
    } else {
        2
    };
    axis * 2 + (n[axis as usize] < 0.0) as u8
}

/// A surface's plane and outline (appended to `outlines`).
fn surface_cull(s: &Surface, outlines: &mut Vec<Vec3>) -> SurfaceCull {
    let normal = s.normal.normalize_or_zero();
    let dist = s.vertices.first().map_or(0.0, |v| normal.dot(v.position));
    let first_corner = outlines.len() as u32;
    let points: Vec<Vec3> = s.vertices.iter().map(|v| v.position).collect();
    let planar = normal != Vec3::ZERO
        && points
            .iter()
            .all(|p| (normal.dot(*p) - dist).abs() < PLANAR_TOLERANCE);
    let hull = planar
        .then(|| convex_hull_in_plane(&points, normal))
        .flatten();
    let convex = hull.is_some();
    match hull {
        Some(h) => outlines.extend(h.iter().map(|&i| points[i])),
        None => outlines.extend(&points),
    }
    SurfaceCull {
        normal,
        dist,
        first_corner,
        corner_count: outlines.len() as u32 - first_corner,
        convex,
    }
}

/// Units off its plane a vertex of a planar surface may lie.
const PLANAR_TOLERANCE: f32 = 0.05;

/// The convex hull (indices into `points`, in order round it) of points on a plane with
/// `normal`, by Andrew's monotone chain in plane coordinates; `None` when fewer than three
/// points span an area.
fn convex_hull_in_plane(points: &[Vec3], normal: Vec3) -> Option<Vec<usize>> {
    let u = normal.any_orthonormal_vector();
    let v = normal.cross(u);
    let flat: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (p.dot(u) as f64, p.dot(v) as f64))
        .collect();
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| {
        flat[a]
            .partial_cmp(&flat[b])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let cross = |o: usize, a: usize, b: usize| {
        let (o, a, b) = (flat[o], flat[a], flat[b]);
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut hull: Vec<usize> = Vec::with_capacity(points.len() + 1);
    for pass in 0..2 {
        let start = hull.len();
        let chain: Vec<usize> = if pass == 0 {
            order.clone()
        } else {
            order.iter().rev().copied().collect()
        };
        for i in chain {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], i) <= 0.0
            {
                hull.pop();
            }
            hull.push(i);
        }
        hull.pop();
    }
    (hull.len() >= 3).then_some(hull)
}

#[cfg(test)]
mod outline_tests {
    use super::*;

    /// Every cell lists each of its level surfaces once across the kinds (its liquids apart),
    /// and each entry carries its surface's own test data and whether no other cell lists it
    /// (e1m1).
    #[test]
    fn each_cell_lists_its_surfaces_with_their_own_test_data() {
        let path = lanthorn_testdata::realdata_dir().join("quake/bsp/e1m1.bsp");
        if !path.exists() {
            return lanthorn_testdata::missing_realdata(&path);
        }
        let level = lanthorn_load::load(&path).unwrap();
        let mesh = WorldMesh::build(&level, &[]);
        let cells_listing = |s: u32| {
            level
                .cells
                .iter()
                .filter(|c| c.surfaces.contains(&s))
                .count()
        };
        let mut lone = 0;
        for (c, cell) in level.cells.iter().enumerate() {
            let mut listed: Vec<u32> = Vec::new();
            for kind in SurfaceKind::ALL {
                for r in &mesh.cell_surfaces[kind as usize][c] {
                    assert_eq!(r.cull, mesh.surface_cull[r.surface as usize], "cell {c}");
                    assert_eq!(r.lone, cells_listing(r.surface) == 1, "cell {c}");
                    lone += usize::from(r.lone);
                    listed.push(r.surface);
                }
            }
            listed.extend(
                mesh.cell_liquids[c]
                    .iter()
                    .map(|&l| mesh.liquid_surfaces[l as usize]),
            );
            listed.sort_unstable();
            let mut own = cell.surfaces.clone();
            own.sort_unstable();
            assert_eq!(listed, own, "cell {c}");
        }
        assert!(lone > 1000, "{lone} lone surfaces");
    }

    #[test]
    fn the_outline_of_a_fan_with_a_centre_and_t_junction_points_is_its_corners_in_order() {
        // A square in z = 4 with a point on one side (a T-junction) and the fan centre last,
        // as the importer stores a face with no usable corner.
        let points = [
            Vec3::new(0.0, 0.0, 4.0),
            Vec3::new(1.0, 0.0, 4.0),
            Vec3::new(2.0, 0.0, 4.0),
            Vec3::new(2.0, 2.0, 4.0),
            Vec3::new(0.0, 2.0, 4.0),
            Vec3::new(1.0, 1.0, 4.0),
        ];
        let hull = convex_hull_in_plane(&points, Vec3::Z).unwrap();
        let mut corners = hull.clone();
        corners.sort();
        assert_eq!(corners, vec![0, 2, 3, 4], "only the square's corners");
        // In order round it: consecutive corners are the square's sides (no diagonal).
        for k in 0..4 {
            let (a, b) = (points[hull[k]], points[hull[(k + 1) % 4]]);
            assert!(a.x == b.x || a.y == b.y, "{a} -> {b} is not a side");
        }
    }

    #[test]
    fn a_non_planar_surface_keeps_every_vertex_and_is_not_convex() {
        let v = |x: f32, y: f32, z: f32| lanthorn_level::Vertex {
            position: Vec3::new(x, y, z),
            uv: glam::Vec2::ZERO,
            lightmap_uv: glam::Vec2::ZERO,
        };
        let s = Surface {
            vertices: vec![
                v(0.0, 0.0, 0.0),
                v(1.0, 0.0, 0.0),
                v(1.0, 1.0, 3.0),
                v(0.0, 1.0, 0.0),
            ],
            normal: Vec3::Z,
            ..Default::default()
        };
        let mut outlines = Vec::new();
        let c = surface_cull(&s, &mut outlines);
        assert!(!c.convex);
        assert_eq!(c.corner_count, 4);
    }
}
