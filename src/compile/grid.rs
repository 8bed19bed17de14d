//! A uniform grid over boxes: candidate pairs for overlap tests, for both compilers' CSG.

use std::collections::HashMap;

use glam::DVec3;

/// A uniform grid over boxes: candidates for overlap tests.
pub(super) struct Grid {
    cell: f64,
    map: HashMap<(i32, i32, i32), Vec<u32>>,
}

impl Grid {
    pub(super) fn new(cell: f64) -> Grid {
        Grid {
            cell,
            map: HashMap::new(),
        }
    }

    fn range(&self, min: DVec3, max: DVec3) -> (glam::IVec3, glam::IVec3) {
        let lo = (min / self.cell).floor().as_ivec3();
        let hi = (max / self.cell).floor().as_ivec3();
        (lo, hi)
    }

    pub(super) fn insert(&mut self, id: u32, min: DVec3, max: DVec3) {
        let (lo, hi) = self.range(min, max);
        for x in lo.x..=hi.x {
            for y in lo.y..=hi.y {
                for z in lo.z..=hi.z {
                    self.map.entry((x, y, z)).or_default().push(id);
                }
            }
        }
    }

    /// Ids whose cells overlap the box, sorted and unique.
    pub(super) fn query(&self, min: DVec3, max: DVec3, out: &mut Vec<u32>) {
        out.clear();
        let (lo, hi) = self.range(min, max);
        for x in lo.x..=hi.x {
            for y in lo.y..=hi.y {
                for z in lo.z..=hi.z {
                    if let Some(v) = self.map.get(&(x, y, z)) {
                        out.extend_from_slice(v);
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}
