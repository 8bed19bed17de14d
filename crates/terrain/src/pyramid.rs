//! Min/max height pyramid for tile bounds (frustum culling with real heights).
//!
//! Level `p` of the pyramid holds, for each block of `LEAF << p` × `LEAF << p` samples, the
//! minimum and maximum height (world units). A query over any sample rectangle picks the level
//! whose blocks are at least as large as the rectangle and combines the ≤ 2×2 blocks covering
//! it, so it is conservative and O(1).
//!
//! Stored grids (PNG, raw) build the whole pyramid once (one pass over the samples).
//! Procedural sources are unbounded: blocks are computed on demand and cached in a hash map,
//! from the noise's analytic bound (O(octaves), no samples visited) — or exactly, from their
//! samples via their children, up to `exact_side` samples per side (0 by default: an exact
//! 64² block costs thousands of noise evaluations, too slow for a camera that keeps reaching new
//! ground). Memory and time never depend on the source size.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::Heightmap;

/// Samples per side of a level-0 block.
pub const LEAF: i64 = 16;

/// A quick hasher for the pyramid's block keys (small integers: no need for SipHash).
#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

impl Hasher for FastHasher {
    #[inline]
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^= h >> 33;
        h
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01B3);
        }
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(23) ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    #[inline]
    fn write_i64(&mut self, v: i64) {
        self.write_u64(v as u64)
    }
    #[inline]
    fn write_u8(&mut self, v: u8) {
        self.write_u64(v as u64)
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

struct DenseLevel {
    w: i64,
    h: i64,
    data: Vec<[f32; 2]>,
}

enum Store {
    Dense(Vec<DenseLevel>),
    Lazy(Vec<FastMap<(i64, i64), [f32; 2]>>),
}

/// Pyramid statistics, for the overlay and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PyramidStats {
    /// Blocks held.
    pub cached_blocks: usize,
    /// Blocks computed from their samples.
    pub exact_blocks_computed: u64,
    /// Blocks bounded from the noise's analytic bound.
    pub analytic_blocks_computed: u64,
}

/// The heights' least and greatest over blocks of every size, computed lazily and kept:
/// what culling and shadow tests bound terrain pieces with.
pub struct MinMaxPyramid {
    store: Store,
    /// Source size in samples, and whether x wraps (dense stores only).
    width: i64,
    height: i64,
    wrap_x: bool,
    /// Blocks with at most this many samples per side are exact in lazy stores.
    pub exact_side: i64,
    stats: PyramidStats,
}

const LAZY_LEVELS: usize = 40;

impl MinMaxPyramid {
    /// Build for `hm`: dense and complete for stored grids, empty and lazy for procedural ones.
    pub fn new(hm: &Heightmap) -> Self {
        let (w, h) = hm.size();
        let (w, h) = (w as i64, h as i64);
        if hm.is_procedural() {
            return Self {
                store: Store::Lazy((0..LAZY_LEVELS).map(|_| FastMap::default()).collect()),
                width: w,
                height: h,
                wrap_x: false,
                exact_side: 0,
                stats: PyramidStats::default(),
            };
        }
        // Level 0 from the samples.
        let (bw, bh) = ((w + LEAF - 1) / LEAF, (h + LEAF - 1) / LEAF);
        let mut data = vec![[f32::INFINITY, f32::NEG_INFINITY]; (bw * bh) as usize];
        for y in 0..h {
            let row = (y / LEAF) * bw;
            for x in 0..w {
                let v = hm.sample(x, y);
                let c = &mut data[(row + x / LEAF) as usize];
                c[0] = c[0].min(v);
                c[1] = c[1].max(v);
            }
        }
        let mut levels = vec![DenseLevel { w: bw, h: bh, data }];
        while {
            let l = levels.last().unwrap();
            l.w > 1 || l.h > 1
        } {
            let prev = levels.last().unwrap();
            let (nw, nh) = ((prev.w + 1) / 2, (prev.h + 1) / 2);
            let mut d = vec![[f32::INFINITY, f32::NEG_INFINITY]; (nw * nh) as usize];
            for y in 0..prev.h {
                for x in 0..prev.w {
                    let s = prev.data[(y * prev.w + x) as usize];
                    let c = &mut d[((y / 2) * nw + x / 2) as usize];
                    c[0] = c[0].min(s[0]);
                    c[1] = c[1].max(s[1]);
                }
            }
            levels.push(DenseLevel {
                w: nw,
                h: nh,
                data: d,
            });
        }
        Self {
            store: Store::Dense(levels),
            width: w,
            height: h,
            wrap_x: hm.wrap_x,
            exact_side: i64::MAX,
            stats: PyramidStats::default(),
        }
    }

    /// What it holds and has computed.
    pub fn stats(&self) -> PyramidStats {
        let mut s = self.stats;
        s.cached_blocks = match &self.store {
            Store::Dense(l) => l.iter().map(|l| l.data.len()).sum(),
            Store::Lazy(m) => m.iter().map(|m| m.len()).sum(),
        };
        s
    }

    /// Bytes held by the pyramid (grows with visited area for lazy stores, never with size).
    pub fn memory_bytes(&self) -> usize {
        self.stats().cached_blocks * 8
    }

    /// Min/max of the level-`p` block `(bx, by)` (block covers samples
    /// `[bx·S, bx·S + S − 1]` with `S = LEAF << p`). Exact for dense stores and for lazy blocks
    /// up to `exact_side`; conservative above.
    pub fn block(&mut self, hm: &Heightmap, p: u32, bx: i64, by: i64) -> [f32; 2] {
        match &self.store {
            Store::Dense(levels) => {
                let l = &levels[(p as usize).min(levels.len() - 1)];
                let x = if self.wrap_x {
                    bx.rem_euclid(l.w)
                } else {
                    bx.clamp(0, l.w - 1)
                };
                let y = by.clamp(0, l.h - 1);
                l.data[(y * l.w + x) as usize]
            }
            Store::Lazy(_) => self.lazy_block(hm, p, bx, by),
        }
    }

    fn lazy_block(&mut self, hm: &Heightmap, p: u32, bx: i64, by: i64) -> [f32; 2] {
        let Store::Lazy(maps) = &mut self.store else {
            unreachable!()
        };
        if let Some(v) = maps[p as usize].get(&(bx, by)) {
            return *v;
        }
        let side = LEAF << p;
        let v = if side <= self.exact_side {
            self.stats.exact_blocks_computed += 1;
            if p == 0 {
                let (x0, y0) = (bx * LEAF, by * LEAF);
                let (a, b) = hm.brute_min_max(x0, y0, x0 + LEAF - 1, y0 + LEAF - 1);
                [a, b]
            } else {
                let mut r = [f32::INFINITY, f32::NEG_INFINITY];
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let c = self.lazy_block(hm, p - 1, bx * 2 + dx, by * 2 + dy);
                    r[0] = r[0].min(c[0]);
                    r[1] = r[1].max(c[1]);
                }
                r
            }
        } else {
            self.stats.analytic_blocks_computed += 1;
            let (x0, y0) = (bx * side, by * side);
            let (a, b) = hm
                .analytic_bound(x0, y0, x0 + side - 1, y0 + side - 1)
                .expect("lazy store is procedural");
            [a, b]
        };
        let Store::Lazy(maps) = &mut self.store else {
            unreachable!()
        };
        maps[p as usize].insert((bx, by), v);
        v
    }

    /// Conservative min/max over the inclusive sample rectangle `[x0, x1] × [y0, y1]`.
    pub fn bounds_samples(
        &mut self,
        hm: &Heightmap,
        x0: i64,
        y0: i64,
        x1: i64,
        y1: i64,
    ) -> (f32, f32) {
        let (mut x0, mut y0, mut x1, mut y1) = (x0.min(x1), y0.min(y1), x0.max(x1), y0.max(y1));
        if let Store::Dense(_) = self.store {
            // Clamped samples repeat the edge: clamp the rectangle into the source.
            y0 = y0.clamp(0, self.height - 1);
            y1 = y1.clamp(0, self.height - 1);
            if self.wrap_x {
                if x1 - x0 + 1 >= self.width {
                    x0 = 0;
                    x1 = self.width - 1;
                } else {
                    let s = x0.rem_euclid(self.width);
                    x1 = s + (x1 - x0);
                    x0 = s;
                    if x1 >= self.width {
                        let a = self.bounds_in(hm, x0, y0, self.width - 1, y1);
                        let b = self.bounds_in(hm, 0, y0, x1 - self.width, y1);
                        return (a.0.min(b.0), a.1.max(b.1));
                    }
                }
            } else {
                x0 = x0.clamp(0, self.width - 1);
                x1 = x1.clamp(0, self.width - 1);
            }
        }
        self.bounds_in(hm, x0, y0, x1, y1)
    }

    fn bounds_in(&mut self, hm: &Heightmap, x0: i64, y0: i64, x1: i64, y1: i64) -> (f32, f32) {
        let extent = (x1 - x0 + 1).max(y1 - y0 + 1);
        let mut p = 0u32;
        while (LEAF << p) < extent {
            p += 1;
        }
        match &self.store {
            Store::Dense(levels) => p = p.min(levels.len() as u32 - 1),
            Store::Lazy(_) => {
                if p >= LAZY_LEVELS as u32 {
                    // Larger than any block: the noise's own bound is as good and O(1).
                    let (a, b) = hm
                        .analytic_bound(x0, y0, x1, y1)
                        .expect("lazy store is procedural");
                    return (a, b);
                }
            }
        }
        let side = LEAF << p;
        let (bx0, by0, bx1, by1) = (
            x0.div_euclid(side),
            y0.div_euclid(side),
            x1.div_euclid(side),
            y1.div_euclid(side),
        );
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for by in by0..=by1 {
            for bx in bx0..=bx1 {
                let b = self.block(hm, p, bx, by);
                lo = lo.min(b[0]);
                hi = hi.max(b[1]);
            }
        }
        (lo, hi)
    }

    /// Conservative min/max of the terrain over a world-space xy rectangle (bilinear
    /// interpolation included).
    pub fn bounds_world(&mut self, hm: &Heightmap, min: [f64; 2], max: [f64; 2]) -> (f32, f32) {
        let k = 1.0 / hm.horizontal_scale;
        let x0 = (min[0] * k).floor() as i64;
        let y0 = (min[1] * k).floor() as i64;
        let x1 = (max[0] * k).ceil() as i64;
        let y1 = (max[1] * k).ceil() as i64;
        self.bounds_samples(hm, x0, y0, x1, y1)
    }
}
