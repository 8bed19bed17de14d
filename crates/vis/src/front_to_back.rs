//! The order the portal flow expands cells in: the level BSP's front-to-back order from the eye,
//! as a key per cell worked out only for the cells the flow reaches.
//!
//! A portal between two leaves lies on the plane of the node that parts them, and the flow
//! crosses it only from the eye's side, which that node's front-to-back walk visits first. So
//! in this order every cell is expanded after all the cells that feed it, and its octagon is
//! complete when it is expanded: no cell is expanded twice (with keys by the distance of the
//! portal's plane from the eye, a wide view expanded almost every cell twice).

use glam::Vec3;
use lanthorn_level::{Bsp, BspChild};

/// Path bits kept per cell: the key orders cells by the first this many nodes of their paths
/// (deeper trees only order less finely; the flow stays exact, merely expanding some cells
/// again).
const KEY_BITS: usize = 128;

/// Each cell's path from the BSP root and, per frame, which side of each node the eye is on.
pub(crate) struct FrontToBack {
    planes: Vec<lanthorn_geom::Plane>,
    /// Cell `c`'s path: the nodes `path[first[c]..first[c + 1]]`, root first, and which child
    /// it lies in under each (bit `KEY_BITS - 1 - i` set: the back child of the `i`-th).
    first: Vec<u32>,
    path: Vec<u32>,
    sides: Vec<u128>,
    /// Per node: twice the frame its eye side was worked out in, plus that side (1: behind);
    /// one word, so a node costs one cache miss.
    eye_side: Vec<u32>,
}

impl FrontToBack {
    /// The paths of the cells of `bsp`'s leaves (a cell in several leaves: its first); a cell
    /// in no leaf has an empty path (key 0: expanded as soon as it is reached).
    pub(crate) fn new(bsp: &Bsp, cells: usize) -> FrontToBack {
        let mut paths: Vec<Option<(Vec<u32>, u128)>> = vec![None; cells];
        let mut stack: Vec<(BspChild, Vec<u32>, u128)> = Vec::new();
        stack.extend(bsp.root.map(|r| (r, Vec::new(), 0)));
        // A tree of n nodes names n + 1 children that are leaves (solid leaves may be one
        // shared leaf): 2n + 1 steps; a malformed one (a cycle) stops here.
        let mut steps = 2 * bsp.nodes.len() + 1;
        while let Some((child, path, sides)) = stack.pop() {
            steps = match steps.checked_sub(1) {
                Some(s) => s,
                None => break,
            };
            match child {
                BspChild::Node(n) => {
                    let Some(node) = bsp.nodes.get(n as usize) else {
                        continue;
                    };
                    let depth = path.len();
                    let mut deeper = path;
                    deeper.push(n);
                    let back = match depth < KEY_BITS {
                        true => sides | 1u128 << (KEY_BITS - 1 - depth),
                        false => sides,
                    };
                    stack.push((node.children[1], deeper.clone(), back));
                    stack.push((node.children[0], deeper, sides));
                }
                BspChild::Leaf(l) => {
                    let leaf_cells = bsp.leaves.get(l as usize).map_or(&[][..], |l| &l.cells);
                    for &c in leaf_cells {
                        if let Some(slot @ None) = paths.get_mut(c as usize) {
                            *slot = Some((path.clone(), sides));
                        }
                    }
                }
            }
        }
        let mut order = FrontToBack {
            planes: bsp.nodes.iter().map(|n| n.plane).collect(),
            first: Vec::with_capacity(cells + 1),
            path: Vec::new(),
            sides: Vec::with_capacity(cells),
            eye_side: vec![0; bsp.nodes.len()],
        };
        for p in paths {
            let (path, sides) = p.unwrap_or_default();
            order.first.push(order.path.len() as u32);
            order.path.extend(path.iter().take(KEY_BITS));
            order.sides.push(sides);
        }
        order.first.push(order.path.len() as u32);
        order
    }

    /// Cell `cell`'s key seen from `eye` in frame `frame` (a frame number below 2³¹, not used
    /// before with another eye): cells with smaller keys come first front to back; the eye's own cell
    /// has key 0.
    pub(crate) fn key(&mut self, cell: u32, eye: Vec3, frame: u32) -> u128 {
        self.key_from(cell, (0, 0), eye, frame)
    }

    /// Where cell `c`'s path lies in `path` (empty for a cell beyond the last).
    fn span(&self, c: u32) -> std::ops::Range<usize> {
        let c = c as usize;
        match (self.first.get(c), self.first.get(c + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }

    /// How far down the paths of cells `a` and `b` agree: the depth of the node that parts
    /// them (0 where a path is empty). Their keys agree above it, so the key of a cell
    /// reached from its neighbour is [`key_from`](Self::key_from) that depth.
    pub(crate) fn parting_depth(&self, a: u32, b: u32) -> u32 {
        let path = |c: u32| &self.path[self.span(c)];
        let shared = path(a)
            .iter()
            .zip(path(b))
            .take_while(|(x, y)| x == y)
            .count();
        shared.saturating_sub(1) as u32
    }

    /// [`key`](Self::key) of `cell`, whose path agrees with that of a cell of key `near_key`
    /// above depth `depth` (at most their [`parting_depth`](Self::parting_depth)): only the
    /// nodes from `depth` on are read.
    pub(crate) fn key_from(
        &mut self,
        cell: u32,
        (near_key, depth): (u128, u32),
        eye: Vec3,
        frame: u32,
    ) -> u128 {
        let nodes = self.span(cell);
        let depth = (depth as usize).min(nodes.len());
        let above = match depth {
            0 => 0,
            d => u128::MAX << (KEY_BITS - d),
        };
        let below = self.eye_sides(nodes.start + depth..nodes.end, depth, eye, frame);
        // A bit is set where the cell lies on the far side of the node from the eye; the
        // first such node from the root decides between two cells.
        (near_key & above) | ((self.sides[cell as usize] & !above) ^ below)
    }

    /// The eye's sides of the nodes `path[nodes]`, the first at depth `depth`, as key bits.
    #[inline]
    fn eye_sides(
        &mut self,
        nodes: std::ops::Range<usize>,
        depth: usize,
        eye: Vec3,
        frame: u32,
    ) -> u128 {
        let mut bits = 0u128;
        let stamp = frame << 1;
        for (i, &n) in self.path[nodes].iter().enumerate() {
            let n = n as usize;
            let mut side = self.eye_side[n];
            if side & !1 != stamp {
                side = stamp | u32::from(self.planes[n].distance(eye) < 0.0);
                self.eye_side[n] = side;
            }
            bits |= u128::from(side & 1) << (KEY_BITS - 1 - depth - i);
        }
        bits
    }

    /// Forgets every node's eye side (the frame numbers started again).
    pub(crate) fn reset(&mut self) {
        self.eye_side.fill(0);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The oracle: a walk of the whole tree, near child first; each cell's rank is the order
    /// in which the walk first meets it.
    pub(crate) fn ranks_by_walk(bsp: &Bsp, cells: usize, eye: Vec3) -> Vec<Option<usize>> {
        let mut rank = vec![None; cells];
        let mut next = 0;
        let mut stack: Vec<BspChild> = bsp.root.into_iter().collect();
        while let Some(c) = stack.pop() {
            match c {
                BspChild::Node(n) => {
                    let node = &bsp.nodes[n as usize];
                    let [front, back] = node.children;
                    match node.plane.distance(eye) < 0.0 {
                        true => stack.extend([front, back]),
                        false => stack.extend([back, front]),
                    }
                }
                BspChild::Leaf(l) => {
                    for &cell in &bsp.leaves[l as usize].cells {
                        if rank[cell as usize].is_none() {
                            rank[cell as usize] = Some(next);
                            next += 1;
                        }
                    }
                }
            }
        }
        rank
    }

    /// The key of a cell reached through a portal, worked out from its neighbour's key below
    /// the node parting them, is its whole key: every portal of id maps, both ways, from
    /// random eyes.
    #[test]
    fn a_key_from_a_neighbours_is_the_whole_key() {
        let dir = lanthorn_testdata::realdata_dir().join("quake/bsp");
        for name in ["e1m1", "dm3"] {
            let path = dir.join(format!("{name}.bsp"));
            if !path.exists() {
                return lanthorn_testdata::missing_realdata(&path);
            }
            let level = lanthorn_load::load(&path).unwrap();
            let mut order = FrontToBack::new(&level.bsp, level.cells.len());
            let (lo, size) = (level.bounds().min, level.bounds().size());
            let mut rnd = lanthorn_testdata::unit_random(3);
            let mut partings = 0;
            for frame in 1..=8 {
                let eye = lo + Vec3::new(rnd(), rnd(), rnd()) * size;
                for p in &level.portals {
                    let depth = order.parting_depth(p.front, p.back);
                    partings += u64::from(depth);
                    for (a, b) in [(p.front, p.back), (p.back, p.front)] {
                        let near = (order.key(a, eye, frame), depth);
                        let whole = order.key(b, eye, frame);
                        assert_eq!(order.key_from(b, near, eye, frame), whole, "{name} {eye}");
                    }
                }
            }
            // Not every portal is parted at the root: the shortcut is taken.
            assert!(
                partings > level.portals.len() as u64 * 8 * 4,
                "{name}: {partings}"
            );
        }
    }

    /// On id maps, from eyes in every kind of place (random points in random cells), the
    /// keys order every pair of cells as the whole tree's front-to-back walk does.
    #[test]
    fn keys_order_cells_as_a_front_to_back_walk_of_the_tree() {
        let dir = lanthorn_testdata::realdata_dir().join("quake/bsp");
        for name in ["e1m1", "dm3", "e2m5"] {
            let path = dir.join(format!("{name}.bsp"));
            if !path.exists() {
                return lanthorn_testdata::missing_realdata(&path);
            }
            let level = lanthorn_load::load(&path).unwrap();
            let n = level.cells.len();
            let mut order = FrontToBack::new(&level.bsp, n);
            let mut rnd = lanthorn_testdata::unit_random(17);
            for frame in 1..=20 {
                let eye = lanthorn_testdata::point_in_a_cell(&level, &mut rnd);
                let walk = ranks_by_walk(&level.bsp, n, eye);
                let keys: Vec<u128> = (0..n as u32).map(|c| order.key(c, eye, frame)).collect();
                let mut by_key: Vec<usize> = (0..n).collect();
                by_key.sort_by_key(|&c| keys[c]);
                let ranks: Vec<Option<usize>> = by_key.iter().map(|&c| walk[c]).collect();
                assert!(
                    ranks.windows(2).all(|w| w[0] < w[1]),
                    "{name}, eye {eye}: the keys order cells unlike the tree's walk"
                );
                if let Some(c) = level.locate(eye) {
                    assert_eq!(keys[c as usize], 0, "{name}: the eye's cell comes first");
                }
            }
        }
    }
}
