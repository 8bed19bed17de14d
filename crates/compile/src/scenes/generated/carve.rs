//! The world's solid from its open space: every open box gets a shell of walls `T` thick
//! around it, and every open box is cut out of every shell. Whatever the boxes (overlapping,
//! touching, one through another's wall), the solid then wraps all the open space at least `T`
//! thick, so the level is sealed by construction.

use std::collections::HashSet;

/// A point in map units.
pub(super) type P3 = [i32; 3];

/// An axial box in map units, `min < max` on every axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Box3 {
    pub(super) min: P3,
    pub(super) max: P3,
}

impl Box3 {
    pub(super) fn new(min: P3, max: P3) -> Box3 {
        debug_assert!((0..3).all(|a| min[a] < max[a]), "{min:?} {max:?}");
        Box3 { min, max }
    }

    /// Whether the two share a volume (touching is not overlapping).
    pub(super) fn overlaps(&self, o: &Box3) -> bool {
        (0..3).all(|a| self.min[a] < o.max[a] && o.min[a] < self.max[a])
    }

    pub(super) fn size(&self, axis: usize) -> i32 {
        self.max[axis] - self.min[axis]
    }

    pub(super) fn centre(&self) -> P3 {
        [0, 1, 2].map(|a| (self.min[a] + self.max[a]) / 2)
    }
}

/// An open box; its shell takes its theme, its top is sky where `sky`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Air {
    pub(super) b: Box3,
    pub(super) theme: usize,
    pub(super) sky: bool,
}

/// A solid piece of some open box's shell.
pub(super) struct Solid {
    pub(super) b: Box3,
    pub(super) theme: usize,
    pub(super) sky: bool,
}

/// The solid pieces around `air`, `t` thick (identical pieces once).
pub(super) fn carve(air: &[Air], t: i32) -> Vec<Solid> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for a in air {
        for (slab, sky) in shell(&a.b, t, a.sky) {
            for b in subtract_all(slab, air) {
                if seen.insert(b) {
                    out.push(Solid {
                        b,
                        theme: a.theme,
                        sky,
                    });
                }
            }
        }
    }
    out
}

/// The six slabs of `b` grown by `t` less `b`: floor and roof span the whole grown box, the
/// walls between them; the roof is sky where `sky`.
fn shell(b: &Box3, t: i32, sky: bool) -> [(Box3, bool); 6] {
    let (lo, hi) = (b.min, b.max);
    let g =
        |x: [i32; 2], y: [i32; 2], z: [i32; 2]| Box3::new([x[0], y[0], z[0]], [x[1], y[1], z[1]]);
    let (gx, gy) = ([lo[0] - t, hi[0] + t], [lo[1] - t, hi[1] + t]);
    [
        (g(gx, gy, [lo[2] - t, lo[2]]), false),
        (g(gx, gy, [hi[2], hi[2] + t]), sky),
        (g([lo[0] - t, lo[0]], gy, [lo[2], hi[2]]), false),
        (g([hi[0], hi[0] + t], gy, [lo[2], hi[2]]), false),
        (g([lo[0], hi[0]], [lo[1] - t, lo[1]], [lo[2], hi[2]]), false),
        (g([lo[0], hi[0]], [hi[1], hi[1] + t], [lo[2], hi[2]]), false),
    ]
}

fn subtract_all(slab: Box3, air: &[Air]) -> Vec<Box3> {
    let mut pieces = vec![slab];
    for h in air.iter().filter(|h| h.b.overlaps(&slab)) {
        pieces = pieces.into_iter().flat_map(|p| subtract(p, &h.b)).collect();
    }
    pieces
}

/// `p` less `h`: at most six boxes.
pub(super) fn subtract(mut p: Box3, h: &Box3) -> Vec<Box3> {
    if !p.overlaps(h) {
        return vec![p];
    }
    let mut out = Vec::new();
    for a in 0..3 {
        if p.min[a] < h.min[a] {
            let mut piece = p;
            piece.max[a] = h.min[a];
            out.push(piece);
            p.min[a] = h.min[a];
        }
        if p.max[a] > h.max[a] {
            let mut piece = p;
            piece.min[a] = h.max[a];
            out.push(piece);
            p.max[a] = h.max[a];
        }
    }
    out
}
