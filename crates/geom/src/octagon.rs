//! The screen-space bounding octagon: the region (NDC) a cell is seen through, bounded along x, y and the two diagonals.

use bytemuck::{Pod, Zeroable};
use glam::{Vec2, Vec4};

/// A screen-space bounding octagon (an 8-DOP) in normalized device coordinates: the intersection
/// of the ranges of x, y, x+y and x−y. Thief's portal traverser bounds every portal and cell by
/// one. The GPU per-draw record holds exactly these 8 floats, and the vertex shader turns them
/// into 8 clip distances with [`Octagon::clip_distances`]' formula.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Octagon {
    /// Minimum of x, y, x+y, x−y.
    pub min: [f32; 4],
    /// Maximum of x, y, x+y, x−y.
    pub max: [f32; 4],
}

impl Octagon {
    /// The whole screen.
    pub const FULL: Octagon = Octagon {
        min: [-1.0, -1.0, -2.0, -2.0],
        max: [1.0, 1.0, 2.0, 2.0],
    };
    /// No region: the start of a union.
    pub const EMPTY: Octagon = Octagon {
        min: [f32::INFINITY; 4],
        max: [f32::NEG_INFINITY; 4],
    };

    #[inline]
    fn axes(p: Vec2) -> [f32; 4] {
        [p.x, p.y, p.x + p.y, p.x - p.y]
    }

    /// The least octagon holding every point (NDC).
    pub fn from_points(points: impl IntoIterator<Item = Vec2>) -> Octagon {
        let (mut lo, mut hi) = (Vec4::INFINITY, Vec4::NEG_INFINITY);
        for p in points {
            let a = Vec4::from_array(Self::axes(p));
            (lo, hi) = (lo.min(a), hi.max(a));
        }
        Octagon::of(lo, hi)
    }

    /// The bounds as vectors (the four axes' minima, maxima): one instruction a step.
    #[inline]
    fn bounds(&self) -> (Vec4, Vec4) {
        (Vec4::from_array(self.min), Vec4::from_array(self.max))
    }

    #[inline]
    fn of(min: Vec4, max: Vec4) -> Octagon {
        Octagon {
            min: min.to_array(),
            max: max.to_array(),
        }
    }

    /// The region both hold.
    #[inline]
    pub fn intersect(&self, o: &Octagon) -> Octagon {
        let ((a0, a1), (b0, b1)) = (self.bounds(), o.bounds());
        Octagon::of(a0.max(b0), a1.min(b1))
    }

    /// Conservative union: the smallest octagon holding both.
    #[inline]
    pub fn union(&self, o: &Octagon) -> Octagon {
        let ((a0, a1), (b0, b1)) = (self.bounds(), o.bounds());
        Octagon::of(a0.min(b0), a1.max(b1))
    }

    /// The same region with every bound pulled in to where the region actually reaches
    /// (x+y cannot exceed max x + max y, x cannot exceed (max(x+y) + max(x−y)) / 2, …).
    /// Two rounds reach the fixed point for these four directions.
    #[inline]
    pub fn tightened(&self) -> Octagon {
        let (mut lo, mut hi) = self.bounds();
        let half = Vec4::new(0.5, 0.5, 1.0, 1.0);
        for _ in 0..2 {
            // Lanes: x from s and d, y from s and d, s from x and y, d from x and y.
            let (x0, y0, s0, d0) = lo.into();
            let (x1, y1, s1, d1) = hi.into();
            let reach_lo = (Vec4::new(s0, s0, x0, x0) + Vec4::new(d0, -d1, y0, -y1)) * half;
            let reach_hi = (Vec4::new(s1, s1, x1, x1) + Vec4::new(d1, -d0, y1, -y0)) * half;
            (lo, hi) = (lo.max(reach_lo), hi.min(reach_hi));
        }
        Octagon::of(lo, hi)
    }

    /// True when no point satisfies all eight bounds.
    #[inline]
    pub fn is_empty(&self) -> bool {
        let (lo, hi) = self.bounds();
        if !lo.cmple(hi).all() {
            return true;
        }
        let (lo, hi) = self.tightened().bounds();
        !lo.cmple(hi).all()
    }

    /// Whether `p` (NDC) meets all eight bounds.
    #[inline]
    pub fn contains(&self, p: Vec2) -> bool {
        let a = Self::axes(p);
        (0..4).all(|i| a[i] >= self.min[i] && a[i] <= self.max[i])
    }

    /// Area in NDC units² (the full screen is 4), by clipping the screen-sized square. Used for
    /// statistics and tests, not per frame.
    pub fn area(&self) -> f32 {
        if self.is_empty() {
            return 0.0;
        }
        let t = self.tightened();
        // Polygon = box clipped by the two diagonal slabs.
        let mut poly = vec![
            Vec2::new(t.min[0], t.min[1]),
            Vec2::new(t.max[0], t.min[1]),
            Vec2::new(t.max[0], t.max[1]),
            Vec2::new(t.min[0], t.max[1]),
        ];
        let halfplanes = [
            (Vec2::new(1.0, 1.0), t.min[2]),
            (Vec2::new(-1.0, -1.0), -t.max[2]),
            (Vec2::new(1.0, -1.0), t.min[3]),
            (Vec2::new(-1.0, 1.0), -t.max[3]),
        ];
        for (n, d) in halfplanes {
            let mut out = Vec::new();
            for i in 0..poly.len() {
                let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
                let (da, db) = (n.dot(a) - d, n.dot(b) - d);
                if da >= 0.0 {
                    out.push(a);
                }
                if (da >= 0.0) != (db >= 0.0) {
                    out.push(a + (b - a) * (da / (da - db)));
                }
            }
            poly = out;
        }
        let mut area = 0.0;
        for i in 0..poly.len() {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            area += a.x * b.y - b.x * a.y;
        }
        area.abs() * 0.5
    }

    /// The 8 clip distances of a clip-space position: non-negative inside. The vertex shader
    /// computes exactly this (`x − xmin·w`, `xmax·w − x`, …), so a triangle is clipped to the
    /// octagon by the rasterizer.
    pub fn clip_distances(&self, clip: Vec4) -> [f32; 8] {
        let a = [clip.x, clip.y, clip.x + clip.y, clip.x - clip.y];
        let w = clip.w;
        let mut d = [0.0; 8];
        for i in 0..4 {
            d[2 * i] = a[i] - self.min[i] * w;
            d[2 * i + 1] = self.max[i] * w - a[i];
        }
        d
    }

    /// Whether a convex polygon given in clip space (reverse-Z: in front of the near plane
    /// where z ≤ w) has a part in front of the near plane inside the octagon: the polygon
    /// clipped by the near plane and the octagon's 8 planes is not empty. Exact, where the
    /// octagon of the projected corners is only a bound; polygons of more than
    /// `MAX_CLIPPED - 9` corners are passed (conservatively).
    pub fn meets_clip_polygon(&self, polygon: &[Vec4]) -> bool {
        if polygon.len() + 9 > MAX_CLIPPED {
            return true;
        }
        // Per corner, the planes it lies outside: a corner inside all of them accepts at once
        // (the usual case), a plane every corner lies outside rejects, and only the planes
        // some corner lies outside need clipping.
        let (mut all_outside, mut any_outside) = (u16::MAX, 0u16);
        for &p in polygon {
            let outside = self.planes_outside(p);
            if outside == 0 {
                return true;
            }
            all_outside &= outside;
            any_outside |= outside;
        }
        if all_outside != 0 {
            return false;
        }
        let cutting: [bool; 9] = std::array::from_fn(|plane| any_outside & (1 << plane) != 0);
        let mut buffers = [[Vec4::ZERO; MAX_CLIPPED]; 2];
        let (a, b) = buffers.split_at_mut(1);
        let (mut from, mut to) = (&mut a[0], &mut b[0]);
        from[..polygon.len()].copy_from_slice(polygon);
        let mut n = polygon.len();
        for plane in (0..9).filter(|&p| cutting[p]) {
            n = clip_polygon(&from[..n], to, |p| self.plane_distance(plane, p));
            if n == 0 {
                return false;
            }
            std::mem::swap(&mut from, &mut to);
        }
        true
    }

    /// The planes of `meets_clip_polygon` a clip-space point lies outside, bit `k` for plane
    /// `k`: the signs of `plane_distance`, worked out alike four planes at a time.
    #[inline]
    fn planes_outside(&self, p: Vec4) -> u16 {
        let (lo, hi) = self.bounds();
        let a = Vec4::new(p.x, p.y, p.x + p.y, p.x - p.y);
        let tolerance = Vec4::splat(1e-5 * p.w.abs());
        let below = (a - lo * p.w + tolerance).cmplt(Vec4::ZERO).bitmask();
        let above = (hi * p.w - a + tolerance).cmplt(Vec4::ZERO).bitmask();
        // Planes 2i (the minima) and 2i + 1 (the maxima) of axis i.
        let spread = |m: u32| (m & 1) | (m & 2) << 1 | (m & 4) << 2 | (m & 8) << 3;
        let near = u32::from(self.plane_distance(8, p) < 0.0) << 8;
        (spread(below) | spread(above) << 1 | near) as u16
    }

    /// Signed distance of a clip-space point from plane `k` of `meets_clip_polygon`: the
    /// octagon's 8 (`clip_distances` order, with a small tolerance so polygons touching an
    /// edge are kept), then the near plane.
    #[inline]
    fn plane_distance(&self, k: usize, p: Vec4) -> f32 {
        if k == 8 {
            // A little beyond the near plane counts as in front: a wall exactly at the near
            // distance, square to the view, is drawn by the GPU or not by rounding (e2m2, an
            // eye 4 units before a wall), and drawing what the GPU then clips costs nothing.
            return p.w - p.z + 1e-3 * p.w.abs();
        }
        let i = k / 2;
        let a = [p.x, p.y, p.x + p.y, p.x - p.y][i];
        let d = if k % 2 == 0 {
            a - self.min[i] * p.w
        } else {
            self.max[i] * p.w - a
        };
        d + 1e-5 * p.w.abs()
    }
}

/// Corners a polygon clipped by `Octagon::meets_clip_polygon` may hold.
pub const MAX_CLIPPED: usize = 72;

/// Sutherland–Hodgman: the part of `poly` where `dist ≥ 0`, written to `out`; its length.
pub fn clip_polygon(
    poly: &[Vec4],
    out: &mut [Vec4; MAX_CLIPPED],
    dist: impl Fn(Vec4) -> f32,
) -> usize {
    let mut n = 0;
    for i in 0..poly.len() {
        let (p, q) = (poly[i], poly[(i + 1) % poly.len()]);
        let (dp, dq) = (dist(p), dist(q));
        if dp >= 0.0 && n < MAX_CLIPPED {
            out[n] = p;
            n += 1;
        }
        if (dp >= 0.0) != (dq >= 0.0) && n < MAX_CLIPPED {
            out[n] = p + (q - p) * (dp / (dp - dq));
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: &mut u64) -> f32 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    /// The planes a point lies outside, four at a time, are those whose distance, one at a
    /// time, is negative: random octagons and clip-space points, some on the planes.
    #[test]
    fn planes_outside_match_each_plane_distance() {
        let mut s = 3;
        for _ in 0..300 {
            let o = Octagon::from_points((0..3).map(|_| Vec2::new(rng(&mut s), rng(&mut s))));
            for k in 0..40 {
                let w = 0.1 + rng(&mut s).abs() * 3.0;
                let mut p = Vec4::new(rng(&mut s), rng(&mut s), rng(&mut s), w) * 1.5;
                if k % 4 == 0 {
                    // On the plane of the minimum of x: the tolerance decides.
                    p.x = o.min[0] * p.w;
                }
                let one_by_one = (0..9).fold(0u16, |m, plane| {
                    m | u16::from(o.plane_distance(plane, p) < 0.0) << plane
                });
                assert_eq!(o.planes_outside(p), one_by_one, "{o:?} {p}");
            }
        }
    }

    #[test]
    fn from_points_bounds_every_point_tightly() {
        let mut s = 7;
        for _ in 0..200 {
            let pts: Vec<Vec2> = (0..6)
                .map(|_| Vec2::new(rng(&mut s), rng(&mut s)))
                .collect();
            let o = Octagon::from_points(pts.iter().copied());
            for p in &pts {
                assert!(o.contains(*p));
            }
            // Brute force: each bound is attained by some point.
            for i in 0..4 {
                let vals: Vec<f32> = pts.iter().map(|p| Octagon::axes(*p)[i]).collect();
                assert_eq!(o.min[i], vals.iter().copied().fold(f32::MAX, f32::min));
                assert_eq!(o.max[i], vals.iter().copied().fold(f32::MIN, f32::max));
            }
        }
    }

    #[test]
    fn intersect_union_and_emptiness_match_point_sampling() {
        let mut s = 99;
        for _ in 0..300 {
            let a = Octagon::from_points((0..3).map(|_| Vec2::new(rng(&mut s), rng(&mut s))));
            let b = Octagon::from_points((0..3).map(|_| Vec2::new(rng(&mut s), rng(&mut s))));
            let i = a.intersect(&b);
            let u = a.union(&b);
            let mut any_in_both = false;
            for _ in 0..400 {
                let p = Vec2::new(rng(&mut s), rng(&mut s));
                let (ina, inb) = (a.contains(p), b.contains(p));
                assert_eq!(i.contains(p), ina && inb);
                if ina || inb {
                    assert!(u.contains(p));
                }
                any_in_both |= ina && inb;
            }
            // A non-empty sample means the intersection cannot be empty.
            if any_in_both {
                assert!(!i.is_empty());
            }
        }
    }

    #[test]
    fn diagonal_bounds_can_make_an_octagon_empty() {
        // Box [0,1]² but x+y >= 3: no point satisfies this.
        let o = Octagon {
            min: [0.0, 0.0, 3.0, -2.0],
            max: [1.0, 1.0, 4.0, 2.0],
        };
        assert!(o.is_empty());
        assert!(!Octagon::FULL.is_empty());
        assert!(Octagon::EMPTY.is_empty());
        assert!((Octagon::FULL.area() - 4.0).abs() < 1e-5);
        // A diamond |x|+|y| <= 1 has area 2.
        let d = Octagon {
            min: [-1.0, -1.0, -1.0, -1.0],
            max: [1.0, 1.0, 1.0, 1.0],
        };
        assert!((d.area() - 2.0).abs() < 1e-5);
    }

    #[test]
    fn clip_distances_are_nonnegative_exactly_inside() {
        let mut s = 3;
        let o = Octagon {
            min: [-0.5, -0.7, -0.9, -0.4],
            max: [0.6, 0.3, 0.5, 0.8],
        };
        for _ in 0..1000 {
            let w = 0.5 + rng(&mut s).abs() * 10.0;
            let ndc = Vec2::new(rng(&mut s), rng(&mut s));
            let clip = Vec4::new(ndc.x * w, ndc.y * w, 0.3, w);
            let inside = o.clip_distances(clip).iter().all(|d| *d >= 0.0);
            assert_eq!(inside, o.contains(ndc));
        }
    }

    /// A point of the triangle `t` (clip space) by barycentric weights.
    fn at(t: &[Vec4; 3], a: f32, b: f32) -> Vec4 {
        t[0] * (1.0 - a - b) + t[1] * a + t[2] * b
    }

    /// Brute force: a dense barycentric sampling of the triangle finds a point in front of
    /// the near plane and inside the octagon.
    fn sampled_inside(o: &Octagon, t: &[Vec4; 3]) -> bool {
        let n = 60;
        (0..=n).any(|i| {
            (0..=n - i).any(|j| {
                let p = at(t, i as f32 / n as f32, j as f32 / n as f32);
                p.w > 0.0 && p.z <= p.w && o.contains(Vec2::new(p.x, p.y) / p.w)
            })
        })
    }

    #[test]
    fn a_clip_space_polygon_meets_the_octagon_exactly_where_sampling_finds_it() {
        let mut s = 5;
        let (mut agree_true, mut said_true) = (0, 0);
        for _ in 0..600 {
            let o = Octagon::from_points((0..4).map(|_| Vec2::new(rng(&mut s), rng(&mut s))));
            // Triangles in view space mapped to clip space like the camera's reverse-Z
            // projection (z = near, w = depth): some cross the near plane or lie behind it.
            let t: [Vec4; 3] = std::array::from_fn(|_| {
                let depth = rng(&mut s) * 4.0 + 1.5;
                Vec4::new(rng(&mut s) * 3.0, rng(&mut s) * 3.0, 0.1, depth)
            });
            let exact = o.meets_clip_polygon(&t);
            let sampled = sampled_inside(&o, &t);
            // Conservative: every sampled hit is found.
            assert!(exact || !sampled, "missed {t:?} in {o:?}");
            said_true += exact as u32;
            agree_true += (exact && sampled) as u32;
        }
        // Tight: almost every polygon it keeps really reaches inside (sampling misses only
        // slivers).
        assert!(said_true > 100, "{said_true}");
        assert!(
            agree_true as f32 >= 0.97 * said_true as f32,
            "{agree_true}/{said_true}"
        );
    }

    #[test]
    fn a_polygon_behind_the_near_plane_or_beside_the_octagon_is_outside() {
        let o = Octagon::FULL;
        let square = |x: f32, w: f32, z: f32| {
            [
                Vec4::new(x - 0.1, -0.1, z, w),
                Vec4::new(x + 0.1, -0.1, z, w),
                Vec4::new(x + 0.1, 0.1, z, w),
                Vec4::new(x - 0.1, 0.1, z, w),
            ]
        };
        assert!(o.meets_clip_polygon(&square(0.0, 1.0, 0.1)));
        assert!(
            !o.meets_clip_polygon(&square(3.0, 1.0, 0.1)),
            "right of the screen"
        );
        assert!(
            !o.meets_clip_polygon(&square(0.0, -1.0, 0.1)),
            "behind the eye"
        );
    }
}
