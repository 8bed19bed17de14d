//! A bounding-volume hierarchy over triangles for shadow rays: "does anything block the
//! segment from a luxel to a light?" Built once per bake with the surface area heuristic over
//! 16 centroid bins per axis, traversed with a small stack; any hit ends the query.
//!
//! Ours rather than a crate's: it answered the bake's queries faster than `obvhs` and `bvh`,
//! with no dependencies, and all three agree on every segment (the measurement is in
//! docs/formats.md, "Light").

use glam::Vec3;

/// A triangle as its first corner and two edges (what the Möller–Trumbore test wants).
#[derive(Clone, Copy, Debug)]
pub(super) struct Triangle {
    pub a: Vec3,
    pub e1: Vec3,
    pub e2: Vec3,
}

impl Triangle {
    pub(super) fn new(a: Vec3, b: Vec3, c: Vec3) -> Triangle {
        Triangle {
            a,
            e1: b - a,
            e2: c - a,
        }
    }

    fn bounds(&self) -> (Vec3, Vec3) {
        let (b, c) = (self.a + self.e1, self.a + self.e2);
        (self.a.min(b).min(c), self.a.max(b).max(c))
    }

    /// Does the open segment `o → o + d` cross the triangle (ends excluded by a hair of 0.01
    /// units, so a luxel on a surface is not shadowed by that surface)?
    pub(super) fn hits_segment(&self, o: Vec3, d: Vec3) -> bool {
        let p = d.cross(self.e2);
        let det = self.e1.dot(p);
        if det.abs() < 1e-9 {
            return false;
        }
        let inv = 1.0 / det;
        let s = o - self.a;
        let u = s.dot(p) * inv;
        if !(0.0..=1.0).contains(&u) {
            return false;
        }
        let q = s.cross(self.e1);
        let v = d.dot(q) * inv;
        if v < 0.0 || u + v > 1.0 {
            return false;
        }
        let t = self.e2.dot(q) * inv;
        // The hair is a length (0.01 units), not a share of the segment: a sun ray is 65536
        // units long, and a share would let it through a wall within a few units of the luxel.
        let hair = 0.01 / d.length().max(1e-6);
        t > hair && t < 1.0 - hair
    }
}

#[derive(Clone, Copy, Debug)]
struct Node {
    min: Vec3,
    max: Vec3,
    /// Leaf: first triangle and count (`count > 0`); inner: `first` is the right child (the
    /// left child is the next node).
    first: u32,
    count: u32,
}

pub(super) struct Bvh {
    nodes: Vec<Node>,
    tris: Vec<Triangle>,
}

const LEAF_SIZE: usize = 4;

impl Bvh {
    pub(super) fn new(mut tris: Vec<Triangle>) -> Bvh {
        let mut nodes = Vec::with_capacity(tris.len() / LEAF_SIZE * 2 + 1);
        if !tris.is_empty() {
            let n = tris.len();
            build(&mut nodes, &mut tris, 0, n);
        }
        Bvh { nodes, tris }
    }

    /// Whether any triangle crosses the segment `o → o + d`.
    pub(super) fn occluded(&self, o: Vec3, d: Vec3) -> bool {
        if self.nodes.is_empty() {
            return false;
        }
        let inv = d.recip();
        let mut stack = [0u32; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let index = stack[top];
            let node = &self.nodes[index as usize];
            if !segment_meets_box(o, inv, node.min, node.max) {
                continue;
            }
            if node.count > 0 {
                let tris = &self.tris[node.first as usize..(node.first + node.count) as usize];
                if tris.iter().any(|t| t.hits_segment(o, d)) {
                    return true;
                }
            } else if top + 2 <= stack.len() {
                stack[top] = node.first;
                stack[top + 1] = index + 1; // the left child follows its parent
                top += 2;
            } else {
                // Deeper than the stack (degenerate input): test the subtree by brute force.
                return self.tris.iter().any(|t| t.hits_segment(o, d));
            }
        }
        false
    }
}

/// Slab test of the segment `o + t·d`, `t ∈ [0, 1]`, against a box (`inv` = 1/d per axis).
fn segment_meets_box(o: Vec3, inv: Vec3, min: Vec3, max: Vec3) -> bool {
    let t0 = (min - o) * inv;
    let t1 = (max - o) * inv;
    // NaN (0 · ∞ for a segment lying in a slab plane) is dropped by min/max: conservative.
    let near = t0.min(t1).max_element().max(0.0);
    let far = t0.max(t1).min_element().min(1.0);
    near <= far + 1e-6
}

/// Centroid bins per axis the surface area heuristic weighs splits at.
const BINS: usize = 16;

/// Half the surface area of a box (what the heuristic compares).
fn half_area(min: Vec3, max: Vec3) -> f32 {
    let e = (max - min).max(Vec3::ZERO);
    e.x * e.y + e.y * e.z + e.z * e.x
}

/// Where triangles' centroids fall into bins along one axis.
#[derive(Clone, Copy)]
struct Bins {
    axis: usize,
    start: f32,
    scale: f32,
}

impl Bins {
    fn of(&self, t: &Triangle) -> usize {
        let (a, b) = t.bounds();
        let c = (a[self.axis] + b[self.axis]) * 0.5;
        (((c - self.start) * self.scale) as usize).min(BINS - 1)
    }
}

/// The cheapest split of `tris` by the surface area heuristic: triangles in bins below the
/// returned bin go left. `None` where no axis has extent.
fn best_split(tris: &[Triangle], cmin: Vec3, extent: Vec3) -> Option<(f32, Bins, usize)> {
    let mut best: Option<(f32, Bins, usize)> = None;
    for axis in (0..3).filter(|&a| extent[a] > 0.0) {
        let bins = Bins {
            axis,
            start: cmin[axis],
            scale: BINS as f32 / extent[axis],
        };
        let mut boxes = [(Vec3::splat(f32::MAX), Vec3::splat(f32::MIN), 0usize); BINS];
        for t in tris {
            let (a, b) = t.bounds();
            let slot = &mut boxes[bins.of(t)];
            *slot = (slot.0.min(a), slot.1.max(b), slot.2 + 1);
        }
        // Right side of each boundary, swept from the top; then the left side from the bottom.
        let mut right = [(0.0f32, 0usize); BINS];
        let (mut min, mut max, mut n) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN), 0);
        for k in (1..BINS).rev() {
            (min, max, n) = (min.min(boxes[k].0), max.max(boxes[k].1), n + boxes[k].2);
            right[k] = (half_area(min, max), n);
        }
        let (mut min, mut max, mut n) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN), 0);
        for k in 1..BINS {
            let b = boxes[k - 1];
            (min, max, n) = (min.min(b.0), max.max(b.1), n + b.2);
            if n == 0 || right[k].1 == 0 {
                continue;
            }
            let cost = half_area(min, max) * n as f32 + right[k].0 * right[k].1 as f32;
            if best.is_none_or(|(c, _, _)| cost < c) {
                best = Some((cost, bins, k));
            }
        }
    }
    best
}

fn build(nodes: &mut Vec<Node>, tris: &mut [Triangle], first: usize, count: usize) -> u32 {
    let slice = &mut tris[first..first + count];
    let (mut min, mut max) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    let (mut cmin, mut cmax) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for t in slice.iter() {
        let (a, b) = t.bounds();
        min = min.min(a);
        max = max.max(b);
        let c = (a + b) * 0.5;
        cmin = cmin.min(c);
        cmax = cmax.max(c);
    }
    let id = nodes.len() as u32;
    nodes.push(Node {
        min,
        max,
        first: first as u32,
        count: count as u32,
    });
    if count <= 2 {
        return id;
    }
    let Some((cost, bins, split)) = best_split(slice, cmin, cmax - cmin) else {
        return id;
    };
    // A small node stays a leaf where splitting costs more than testing its triangles (a
    // traversal step counted as one triangle test).
    let area = half_area(min, max);
    if count <= LEAF_SIZE && cost + area >= area * count as f32 {
        return id;
    }
    let (mut mid, mut end) = (0, slice.len());
    while mid < end {
        if bins.of(&slice[mid]) < split {
            mid += 1;
        } else {
            end -= 1;
            slice.swap(mid, end);
        }
    }
    build(nodes, tris, first, mid);
    let right = build(nodes, tris, first + mid, count - mid);
    nodes[id as usize].first = right;
    nodes[id as usize].count = 0;
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Any-hit through the hierarchy equals testing every triangle (brute force), on random
    /// triangle soups and random segments, including segments along axes (zero components).
    #[test]
    fn bvh_occlusion_equals_brute_force() {
        let mut s = 0x1234_5678_u64;
        let mut rnd = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f32 / (1u64 << 53) as f32
        };
        for soup in 0..6 {
            let n = [1, 3, 50, 400, 2000, 5000][soup];
            let mut tris = Vec::new();
            for _ in 0..n {
                let c = Vec3::new(rnd(), rnd(), rnd()) * 1000.0;
                let e = |r: &mut dyn FnMut() -> f32| (Vec3::new(r(), r(), r()) - 0.5) * 80.0;
                tris.push(Triangle::new(c, c + e(&mut rnd), c + e(&mut rnd)));
            }
            let bvh = Bvh::new(tris.clone());
            let (mut hits, mut misses) = (0, 0);
            for k in 0..3000 {
                let o = Vec3::new(rnd(), rnd(), rnd()) * 1000.0;
                let mut d = (Vec3::new(rnd(), rnd(), rnd()) - 0.5) * 600.0;
                if k % 3 == 0 {
                    d.x = 0.0;
                }
                if k % 5 == 0 {
                    d.y = 0.0;
                    d.z = 0.0;
                }
                let want = tris.iter().any(|t| t.hits_segment(o, d));
                assert_eq!(
                    bvh.occluded(o, d),
                    want,
                    "soup {soup} segment {k}: {o} + {d}"
                );
                if want {
                    hits += 1;
                } else {
                    misses += 1;
                }
            }
            if n >= 400 {
                assert!(hits > 50 && misses > 50, "{hits} hits, {misses} misses");
            }
        }
        assert!(!Bvh::new(Vec::new()).occluded(Vec3::ZERO, Vec3::ONE));
    }

    /// Degenerate soups build and answer as brute force does: 300 copies of one triangle (no
    /// centroid extent: one leaf) and a floor of coplanar triangles (no extent in z).
    #[test]
    fn degenerate_soups_equal_brute_force() {
        let one = Triangle::new(
            Vec3::ZERO,
            Vec3::new(64.0, 0.0, 0.0),
            Vec3::new(0.0, 64.0, 0.0),
        );
        let copies = vec![one; 300];
        let floor: Vec<Triangle> = (0..40 * 40)
            .map(|k| {
                let c = Vec3::new((k % 40) as f32 * 16.0, (k / 40) as f32 * 16.0, 0.0);
                Triangle::new(
                    c,
                    c + Vec3::new(16.0, 0.0, 0.0),
                    c + Vec3::new(0.0, 16.0, 0.0),
                )
            })
            .collect();
        for tris in [copies, floor] {
            let bvh = Bvh::new(tris.clone());
            for (x, y) in [
                (5.0, 5.0),
                (30.0, 2.0),
                (200.0, 330.0),
                (700.0, 9.0),
                (-4.0, 3.0),
            ] {
                let (o, d) = (Vec3::new(x, y, 50.0), Vec3::new(0.5, -0.25, -100.0));
                let want = tris.iter().any(|t| t.hits_segment(o, d));
                assert_eq!(bvh.occluded(o, d), want, "at ({x}, {y})");
            }
        }
    }
}
