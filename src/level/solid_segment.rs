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
fn span_inside(planes: &[crate::geom::Plane], a: Vec3, b: Vec3) -> Option<(f32, f32)> {
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

#[cfg(test)]
mod tests {
    use glam::Vec3;

    /// The oracle: point location every eighth of a unit along the segment, with a run of
    /// points in solid longer than the threshold.
    fn sampled(level: &super::Level, a: Vec3, b: Vec3) -> Option<bool> {
        let n = (a.distance(b) * 8.0).ceil() as usize;
        let mut run = 0.0f32;
        let mut worst = 0.0f32;
        for k in 0..=n {
            let p = a.lerp(b, k as f32 / n.max(1) as f32);
            if level.locate(p).is_none() {
                run += 1.0 / 8.0;
                worst = worst.max(run);
            } else {
                run = 0.0;
            }
        }
        // Runs near the threshold are left undecided (sampling error).
        if worst > super::GRAZE + 0.5 {
            Some(true)
        } else if worst == 0.0 {
            Some(false)
        } else {
            None
        }
    }

    /// Random segments between open points of `level` agree with the oracle; returns how
    /// many crossed solid and how many did not.
    fn agree_with_sampling(level: &super::Level, seed: u64) -> (usize, usize) {
        let b = level.bounds();
        let mut rng = crate::rng::XorShift::seeded(seed);
        let mut point = || loop {
            let t = Vec3::new(rng.unit_f32(), rng.unit_f32(), rng.unit_f32());
            let p = b.min + (b.max - b.min) * t;
            if level.locate(p).is_some() {
                return p;
            }
        };
        let (mut crossing, mut clear) = (0, 0);
        for _ in 0..300 {
            let (a, c) = (point(), point());
            // Short segments too: most long ones cross some wall.
            let c = if clear < crossing { a.lerp(c, 0.1) } else { c };
            let Some(want) = sampled(level, a, c) else {
                continue;
            };
            assert_eq!(
                level.segment_crosses_solid(a, c, super::GRAZE),
                want,
                "{a} → {c}"
            );
            crossing += want as usize;
            clear += !want as usize;
        }
        (crossing, clear)
    }

    #[test]
    fn segments_through_walls_cross_solid_and_those_in_open_space_do_not() {
        // A generated level compiled by Lanthorn (walls 16 units thick and more, stairs, pits).
        let text = crate::scenes::generated::generate(5, &Default::default());
        let options = crate::compile::CompileOptions {
            light: false,
            ..Default::default()
        };
        let (level, _) = crate::compile::compile_map_text(&text, &options).unwrap();
        let (crossing, clear) = agree_with_sampling(&level, 7);
        assert!(
            crossing > 30 && clear > 30,
            "generated: {crossing} crossing, {clear} clear"
        );
        let e1m1 = crate::realdata_dir().join("quake/bsp/e1m1.bsp");
        if !e1m1.is_file() {
            crate::testutil::missing_realdata(&e1m1);
            return;
        }
        let level = crate::import::q1::load(&e1m1).unwrap();
        let (crossing, clear) = agree_with_sampling(&level, 8);
        assert!(
            crossing > 30 && clear > 30,
            "e1m1: {crossing} crossing, {clear} clear"
        );
    }
}
