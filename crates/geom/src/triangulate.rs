//! Triangles of a convex polygon with no flat ones. Outlines often carry collinear vertices (T-junction
//! vertices a compiler inserted on a straight side): a fan from such a vertex, or from a corner
//! next to one, makes zero-area triangles that the rasterizer turns into sparkles and cracks.
//! Of the cuts without flat triangles, the one whose diagonals are shortest in sum is taken
//! ([`cut`]): a software rasterizer shades whole 4×4 blocks along both sides of every edge,
//! so a fan's long thin triangles cost it pixels shaded twice along each diagonal.

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
    over_longest_side(a, b, c, (b - a).cross(c - a).length())
}

/// `twice_area` (of triangle `abc`, however measured) over its longest side: its height (0 for
/// a degenerate triangle).
fn over_longest_side(a: DVec3, b: DVec3, c: DVec3, twice_area: f64) -> f64 {
    let longest = (b - a)
        .length_squared()
        .max((c - b).length_squared())
        .max((a - c).length_squared())
        .sqrt();
    if longest == 0.0 {
        return 0.0;
    }
    twice_area / longest
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

/// The triangles of the convex polygon `points` (in order, either winding; triangles wind as
/// the polygon does), and whether index `n` is a centre vertex the caller appends:
/// [`shortest_diagonals`] where the polygon has a cut without flat triangles, else [`fan`]'s.
pub fn cut(points: &[DVec3]) -> (Vec<u32>, bool) {
    if let Some(indices) = shortest_diagonals(points) {
        return (indices, false);
    }
    let fan = fan(points);
    (fan_indices(points, fan), fan == Fan::Centre)
}

/// Polygons with more corners than this are fanned ([`shortest_diagonals`] costs n³).
pub const MAX_CUT_CORNERS: usize = 96;

/// The triangles between the corners of the convex polygon `points` (in order) with no flat or
/// inverted triangle whose diagonals are shortest in sum; `None` where every such cut has one
/// (or the polygon has fewer than 3 or more than [`MAX_CUT_CORNERS`] corners). The area and
/// the sides are the same in every cut: the diagonals are what a cut can shorten.
pub fn shortest_diagonals(points: &[DVec3]) -> Option<Vec<u32>> {
    let n = points.len();
    if !(3..=MAX_CUT_CORNERS).contains(&n) {
        return None;
    }
    let normal = newell_normal(points);
    // Sides (neighbours, and the last corner with the first) cost nothing.
    let length = |a: usize, b: usize| match b - a == 1 || (a == 0 && b == n - 1) {
        true => 0.0,
        false => (points[b] - points[a]).length(),
    };
    // best[i * n + j]: the least diagonal length inside the part of the polygon from corner i
    // to corner j, and the apex over side (i, j) that gives it.
    let mut best = vec![(f64::INFINITY, usize::MAX); n * n];
    for i in 0..n - 1 {
        best[i * n + i + 1] = (0.0, usize::MAX);
    }
    for span in 2..n {
        for i in 0..n - span {
            let j = i + span;
            for k in i + 1..j {
                let cost = best[i * n + k].0 + best[k * n + j].0 + length(i, k) + length(k, j);
                if cost < best[i * n + j].0
                    && height_across(points[i], points[k], points[j], normal) >= FLAT_HEIGHT
                {
                    best[i * n + j] = (cost, k);
                }
            }
        }
    }
    if !best[n - 1].0.is_finite() {
        return None;
    }
    let mut indices = Vec::with_capacity(3 * (n - 2));
    let mut parts = vec![(0, n - 1)];
    while let Some((i, j)) = parts.pop() {
        if j - i >= 2 {
            let k = best[i * n + j].1;
            indices.extend([i, k, j].map(|c| c as u32));
            parts.extend([(i, k), (k, j)]);
        }
    }
    Some(indices)
}

/// The height of triangle `abc` as seen along `normal` (its area across it over its longest
/// side), negative when it winds against it. `signed_height` for a triangle in the polygon's
/// plane; an outline whose T-junction vertex lies a hair off the plane makes triangles that
/// are tall but stand across the plane, and cover nothing seen from the front.
fn height_across(a: DVec3, b: DVec3, c: DVec3, normal: DVec3) -> f64 {
    over_longest_side(a, b, c, (b - a).cross(c - a).dot(normal))
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
        // A cut needs no centre there: the corners' ears, then the eight side points.
        let (ix, centre) = cut(&all);
        assert!(!centre);
        assert_eq!(ix.len(), 3 * (all.len() - 2));
        assert!((area(&all, &ix) - 64.0).abs() < 1e-9);
    }

    /// Every cut of the convex polygon `0..n` into triangles, as lists of corner triples
    /// (the triangle over side (0, n − 1) first, then each part's, recursively).
    fn every_cut(i: usize, j: usize) -> Vec<Vec<[usize; 3]>> {
        if j - i < 2 {
            return vec![Vec::new()];
        }
        let mut out = Vec::new();
        for k in i + 1..j {
            for left in every_cut(i, k) {
                for right in every_cut(k, j) {
                    let mut t = vec![[i, k, j]];
                    t.extend(&left);
                    t.extend(&right);
                    out.push(t);
                }
            }
        }
        out
    }

    /// A convex polygon: `corners` points on an ellipse at random angles, with up to two
    /// points put on random sides (as a compiler's T-junction vertices: some a hair off the
    /// side, in the plane or out of it, as e1m3's).
    fn random_polygon(seed: &mut u64, corners: usize) -> Vec<DVec3> {
        let mut next = || {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (*seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut angles: Vec<f64> = (0..corners)
            .map(|_| next() * std::f64::consts::TAU)
            .collect();
        angles.sort_by(f64::total_cmp);
        let (rx, ry) = (20.0 + 200.0 * next(), 20.0 + 200.0 * next());
        let mut points: Vec<DVec3> = angles
            .iter()
            .map(|a| DVec3::new(rx * a.cos(), ry * a.sin(), 5.0))
            .collect();
        for _ in 0..(next() * 3.0) as usize {
            let k = (next() * points.len() as f64) as usize % points.len();
            let (a, b) = (points[k], points[(k + 1) % points.len()]);
            let across = DVec3::Z.cross(b - a).normalize() * 0.01 * (next() - 0.5);
            let off_plane = DVec3::Z * 0.1 * (next() - 0.5);
            points.insert(k + 1, a.lerp(b, 0.2 + 0.6 * next()) + across + off_plane);
        }
        points
    }

    /// Brute force over every cut of random convex polygons with points on their sides: the
    /// shortest cut without flat triangles is found whenever one exists, its diagonals as
    /// short in sum as the best of all; its triangles have height, wind as the polygon and
    /// cover it.
    #[test]
    fn the_shortest_diagonals_are_the_least_of_every_cut() {
        let mut seed = 7u64;
        let (mut found, mut none) = (0, 0);
        // (`none` counts random polygons without one: a polygon with area almost always has one.)
        for case in 0..600 {
            let p = random_polygon(&mut seed, 3 + case % 5);
            let n = p.len();
            let normal = newell_normal(&p);
            let diagonal = |a: usize, b: usize| {
                let (a, b) = (a.min(b), a.max(b));
                match b - a == 1 || (a == 0 && b == n - 1) {
                    true => 0.0,
                    false => (p[b] - p[a]).length(),
                }
            };
            // Each inner diagonal is an edge of two triangles, each side of one.
            let length = |cut: &[[usize; 3]]| -> f64 {
                let edges = cut
                    .iter()
                    .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])]);
                edges.map(|(a, b)| diagonal(a, b)).sum::<f64>() / 2.0
            };
            let valid =
                |t: &[usize; 3]| height_across(p[t[0]], p[t[1]], p[t[2]], normal) >= FLAT_HEIGHT;
            let best = every_cut(0, n - 1)
                .into_iter()
                .filter(|c| c.iter().all(valid))
                .map(|c| length(&c))
                .fold(None, |m: Option<f64>, l| Some(m.map_or(l, |m| m.min(l))));
            let got = shortest_diagonals(&p);
            assert_eq!(got.is_some(), best.is_some(), "case {case}: {p:?}");
            let (Some(ix), Some(best)) = (got, best) else {
                none += 1;
                continue;
            };
            found += 1;
            let cut: Vec<[usize; 3]> = ix
                .chunks(3)
                .map(|t| [0, 1, 2].map(|k| t[k] as usize))
                .collect();
            assert_eq!(cut.len(), n - 2, "case {case}");
            assert!(
                cut.iter().all(valid),
                "case {case}: a flat or inverted triangle"
            );
            assert!(
                (length(&cut) - best).abs() < 1e-9,
                "case {case}: {} against {best}",
                length(&cut)
            );
            // Seen along the normal: triangles all facing it, summing to the polygon's area,
            // cover it once.
            let across = |t: [usize; 3]| (p[t[1]] - p[t[0]]).cross(p[t[2]] - p[t[0]]).dot(normal);
            let whole: f64 = (1..n - 1).map(|k| across([0, k, k + 1])).sum();
            let covered: f64 = cut.iter().map(|&t| across(t)).sum();
            assert!((covered - whole).abs() < 1e-6 * whole, "case {case}");
        }
        assert!(found > 500, "{found} cut, {none} without a cut");
        // A polygon with no area has no cut without flat triangles; `cut` then fans it.
        let flat: Vec<DVec3> = (0..5).map(|k| DVec3::new(k as f64, 0.0, 0.0)).collect();
        assert_eq!(shortest_diagonals(&flat), None);
        assert_eq!(cut(&flat).0, fan_indices(&flat, fan(&flat)));
    }
}
