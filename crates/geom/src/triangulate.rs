//! Triangles of a convex polygon with no flat ones. Outlines often carry collinear vertices (T-junction
//! vertices a compiler inserted on a straight side): a fan from such a vertex, or from a corner
//! next to one, makes zero-area triangles that the rasterizer turns into sparkles and cracks.

use glam::DVec3;

/// A triangle counts as flat when its height over its longest side is below this (units): id's
/// qbsp inserts T-junction vertices that lie within 0.01 of the edge they split.
pub const FLAT_HEIGHT: f64 = 0.02;

/// How a convex polygon is fanned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fan {
    /// From this corner: every triangle `(apex, apex + k, apex + k + 1)` has area.
    Corner(usize),
    /// From an added centre vertex (the average of the corners): no corner works, because
    /// every vertex lies on a side with others.
    Centre,
}

/// Height of triangle `abc` over its longest side (0 for a degenerate one).
pub fn triangle_height(a: DVec3, b: DVec3, c: DVec3) -> f64 {
    let longest = (b - a)
        .length_squared()
        .max((c - b).length_squared())
        .max((a - c).length_squared())
        .sqrt();
    if longest == 0.0 {
        return 0.0;
    }
    (b - a).cross(c - a).length() / longest
}

/// The fan to use for the convex polygon `points` (in order, either winding): the first
/// corner whose fan has no flat or inverted triangle; when there is none, whichever of the
/// corners and the centre makes the thinnest triangle thickest. Outlines with T-junction
/// vertices are only nearly convex (a vertex may sit a hair outside its side): a fan triangle
/// across such a dent winds the wrong way and overlaps its neighbour, so winding counts too.
pub fn fan(points: &[DVec3]) -> Fan {
    let n = points.len();
    if n < 3 {
        return Fan::Corner(0);
    }
    let normal = newell_normal(points);
    let thinnest = |apex: usize| {
        (1..n - 1)
            .map(|k| {
                let (b, c) = (points[(apex + k) % n], points[(apex + k + 1) % n]);
                signed_height(points[apex], b, c, normal)
            })
            .fold(f64::INFINITY, f64::min)
    };
    let corners: Vec<f64> = (0..n).map(thinnest).collect();
    if let Some(a) = corners.iter().position(|&h| h >= FLAT_HEIGHT) {
        return Fan::Corner(a);
    }
    let c = centre(points);
    let centre_thinnest = (0..n)
        .filter(|&i| points[i] != points[(i + 1) % n])
        .map(|i| signed_height(c, points[i], points[(i + 1) % n], normal))
        .fold(f64::INFINITY, f64::min);
    let (best, h) =
        corners
            .iter()
            .copied()
            .enumerate()
            .fold(
                (0, f64::NEG_INFINITY),
                |m, (i, h)| if h > m.1 { (i, h) } else { m },
            );
    if centre_thinnest > h {
        Fan::Centre
    } else {
        Fan::Corner(best)
    }
}

/// The polygon's unit normal by Newell's method (robust to collinear and nearly collinear
/// vertices); zero for a degenerate polygon.
fn newell_normal(points: &[DVec3]) -> DVec3 {
    let n = points.len();
    (0..n)
        .map(|i| points[i].cross(points[(i + 1) % n]))
        .sum::<DVec3>()
        .normalize_or_zero()
}

/// `triangle_height`, negative when the triangle winds against `normal`.
fn signed_height(a: DVec3, b: DVec3, c: DVec3, normal: DVec3) -> f64 {
    let h = triangle_height(a, b, c);
    if normal != DVec3::ZERO && (b - a).cross(c - a).dot(normal) < 0.0 {
        -h
    } else {
        h
    }
}

/// Triangle corner indices for `fan` of an `n`-gon; with `Fan::Centre`, index `n` is the
/// centre vertex the caller appends. Only triangles on a side of zero length (two equal
/// neighbours) are left out: they cover nothing.
pub fn fan_indices(points: &[DVec3], fan: Fan) -> Vec<u32> {
    let n = points.len();
    let mut out = Vec::with_capacity(3 * n);
    match fan {
        Fan::Corner(a) => {
            for k in 1..n.saturating_sub(1) {
                out.extend([a, (a + k) % n, (a + k + 1) % n].map(|i| i as u32));
            }
        }
        Fan::Centre => {
            for i in 0..n {
                let j = (i + 1) % n;
                if points[i] != points[j] {
                    out.extend([n as u32, i as u32, j as u32]);
                }
            }
        }
    }
    out
}

/// The average of the corners (inside a convex polygon).
pub fn centre(points: &[DVec3]) -> DVec3 {
    points.iter().copied().sum::<DVec3>() / points.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(points: &[DVec3], indices: &[u32]) -> f64 {
        let p = |i: u32| {
            points
                .get(i as usize)
                .copied()
                .unwrap_or_else(|| centre(points))
        };
        indices
            .chunks(3)
            .map(|t| (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0])).length() * 0.5)
            .sum()
    }

    /// Brute force over rotations of squares with vertices inserted on their sides: the fan
    /// has no flat triangle and covers exactly the square.
    #[test]
    fn fans_have_no_flat_triangles_and_cover_the_polygon() {
        let corners = [
            DVec3::new(0.0, 0.0, 0.0),
            DVec3::new(8.0, 0.0, 0.0),
            DVec3::new(8.0, 8.0, 0.0),
            DVec3::new(0.0, 8.0, 0.0),
        ];
        // Every subset of "side k carries a mid-point", in every rotation.
        for mask in 0..16u32 {
            let mut points = Vec::new();
            for k in 0..4 {
                points.push(corners[k]);
                if mask & (1 << k) != 0 {
                    points.push((corners[k] + corners[(k + 1) % 4]) * 0.5);
                }
            }
            for r in 0..points.len() {
                let mut p = points.clone();
                p.rotate_left(r);
                let f = fan(&p);
                let ix = fan_indices(&p, f);
                let at = |i: u32| p.get(i as usize).copied().unwrap_or_else(|| centre(&p));
                for t in ix.chunks(3) {
                    let h = triangle_height(at(t[0]), at(t[1]), at(t[2]));
                    assert!(h >= FLAT_HEIGHT, "mask {mask} rotation {r}: flat {t:?}");
                }
                assert!(
                    (area(&p, &ix) - 64.0).abs() < 1e-9,
                    "mask {mask} rotation {r}"
                );
                assert!(
                    matches!(f, Fan::Corner(_)),
                    "one point per side: a corner works"
                );
            }
        }
        // Two vertices on every side: each vertex is collinear with an edge it does not touch,
        // so only the centre fans.
        let mut all = Vec::new();
        for k in 0..4 {
            let (a, b) = (corners[k], corners[(k + 1) % 4]);
            all.extend([a, a + (b - a) / 3.0, a + (b - a) * 2.0 / 3.0]);
        }
        assert_eq!(fan(&all), Fan::Centre);
        let ix = fan_indices(&all, Fan::Centre);
        assert_eq!(ix.len(), 3 * all.len());
        assert!((area(&all, &ix) - 64.0).abs() < 1e-9);
    }
}
