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
