//! Whether a straight line between two points passes through solid: the part of a level no
//! cell holds. The eye can see a point only through open space, so a surface seen along such
//! a line is seen through a hole in the level (a face its compiler left out), which no
//! visibility method is asked to find (vis-check counts those apart).

use glam::Vec3;

use super::{BspChild, Level};

/// Pieces of solid shorter than this along the line are grazes (an edge or corner where two
/// open leaves meet), not holes: what vis-check uses.
pub const GRAZE: f32 = 0.05;

impl Level {
    /// Whether the segment `a`–`b` runs through solid for more than `graze` units at a
    /// stretch (BSP descent, splitting the segment at each node plane it crosses; cells hold
    /// 0.01 units beyond their planes). A level without a tree answers `false`.
    pub fn segment_crosses_solid(&self, a: Vec3, b: Vec3, graze: f32) -> bool {
        let Some(root) = self.bsp.root else {
            return false;
        };
        let mut stack = vec![(root, a, b)];
        let mut steps = 0usize;
        while let Some((child, a, b)) = stack.pop() {
            steps += 1;
            if steps > 4 * (self.bsp.nodes.len() + self.bsp.leaves.len()) + 8 {
                return false; // malformed tree: say nothing rather than loop
            }
            match child {
                BspChild::Node(n) => {
                    let Some(node) = self.bsp.nodes.get(n as usize) else {
                        continue;
                    };
                    let (da, db) = (node.plane.distance(a), node.plane.distance(b));
                    let side = |d: f32| if d >= 0.0 { 0 } else { 1 };
                    if side(da) == side(db) {
                        stack.push((node.children[side(da)], a, b));
                    } else {
                        let m = a + (b - a) * (da / (da - db));
                        stack.push((node.children[side(da)], a, m));
                        stack.push((node.children[side(db)], m, b));
                    }
                }
                BspChild::Leaf(l) => {
                    if a.distance(b) > graze && self.piece_in_solid(l, a, b, graze) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Whether a piece of a segment inside leaf `l` runs through solid for more than
    /// `graze`: the parts of it no cell of the leaf holds (a leaf with no cells is solid;
    /// a compiled level's leaf may hold several cells, or cells short of its bounds).
    fn piece_in_solid(&self, l: u32, a: Vec3, b: Vec3, graze: f32) -> bool {
        let Some(leaf) = self.bsp.leaves.get(l as usize) else {
            return false;
        };
        let mut inside: Vec<(f32, f32)> = leaf
            .cells
            .iter()
            .filter_map(|&c| self.cells.get(c as usize))
            .filter_map(|cell| span_inside(&cell.planes, a, b))
            .collect();
        inside.sort_by(|x, y| x.0.total_cmp(&y.0));
        let gap = graze / a.distance(b);
        let mut covered = 0.0f32;
        for (t0, t1) in inside {
            if t0 - covered > gap {
                return true;
            }
            covered = covered.max(t1);
        }
        1.0 - covered > gap
    }
}

/// The part of the segment `a`–`b` inside the convex region of `planes` (each facing in, with
/// 0.01 units of slack), as parameters along it; `None` when it misses the region.
fn span_inside(planes: &[lanthorn_geom::Plane], a: Vec3, b: Vec3) -> Option<(f32, f32)> {
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for p in planes {
        let (da, db) = (p.distance(a) + 0.01, p.distance(b) + 0.01);
        if da < 0.0 && db < 0.0 {
            return None;
        }
        if da < 0.0 {
            t0 = t0.max(da / (da - db));
        } else if db < 0.0 {
            t1 = t1.min(da / (da - db));
        }
    }
    (t0 <= t1).then_some((t0, t1))
}
