//! T-junctions between polygons: the vertices of one polygon that lie on another's edge are
//! inserted into that edge, so neighbouring surfaces share vertices and the rasterizer leaves no
//! cracks between them.

use std::collections::HashMap;

use glam::DVec3;

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
        let on = points_on_sides(poly, &grid, eps, &key);
        let mut result = Vec::with_capacity(poly.len() + on.len());
        let mut inserted = Vec::with_capacity(poly.len() + on.len());
        for (i, &corner) in poly.iter().enumerate() {
            result.push(corner);
            inserted.push(false);
            for &(_, _, p) in on.iter().filter(|(side, ..)| *side == i) {
                result.push(p);
                inserted.push(true);
            }
        }
        *poly = result;
        changed.push(inserted);
    }
    changed
}

/// The grid's points that lie on `poly`'s sides (within `eps`, not at a corner), as
/// (side, position along it, point), in outline order. A point near two sides (the two long
/// sides of a sliver) goes on the nearer one only: on both, the outline would cross itself.
fn points_on_sides(
    poly: &[DVec3],
    grid: &HashMap<(i32, i32, i32), Vec<DVec3>>,
    eps: f64,
    key: &dyn Fn(DVec3) -> (i32, i32, i32),
) -> Vec<(usize, f64, DVec3)> {
    let n = poly.len();
    // (side, t, point, distance to the side)
    let mut on: Vec<(usize, f64, DVec3, f64)> = Vec::new();
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        let ab = b - a;
        let len2 = ab.length_squared();
        if len2 < 1e-12 {
            continue;
        }
        let len = len2.sqrt();
        let lo = a.min(b) - DVec3::splat(eps);
        let hi = a.max(b) + DVec3::splat(eps);
        let (k0, k1) = (key(lo), key(hi));
        for x in k0.0..=k1.0 {
            for y in k0.1..=k1.1 {
                for z in k0.2..=k1.2 {
                    for &p in grid.get(&(x, y, z)).into_iter().flatten() {
                        if p.cmplt(lo).any() || p.cmpgt(hi).any() {
                            continue;
                        }
                        let t = (p - a).dot(ab) / len2;
                        if t * len < eps || (1.0 - t) * len < eps {
                            continue;
                        }
                        let d = (a + ab * t).distance(p);
                        if d < eps && !poly.iter().any(|q| q.distance_squared(p) < 1e-12) {
                            on.push((i, t, p, d));
                        }
                    }
                }
            }
        }
    }
    // Nearest side first, so the first copy of each point is the one kept.
    on.sort_by(|x, y| x.3.total_cmp(&y.3));
    let mut kept: Vec<(usize, f64, DVec3, f64)> = Vec::with_capacity(on.len());
    for e in on {
        if !kept.iter().any(|k| k.2.distance_squared(e.2) < 1e-12) {
            kept.push(e);
        }
    }
    kept.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)));
    kept.into_iter().map(|(i, t, p, _)| (i, t, p)).collect()
}
