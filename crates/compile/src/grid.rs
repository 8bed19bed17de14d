//! A hierarchy of uniform grids over boxes: candidate pairs for overlap tests, for both
//! compilers' CSG.
//!
//! A box goes into the finest level where it touches at most 16 cells (2 × 2 × 2 for a cube
//! whatever its size; a long sliver at a finer level than its length alone would give): memory
//! is bounded by the number of boxes, never by the coordinate range (one grid of fixed 256-unit cells spent 2.4 GB on a
//! single ±65536 brush). A query walks each level's cells over its box, or, when the box spans
//! more cells than the level holds, the level's occupied cells instead: its cost is bounded by
//! the boxes stored too.

use std::collections::HashMap;

use glam::{DVec3, IVec3};

/// Levels of cell sizes `base · 2^k`; with a base of at least `MIN_BASE` the last is far beyond any
/// coordinate a source may hold (±65536), and larger boxes (non-finite or absurd) share it.
const LEVELS: usize = 26;
/// The most cells one box is stored in.
const MAX_CELLS: f64 = 16.0;
/// The smallest base cell the compilers use (the scene CSG's many small fragments).
const MIN_BASE: u64 = 64;
const _: () = assert!(MIN_BASE << (LEVELS - 1) >= 2 << 30);

/// Cell keys hashed by one multiply-rotate per coordinate: the default SipHash cost more
/// than the rest of a query. The keys come from bounded coordinates; a collision only makes
/// a longer list.
#[derive(Default, Clone, Copy)]
struct CellHasher(u64);

impl std::hash::Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_i32(&mut self, v: i32) {
        self.write_u64(u64::from(v as u32));
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

type CellMap = HashMap<(i32, i32, i32), Vec<u32>, std::hash::BuildHasherDefault<CellHasher>>;

pub(super) struct Grid {
    base: f64,
    levels: Vec<CellMap>,
    /// Each id's box as inserted (ids are dense: slot indices), for the exact overlap test
    /// that keeps a query's answer short where cells hold many small boxes.
    boxes: Vec<Option<(DVec3, DVec3)>>,
}

impl Grid {
    pub(super) fn new(base: f64) -> Grid {
        assert!(base >= MIN_BASE as f64, "the levels must reach ±2^30");
        Grid {
            base,
            levels: (0..LEVELS).map(|_| CellMap::default()).collect(),
            boxes: Vec::new(),
        }
    }

    fn cell_size(&self, level: usize) -> f64 {
        self.base * (1u64 << level) as f64
    }

    /// The finest level at which the box covers at most `MAX_CELLS` cells. A cube lands where
    /// the cells are about its size (2 × 2 × 2); a long thin box lands finer than its length
    /// alone would put it, so slivers do not crowd the few cells of a coarse level (where
    /// every query would scan them all).
    fn level_for(&self, min: DVec3, max: DVec3) -> usize {
        (0..LEVELS)
            .find(|&k| {
                let (lo, hi) = self.range(k, min, max);
                let span = (hi - lo + IVec3::ONE).as_dvec3();
                span.x * span.y * span.z <= MAX_CELLS
            })
            .unwrap_or(LEVELS - 1)
    }

    /// The cells a box covers at `level`.
    fn range(&self, level: usize, min: DVec3, max: DVec3) -> (IVec3, IVec3) {
        let c = self.cell_size(level);
        ((min / c).floor().as_ivec3(), (max / c).floor().as_ivec3())
    }

    pub(super) fn insert(&mut self, id: u32, min: DVec3, max: DVec3) {
        let (min, max) = (clamp(min), clamp(max));
        let slot = id as usize;
        if self.boxes.len() <= slot {
            self.boxes.resize(slot + 1, None);
        }
        self.boxes[slot] = Some((min, max));
        let level = self.level_for(min, max);
        let (lo, hi) = self.range(level, min, max);
        let map = &mut self.levels[level];
        for x in lo.x..=hi.x {
            for y in lo.y..=hi.y {
                for z in lo.z..=hi.z {
                    map.entry((x, y, z)).or_default().push(id);
                }
            }
        }
    }

    /// Takes `id` out again, so that the queries of a grid whose boxes are replaced as they
    /// are cut do not wade through dead ids.
    pub(super) fn remove(&mut self, id: u32) {
        let Some((min, max)) = self.boxes.get_mut(id as usize).and_then(Option::take) else {
            return;
        };
        let level = self.level_for(min, max);
        let (lo, hi) = self.range(level, min, max);
        let map = &mut self.levels[level];
        for x in lo.x..=hi.x {
            for y in lo.y..=hi.y {
                for z in lo.z..=hi.z {
                    if let Some(v) = map.get_mut(&(x, y, z)) {
                        v.retain(|&i| i != id);
                        if v.is_empty() {
                            map.remove(&(x, y, z));
                        }
                    }
                }
            }
        }
    }

    /// Ids whose boxes overlap the box (touching counts), sorted and unique.
    pub(super) fn query(&self, min: DVec3, max: DVec3, out: &mut Vec<u32>) {
        out.clear();
        let (min, max) = (clamp(min), clamp(max));
        for (level, map) in self.levels.iter().enumerate() {
            if map.is_empty() {
                continue;
            }
            let (lo, hi) = self.range(level, min, max);
            let span = (hi - lo + IVec3::ONE).as_dvec3();
            if span.x * span.y * span.z <= map.len() as f64 {
                for x in lo.x..=hi.x {
                    for y in lo.y..=hi.y {
                        for z in lo.z..=hi.z {
                            if let Some(v) = map.get(&(x, y, z)) {
                                self.push_overlapping(v, min, max, out);
                            }
                        }
                    }
                }
            } else {
                let inside = |&(x, y, z): &(i32, i32, i32)| {
                    (lo.x..=hi.x).contains(&x)
                        && (lo.y..=hi.y).contains(&y)
                        && (lo.z..=hi.z).contains(&z)
                };
                for (_, v) in map.iter().filter(|(k, _)| inside(k)) {
                    self.push_overlapping(v, min, max, out);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    fn push_overlapping(&self, ids: &[u32], min: DVec3, max: DVec3, out: &mut Vec<u32>) {
        for &id in ids {
            if let Some((bmin, bmax)) = self.boxes[id as usize] {
                if (0..3).all(|k| bmin[k] <= max[k] && bmax[k] >= min[k]) {
                    out.push(id);
                }
            }
        }
    }

    #[cfg(test)]
    fn stored(&self) -> usize {
        self.levels
            .iter()
            .flat_map(|m| m.values())
            .map(Vec::len)
            .sum()
    }
}

/// Coordinates within ±2^30, half the top level's cell (NaN becomes 0), so that any box lies
/// in 2 cells per axis of the top level. Sources refuse coordinates beyond ±65536 before they
/// get here; this only keeps absurd input from costing more than its share.
fn clamp(v: DVec3) -> DVec3 {
    const LIM: f64 = (1u64 << 30) as f64;
    let c = |x: f64| if x.is_nan() { 0.0 } else { x.clamp(-LIM, LIM) };
    DVec3::new(c(v.x), c(v.y), c(v.z))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against brute force: the query returns every box that overlaps (a superset is fine,
    /// a miss is not), and each box is stored in at most 16 cells.
    #[test]
    fn queries_find_every_overlap_and_storage_is_bounded() {
        let mut s = 7u64;
        let mut rnd = move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut boxes = Vec::new();
        let mut grid = Grid::new(256.0);
        for i in 0..400 {
            let size = 10f64.powf(rnd() * 5.0); // 1 to 100,000 units
            let c = DVec3::new(rnd(), rnd(), rnd()) * 131072.0 - DVec3::splat(65536.0);
            let (min, max) = (c, c + DVec3::new(rnd(), rnd(), rnd()) * size);
            grid.insert(i, min, max);
            boxes.push((min, max));
        }
        assert!(grid.stored() <= 16 * boxes.len());
        let mut out = Vec::new();
        for (a, &(min, max)) in boxes.iter().enumerate() {
            grid.query(min, max, &mut out);
            for (b, &(bmin, bmax)) in boxes.iter().enumerate() {
                let overlap = (0..3).all(|k| bmin[k] <= max[k] && bmax[k] >= min[k]);
                if overlap {
                    assert!(out.contains(&(b as u32)), "box {a} misses {b}");
                }
            }
        }
    }

    /// One box as large as a source may hold (±65536) costs a few cells, not millions.
    #[test]
    fn a_huge_box_takes_a_few_cells() {
        let mut grid = Grid::new(256.0);
        grid.insert(0, DVec3::splat(-65536.0), DVec3::splat(65536.0));
        grid.insert(1, DVec3::splat(-1e300), DVec3::splat(f64::INFINITY));
        assert!(grid.stored() <= 32);
        let mut out = Vec::new();
        grid.query(DVec3::splat(-65536.0), DVec3::splat(65536.0), &mut out);
        assert_eq!(out, [0, 1]);
    }
}
