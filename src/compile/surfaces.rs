//! World surfaces: brush faces clipped against the other brushes (the CSG of brushes), fixed
//! for T-junctions, triangulated, with texture and lightmap coordinates.

use std::collections::HashMap;

use glam::{DVec3, Vec2, Vec3};

use crate::compile::map::brush::{Brush, ON_EPS};
use crate::compile::map::map_file::TexVecs;
use crate::level::{LightmapRect, Surface, Vertex};
use crate::geom::polygon::Side;
use crate::geom::{DPlane, DPolygon};

/// A uniform grid over boxes: candidates for overlap tests.
pub struct Grid {
    cell: f64,
    map: HashMap<(i32, i32, i32), Vec<u32>>,
}

impl Grid {
    pub fn new(cell: f64) -> Grid {
        Grid {
            cell,
            map: HashMap::new(),
        }
    }

    fn range(&self, min: DVec3, max: DVec3) -> (glam::IVec3, glam::IVec3) {
        let lo = (min / self.cell).floor().as_ivec3();
        let hi = (max / self.cell).floor().as_ivec3();
        (lo, hi)
    }

    pub fn insert(&mut self, id: u32, min: DVec3, max: DVec3) {
        let (lo, hi) = self.range(min, max);
        for x in lo.x..=hi.x {
            for y in lo.y..=hi.y {
                for z in lo.z..=hi.z {
                    self.map.entry((x, y, z)).or_default().push(id);
                }
            }
        }
    }

    /// Ids whose cells overlap the box, sorted and unique.
    pub fn query(&self, min: DVec3, max: DVec3, out: &mut Vec<u32>) {
        out.clear();
        let (lo, hi) = self.range(min, max);
        for x in lo.x..=hi.x {
            for y in lo.y..=hi.y {
                for z in lo.z..=hi.z {
                    if let Some(v) = self.map.get(&(x, y, z)) {
                        out.extend_from_slice(v);
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}

/// A visible piece of a brush side.
#[derive(Clone, Debug)]
pub struct Fragment {
    pub brush: usize,
    pub side: usize,
    pub winding: DPolygon,
    /// The direction the fragment faces (the side's outward normal, or its reverse for the
    /// inner face of a liquid).
    pub normal: DVec3,
    /// Whether this is the reversed (inner) face of a liquid.
    pub inner: bool,
}

impl Fragment {
    fn reversed(&self) -> bool {
        self.inner
    }
}

/// Removes from `piece` the part inside brush `o`. Coplanar faces: a side touching `o` face to
/// face is hidden; of two overlapping coplanar sides the one of the later brush stays (a
/// liquid never wins over a solid).
fn clip_against(
    piece: DPolygon,
    plane: &DPlane,
    b_idx: usize,
    b_liquid: bool,
    o: &Brush,
    o_idx: usize,
    out: &mut Vec<DPolygon>,
) {
    let mut inside = piece;
    for q in &o.sides {
        let d = q.plane.normal.dot(plane.normal);
        if d < -1.0 + 1e-9 && (q.plane.dist + plane.dist).abs() < ON_EPS {
            continue;
        }
        if d > 1.0 - 1e-9 && (q.plane.dist - plane.dist).abs() < ON_EPS {
            let o_wins = (b_liquid && !o.contents.is_liquid()) || o_idx > b_idx;
            if o_wins {
                continue;
            }
            out.push(inside);
            return;
        }
        match inside.classify(&q.plane, 1e-4) {
            Side::Front => {
                out.push(inside);
                return;
            }
            Side::Back | Side::On => {}
            Side::Spanning => {
                let (f, b) = inside.split(&q.plane, 1e-4);
                if !f.is_empty() && f.area() > 1e-4 {
                    out.push(f);
                }
                inside = b;
                if inside.is_empty() || inside.area() < 1e-6 {
                    return;
                }
            }
        }
    }
}

/// The CSG of `group` (indices into `brushes`): the visible pieces of each drawn side.
/// Solid brushes hide faces inside them; liquids hide only other liquids' faces. Liquid faces
/// are returned twice, once facing out and once reversed (seen from inside the liquid).
pub fn csg_faces(
    brushes: &[Brush],
    group: &[usize],
    draws: &dyn Fn(&Brush, usize) -> bool,
) -> Vec<Fragment> {
    let mut grid = Grid::new(256.0);
    for &i in group {
        let b = &brushes[i];
        grid.insert(i as u32, b.min - DVec3::ONE, b.max + DVec3::ONE);
    }
    let mut out = Vec::new();
    let mut cands = Vec::new();
    for &bi in group {
        let b = &brushes[bi];
        let b_liquid = b.contents.is_liquid();
        if !(b.contents.is_solid() || b_liquid) {
            continue;
        }
        grid.query(b.min - DVec3::ONE, b.max + DVec3::ONE, &mut cands);
        for (si, s) in b.sides.iter().enumerate() {
            if !draws(b, si) {
                continue;
            }
            let mut pieces = vec![s.winding.clone()];
            for &oi in &cands {
                let oi = oi as usize;
                let o = &brushes[oi];
                if oi == bi || !(o.contents.is_solid() || (b_liquid && o.contents.is_liquid())) {
                    continue;
                }
                if (0..3).any(|k| o.min[k] > b.max[k] + 0.1 || o.max[k] < b.min[k] - 0.1) {
                    continue;
                }
                let mut next = Vec::with_capacity(pieces.len());
                for p in pieces {
                    clip_against(p, &s.plane, bi, b_liquid, o, oi, &mut next);
                }
                pieces = next;
                if pieces.is_empty() {
                    break;
                }
            }
            for w in pieces {
                if w.area() < 0.01 {
                    continue;
                }
                if b_liquid {
                    out.push(Fragment {
                        brush: bi,
                        side: si,
                        winding: w.reversed(),
                        normal: -s.plane.normal,
                        inner: true,
                    });
                }
                out.push(Fragment {
                    brush: bi,
                    side: si,
                    winding: w,
                    normal: s.plane.normal,
                    inner: false,
                });
            }
        }
    }
    out
}

/// Merges two convex polygons (both counter-clockwise around `normal`) that share an edge,
/// when their union is convex; collinear points at the joins are dropped.
pub fn try_merge(p1: &[DVec3], p2: &[DVec3], normal: DVec3) -> Option<Vec<DVec3>> {
    let eq = |a: DVec3, b: DVec3| a.distance_squared(b) < 1e-6;
    let (n1, n2) = (p1.len(), p2.len());
    for i in 0..n1 {
        let (a, b) = (p1[i], p1[(i + 1) % n1]);
        for j in 0..n2 {
            if !(eq(p2[j], b) && eq(p2[(j + 1) % n2], a)) {
                continue;
            }
            let mut out: Vec<DVec3> = (0..n1).map(|k| p1[(i + 1 + k) % n1]).collect();
            out.extend((2..n2).map(|k| p2[(j + k) % n2]));
            // Drop collinear points; refuse a reflex corner.
            let mut k = 0;
            while k < out.len() && out.len() >= 3 {
                let m = out.len();
                let (prev, cur, next) = (out[(k + m - 1) % m], out[k], out[(k + 1) % m]);
                let e1 = cur - prev;
                let e2 = next - cur;
                let c = e1.cross(e2).dot(normal);
                let scale = e1.length() * e2.length();
                if c.abs() <= 1e-9 * scale.max(1e-12) && e1.dot(e2) > 0.0 {
                    out.remove(k);
                    k = 0;
                    continue;
                }
                if c < -1e-9 * scale {
                    return None;
                }
                k += 1;
            }
            return (out.len() >= 3).then_some(out);
        }
    }
    None
}

/// Merges fragments of the same brush side (and facing) back together where convex.
pub fn merge_fragments(frags: Vec<Fragment>) -> Vec<Fragment> {
    let mut groups: HashMap<(usize, usize, bool), Vec<Fragment>> = HashMap::new();
    let mut order = Vec::new();
    for f in frags {
        let key = (f.brush, f.side, f.reversed());
        let g = groups.entry(key).or_default();
        if g.is_empty() {
            order.push(key);
        }
        g.push(f);
    }
    let mut out = Vec::new();
    for key in order {
        let mut g = groups.remove(&key).unwrap();
        let bounds = |f: &Fragment| {
            let mut lo = DVec3::splat(f64::INFINITY);
            let mut hi = DVec3::splat(f64::NEG_INFINITY);
            for p in &f.winding.points {
                lo = lo.min(*p);
                hi = hi.max(*p);
            }
            (lo, hi)
        };
        let mut boxes: Vec<(DVec3, DVec3)> = g.iter().map(bounds).collect();
        let mut i = 0;
        while i < g.len() {
            let mut grew = false;
            let mut j = i + 1;
            while j < g.len() {
                let (a, b) = (boxes[i], boxes[j]);
                let touch = (0..3).all(|k| a.0[k] <= b.1[k] + 1e-3 && b.0[k] <= a.1[k] + 1e-3);
                if touch {
                    if let Some(m) =
                        try_merge(&g[i].winding.points, &g[j].winding.points, g[i].normal)
                    {
                        g[i].winding = DPolygon::new(m);
                        boxes[i] = bounds(&g[i]);
                        g.swap_remove(j);
                        boxes.swap_remove(j);
                        grew = true;
                        continue;
                    }
                }
                j += 1;
            }
            if !grew {
                i += 1;
            }
        }
        out.extend(g);
    }
    out
}

/// Inserts into every polygon the vertices of other polygons that lie on its edges, so that
/// neighbouring surfaces share vertices (no cracks). Returns, per polygon, which of its
/// vertices were inserted.
pub fn fix_tjunctions(polys: &mut [Vec<DVec3>], eps: f64) -> Vec<Vec<bool>> {
    const CELL: f64 = 64.0;
    let key = |p: DVec3| {
        (
            (p.x / CELL).floor() as i32,
            (p.y / CELL).floor() as i32,
            (p.z / CELL).floor() as i32,
        )
    };
    let mut grid: HashMap<(i32, i32, i32), Vec<DVec3>> = HashMap::new();
    for poly in polys.iter() {
        for &p in poly {
            let v = grid.entry(key(p)).or_default();
            if !v.iter().any(|q| q.distance_squared(p) < 1e-12) {
                v.push(p);
            }
        }
    }
    let mut changed = Vec::with_capacity(polys.len());
    for poly in polys.iter_mut() {
        let n = poly.len();
        let mut result = Vec::with_capacity(n);
        let mut inserted = Vec::with_capacity(n);
        for i in 0..n {
            let (a, b) = (poly[i], poly[(i + 1) % n]);
            result.push(a);
            inserted.push(false);
            let ab = b - a;
            let len2 = ab.length_squared();
            if len2 < 1e-12 {
                continue;
            }
            let lo = a.min(b) - DVec3::splat(eps);
            let hi = a.max(b) + DVec3::splat(eps);
            let (k0, k1) = (key(lo), key(hi));
            let mut on: Vec<(f64, DVec3)> = Vec::new();
            for x in k0.0..=k1.0 {
                for y in k0.1..=k1.1 {
                    for z in k0.2..=k1.2 {
                        let Some(v) = grid.get(&(x, y, z)) else {
                            continue;
                        };
                        for &p in v {
                            if p.cmplt(lo).any() || p.cmpgt(hi).any() {
                                continue;
                            }
                            let t = (p - a).dot(ab) / len2;
                            if t <= 0.0 || t >= 1.0 {
                                continue;
                            }
                            let len = len2.sqrt();
                            if t * len < eps || (1.0 - t) * len < eps {
                                continue;
                            }
                            if (a + ab * t).distance_squared(p) < eps * eps {
                                on.push((t, p));
                            }
                        }
                    }
                }
            }
            if !on.is_empty() {
                on.sort_by(|x, y| x.0.total_cmp(&y.0));
                on.dedup_by(|x, y| x.1.distance_squared(y.1) < 1e-12);
                inserted.extend(on.iter().map(|_| true));
                result.extend(on.into_iter().map(|(_, p)| p));
            }
        }
        *poly = result;
        changed.push(inserted);
    }
    changed
}

/// Largest lightmap rect side, in luxels.
pub const MAX_LIGHTMAP: u32 = 1024;

/// Texture and lightmap settings for one surface.
pub struct SurfaceSpec {
    pub tex: TexVecs,
    pub tex_size: (u32, u32),
    pub material: u32,
    pub flags: u32,
    /// Luxel size in texels, or `None` for surfaces without a lightmap (sky, liquids).
    pub luxel: Option<f64>,
}

/// Builds a triangulated surface from a convex polygon (counter-clockwise seen from the front).
/// `inserted` marks T-junction vertices (on a straight edge): the fan's apex is a corner whose
/// neighbours are corners too, so no triangle is flat and no boundary edge skips a vertex;
/// without such a corner the polygon is fanned from its centre.
pub fn make_surface(
    points: &[DVec3],
    inserted: &[bool],
    normal: DVec3,
    spec: &SurfaceSpec,
) -> Surface {
    let n = points.len();
    if n < 3 || inserted.len() != n {
        return Surface {
            normal: normal.as_vec3(),
            material: spec.material,
            flags: spec.flags,
            ..Default::default()
        };
    }
    let apex = if inserted.iter().any(|&i| i) {
        (0..n).find(|&a| !inserted[a] && !inserted[(a + 1) % n] && !inserted[(a + n - 1) % n])
    } else {
        Some(0)
    };
    let mut pts: Vec<DVec3> = match apex {
        Some(a) => (0..n).map(|k| points[(a + k) % n]).collect(),
        None => points.to_vec(),
    };
    let mut indices = Vec::new();
    if apex.is_none() {
        let c = pts.iter().copied().sum::<DVec3>() / pts.len() as f64;
        let ci = pts.len() as u32;
        pts.push(c);
        for i in 0..ci {
            let j = (i + 1) % ci;
            if tri_area(pts[ci as usize], pts[i as usize], pts[j as usize]) > 1e-6 {
                indices.extend_from_slice(&[ci, i, j]);
            }
        }
    } else {
        for i in 1..pts.len() as u32 - 1 {
            if tri_area(pts[0], pts[i as usize], pts[i as usize + 1]) > 1e-6 {
                indices.extend_from_slice(&[0, i, i + 1]);
            }
        }
    }
    let st: Vec<(f64, f64)> = pts.iter().map(|&p| spec.tex.st(p)).collect();
    let (w, h) = (spec.tex_size.0.max(1) as f64, spec.tex_size.1.max(1) as f64);
    let mut lightmap = None;
    let mut lm_uv = vec![Vec2::ZERO; pts.len()];
    if let Some(luxel) = spec.luxel {
        let (mut smin, mut smax, mut tmin, mut tmax) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(s, t) in &st {
            smin = smin.min(s / luxel);
            smax = smax.max(s / luxel);
            tmin = tmin.min(t / luxel);
            tmax = tmax.max(t / luxel);
        }
        let (s0, t0) = (smin.floor(), tmin.floor());
        let width = (smax.ceil() - s0) as u32 + 1;
        let height = (tmax.ceil() - t0) as u32 + 1;
        // A face too large for one lightmap (Quake subdivides those) gets none rather than
        // a giant rect: at most MAX_LIGHTMAP luxels on a side.
        if width <= MAX_LIGHTMAP && height <= MAX_LIGHTMAP {
            lightmap = Some(LightmapRect {
                x: 0,
                y: 0,
                width,
                height,
            });
        }
        for (uv, &(s, t)) in lm_uv.iter_mut().zip(&st) {
            // Luxel k's centre is at k + 0.5 (as Quake's renderers offset by half a luxel):
            // bilinear filtering then stays inside the rect.
            *uv = Vec2::new((s / luxel - s0 + 0.5) as f32, (t / luxel - t0 + 0.5) as f32);
        }
    }
    let vertices = pts
        .iter()
        .zip(&st)
        .zip(&lm_uv)
        .map(|((&p, &(s, t)), &l)| Vertex {
            position: p.as_vec3(),
            uv: Vec2::new((s / w) as f32, (t / h) as f32),
            lightmap_uv: l,
        })
        .collect();
    Surface {
        vertices,
        indices,
        normal: normal.as_vec3(),
        material: spec.material,
        lightmap,
        flags: spec.flags,
    }
}

fn tri_area(a: DVec3, b: DVec3, c: DVec3) -> f64 {
    (b - a).cross(c - a).length() * 0.5
}

/// Places every surface's lightmap rect in one atlas (shelves, tallest first) and returns the
/// atlas size. The atlas is `width` wide (or the widest rect).
pub fn pack_lightmaps(surfaces: &mut [Surface], width: u32) -> (u32, u32) {
    let mut order: Vec<usize> = (0..surfaces.len())
        .filter(|&i| surfaces[i].lightmap.is_some())
        .collect();
    if order.is_empty() {
        return (0, 0);
    }
    let w = order
        .iter()
        .map(|&i| surfaces[i].lightmap.unwrap().width)
        .max()
        .unwrap()
        .max(width);
    order.sort_by_key(|&i| std::cmp::Reverse((surfaces[i].lightmap.unwrap().height, i)));
    let (mut x, mut y, mut shelf) = (0u32, 0u32, 0u32);
    for i in order {
        let r = surfaces[i].lightmap.as_mut().unwrap();
        if x + r.width > w {
            x = 0;
            y += shelf;
            shelf = 0;
        }
        r.x = x;
        r.y = y;
        x += r.width;
        shelf = shelf.max(r.height);
    }
    (w, y + shelf)
}

/// Boundary edges of a triangulated surface: those used by exactly one triangle.
fn boundary_edges(s: &Surface) -> Vec<(u32, u32)> {
    let mut count: HashMap<(u32, u32), u32> = HashMap::new();
    for t in s.indices.chunks(3) {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            *count.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    let mut v: Vec<(u32, u32)> = count
        .into_iter()
        .filter(|&(_, c)| c == 1)
        .map(|(e, _)| e)
        .collect();
    v.sort_unstable();
    v
}

/// Brute-force check used by tests: every boundary edge of every surface's triangles against
/// every boundary vertex of every surface (vertices on some surface's outline: a fan centre
/// inside a surface cannot crack); returns the first vertex found strictly inside an edge.
pub fn find_tjunction(surfaces: &[&Surface], eps: f32) -> Option<(usize, Vec3, Vec3, Vec3)> {
    let mut verts: Vec<Vec3> = Vec::new();
    for s in surfaces {
        for (a, b) in boundary_edges(s) {
            verts.push(s.vertices[a as usize].position);
            verts.push(s.vertices[b as usize].position);
        }
    }
    verts.sort_by(|a, b| a.x.total_cmp(&b.x));
    for (si, s) in surfaces.iter().enumerate() {
        for (a, b) in boundary_edges(s) {
            let (pa, pb) = (
                s.vertices[a as usize].position,
                s.vertices[b as usize].position,
            );
            let (x0, x1) = (pa.x.min(pb.x) - eps, pa.x.max(pb.x) + eps);
            let start = verts.partition_point(|v| v.x < x0);
            let ab = pb - pa;
            let len = ab.length();
            for &p in verts[start..].iter().take_while(|v| v.x <= x1) {
                let t = (p - pa).dot(ab) / (len * len);
                if t * len <= eps || (1.0 - t) * len <= eps {
                    continue;
                }
                if (pa + ab * t).distance(p) < eps {
                    return Some((si, pa, pb, p));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tjunction_repair_on_a_split_edge() {
        // A big square next to two small ones: the big one's edge gets the middle vertex.
        let sq = |x0: f64, y0: f64, x1: f64, y1: f64| {
            vec![
                DVec3::new(x0, y0, 0.0),
                DVec3::new(x1, y0, 0.0),
                DVec3::new(x1, y1, 0.0),
                DVec3::new(x0, y1, 0.0),
            ]
        };
        let mut polys = vec![
            sq(0.0, 0.0, 64.0, 64.0),
            sq(64.0, 0.0, 128.0, 32.0),
            sq(64.0, 32.0, 128.0, 64.0),
        ];
        let spec = SurfaceSpec {
            tex: TexVecs {
                s: DVec3::X,
                s_offset: 0.0,
                t: DVec3::Y,
                t_offset: 0.0,
            },
            tex_size: (64, 64),
            material: 0,
            flags: 0,
            luxel: Some(16.0),
        };
        let before: Vec<Surface> = polys
            .iter()
            .map(|p| make_surface(p, &[false; 4], DVec3::Z, &spec))
            .collect();
        assert!(find_tjunction(&before.iter().collect::<Vec<_>>(), 0.01).is_some());
        let changed = fix_tjunctions(&mut polys, 0.05);
        assert_eq!(changed[0], vec![false, false, true, false, false]);
        assert!(changed[1..].iter().all(|c| c.iter().all(|&i| !i)));
        assert_eq!(polys[0].len(), 5);
        let after: Vec<Surface> = polys
            .iter()
            .zip(&changed)
            .map(|(p, c)| make_surface(p, c, DVec3::Z, &spec))
            .collect();
        assert_eq!(
            find_tjunction(&after.iter().collect::<Vec<_>>(), 0.01),
            None
        );
        // Area is kept by the centre fan.
        let area: f32 = after[0]
            .indices
            .chunks(3)
            .map(|t| {
                let p = |i: u32| after[0].vertices[i as usize].position;
                (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0])).length() * 0.5
            })
            .sum();
        assert!((area - 64.0 * 64.0).abs() < 1e-3);
        // Lightmap: 64 units / 16 = 4 luxels → 5 samples.
        assert_eq!(after[0].lightmap.unwrap().width, 5);
    }

    #[test]
    fn merging_rebuilds_convex_unions_only() {
        let sq = |x0: f64, y0: f64, x1: f64, y1: f64| {
            vec![
                DVec3::new(x0, y0, 0.0),
                DVec3::new(x1, y0, 0.0),
                DVec3::new(x1, y1, 0.0),
                DVec3::new(x0, y1, 0.0),
            ]
        };
        let m = try_merge(&sq(0.0, 0.0, 1.0, 1.0), &sq(1.0, 0.0, 2.0, 1.0), DVec3::Z).unwrap();
        assert_eq!(m.len(), 4);
        let area = DPolygon::new(m).area();
        assert!((area - 2.0).abs() < 1e-12);
        // An L shape is not convex: no merge. Squares that only touch at a corner: no merge.
        let tri = vec![
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(2.0, -1.0, 0.0),
        ];
        assert!(try_merge(&sq(0.0, 0.0, 1.0, 1.0), &tri, DVec3::Z).is_none());
        let tri = vec![
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(2.0, 0.5, 0.0),
        ];
        assert_eq!(
            try_merge(&sq(0.0, 0.0, 1.0, 1.0), &tri, DVec3::Z)
                .unwrap()
                .len(),
            5
        );
        assert!(try_merge(&sq(0.0, 0.0, 1.0, 1.0), &sq(1.0, 1.0, 2.0, 2.0), DVec3::Z).is_none());
    }

    #[test]
    fn packing_never_overlaps() {
        let mut surfaces: Vec<Surface> = (0..200)
            .map(|i| Surface {
                lightmap: Some(LightmapRect {
                    x: 0,
                    y: 0,
                    width: 1 + (i * 7) % 19,
                    height: 1 + (i * 13) % 17,
                }),
                ..Default::default()
            })
            .collect();
        let (w, h) = pack_lightmaps(&mut surfaces, 64);
        let rects: Vec<LightmapRect> = surfaces.iter().map(|s| s.lightmap.unwrap()).collect();
        for (i, a) in rects.iter().enumerate() {
            assert!(a.x + a.width <= w && a.y + a.height <= h);
            for b in &rects[i + 1..] {
                let apart = a.x + a.width <= b.x
                    || b.x + b.width <= a.x
                    || a.y + a.height <= b.y
                    || b.y + b.height <= a.y;
                assert!(apart, "{a:?} {b:?}");
            }
        }
    }
}

/// Repairs T-junctions between already built planar surfaces (e.g. imported Quake faces):
/// each surface's outline (its vertices in order) gets the vertices of the others that lie on
/// its edges, with texture and lightmap coordinates interpolated along the edge (exact: both
/// are affine on a plane), and is triangulated again. Returns how many vertices were inserted.
pub fn repair_tjunctions(surfaces: &mut [Surface], ids: &[u32]) -> usize {
    let mut polys: Vec<Vec<DVec3>> = ids
        .iter()
        .map(|&i| {
            surfaces[i as usize]
                .vertices
                .iter()
                .map(|v| v.position.as_dvec3())
                .collect()
        })
        .collect();
    let inserted = fix_tjunctions(&mut polys, 0.05);
    let mut total = 0;
    for (k, &i) in ids.iter().enumerate() {
        let flags = &inserted[k];
        let added = flags.iter().filter(|f| **f).count();
        if added == 0 {
            continue;
        }
        total += added;
        let old = std::mem::take(&mut surfaces[i as usize].vertices);
        let n_old = old.len();
        let mut vertices = Vec::with_capacity(polys[k].len());
        let mut orig = 0usize; // index of the last original vertex passed
        for (p, &is_new) in polys[k].iter().zip(flags) {
            if !is_new {
                orig = old
                    .iter()
                    .position(|v| v.position.as_dvec3() == *p)
                    .unwrap_or(0);
                vertices.push(old[orig]);
            } else {
                let (a, b) = (old[orig], old[(orig + 1) % n_old]);
                let (pa, pb) = (a.position.as_dvec3(), b.position.as_dvec3());
                let t =
                    ((*p - pa).dot(pb - pa) / (pb - pa).length_squared()).clamp(0.0, 1.0) as f32;
                vertices.push(crate::level::Vertex {
                    position: p.as_vec3(),
                    uv: a.uv + (b.uv - a.uv) * t,
                    lightmap_uv: a.lightmap_uv + (b.lightmap_uv - a.lightmap_uv) * t,
                });
            }
        }
        // Fan from a corner whose neighbours are corners (no flat triangles); otherwise from
        // an added centre vertex (its coordinates are the average: affine maps keep centroids).
        let n = vertices.len();
        let apex = (0..n).find(|&j| !flags[j] && !flags[(j + 1) % n] && !flags[(j + n - 1) % n]);
        let mut indices = Vec::with_capacity(3 * n);
        match apex {
            Some(a) => {
                for j in 1..n - 1 {
                    indices.extend_from_slice(&[
                        a as u32,
                        ((a + j) % n) as u32,
                        ((a + j + 1) % n) as u32,
                    ]);
                }
            }
            None => {
                let c = n as u32;
                let inv = 1.0 / n as f32;
                let centre = crate::level::Vertex {
                    position: vertices.iter().map(|v| v.position).sum::<glam::Vec3>() * inv,
                    uv: vertices.iter().map(|v| v.uv).sum::<glam::Vec2>() * inv,
                    lightmap_uv: vertices.iter().map(|v| v.lightmap_uv).sum::<glam::Vec2>() * inv,
                };
                for j in 0..n {
                    indices.extend_from_slice(&[c, j as u32, ((j + 1) % n) as u32]);
                }
                vertices.push(centre);
            }
        }
        let s = &mut surfaces[i as usize];
        s.vertices = vertices;
        s.indices = indices;
    }
    total
}
