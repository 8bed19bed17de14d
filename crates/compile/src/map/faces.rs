//! The CSG of brush faces: each visible side of a world brush clipped against the brushes that
//! cover it, then coplanar fragments merged back into convex polygons.

use std::collections::HashMap;

use glam::DVec3;

use super::brush::{Brush, ON_EPS};
use crate::grid::Grid;
use lanthorn_geom::polygon::Side;
use lanthorn_geom::{DPlane, DPolygon};

/// A visible piece of a brush side.
#[derive(Clone, Debug)]
pub(super) struct Fragment {
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
pub(super) fn csg_faces(
    brushes: &[Brush],
    group: &[usize],
    draws: &dyn Fn(usize, usize) -> bool,
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
            if !draws(bi, si) {
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
pub(super) fn try_merge(p1: &[DVec3], p2: &[DVec3], normal: DVec3) -> Option<Vec<DVec3>> {
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
pub(super) fn merge_fragments(frags: Vec<Fragment>) -> Vec<Fragment> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
