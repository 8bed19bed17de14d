//! Objects in cells, as Thief tracks them: each object is linked to every cell its bounds
//! overlap, relinked incrementally when it moves, and drawn when its screen octagon meets the
//! octagon of a visible cell it is in, clipped to the union of those cells' octagons.

use glam::{Vec2, Vec3, Vec4};

use super::{VisibleCell, VisibleObject};
use crate::geom::{Aabb, Camera, Octagon};
use crate::level::{BspChild, Level};

/// Units an object's box grows by when it is linked to cells.
pub const LINK_MARGIN: f32 = 1.0;

#[derive(Clone, Debug, Default)]
pub struct ObjectLinks {
    /// Cells each object overlaps.
    pub cells_of: Vec<Vec<u32>>,
    /// Objects in each cell.
    pub objects_in: Vec<Vec<u32>>,
    /// Each object's current world bounds.
    pub bounds: Vec<Aabb>,
}

/// True when the box reaches into the convex cell (the box is not wholly outside any plane).
fn box_touches_cell(level: &Level, cell: u32, b: &Aabb) -> bool {
    let c = &level.cells[cell as usize];
    if !c.aabb.intersects(b) {
        return false;
    }
    c.planes.iter().all(|p| {
        let corner = Vec3::select(p.normal.cmpge(Vec3::ZERO), b.max, b.min);
        p.distance(corner) >= -0.01
    })
}

/// Cells whose space the box overlaps, found by descending the BSP with the box.
pub fn cells_touching(level: &Level, b: &Aabb, out: &mut Vec<u32>) {
    out.clear();
    let Some(root) = level.bsp.root else {
        out.extend((0..level.cells.len() as u32).filter(|&c| box_touches_cell(level, c, b)));
        return;
    };
    let mut stack = vec![root];
    let mut guard = 0usize;
    while let Some(child) = stack.pop() {
        guard += 1;
        if guard > level.bsp.nodes.len() * 2 + level.bsp.leaves.len() + 2 {
            break; // malformed tree: stop rather than loop
        }
        match child {
            BspChild::Node(n) => {
                let Some(node) = level.bsp.nodes.get(n as usize) else {
                    continue;
                };
                let p = node.plane;
                let hi = Vec3::select(p.normal.cmpge(Vec3::ZERO), b.max, b.min);
                let lo = Vec3::select(p.normal.cmpge(Vec3::ZERO), b.min, b.max);
                if p.distance(hi) >= 0.0 {
                    stack.push(node.children[0]);
                }
                if p.distance(lo) < 0.0 {
                    stack.push(node.children[1]);
                }
            }
            BspChild::Leaf(l) => {
                if let Some(leaf) = level.bsp.leaves.get(l as usize) {
                    for &c in &leaf.cells {
                        if !out.contains(&c) && box_touches_cell(level, c, b) {
                            out.push(c);
                        }
                    }
                }
            }
        }
    }
    out.sort_unstable();
}

impl ObjectLinks {
    pub fn new(level: &Level) -> ObjectLinks {
        let mut links = ObjectLinks {
            cells_of: vec![Vec::new(); level.objects.len()],
            objects_in: vec![Vec::new(); level.cells.len()],
            bounds: vec![Aabb::EMPTY; level.objects.len()],
        };
        for (i, o) in level.objects.iter().enumerate() {
            links.place(level, i as u32, o.origin);
        }
        links
    }

    /// (Re)links object `i` at `origin`: only its own links change.
    pub fn place(&mut self, level: &Level, i: u32, origin: Vec3) {
        let o = &level.objects[i as usize];
        let b = if o.bounds.is_empty() {
            Aabb::EMPTY
        } else {
            Aabb::new(o.bounds.min + origin, o.bounds.max + origin)
        };
        for &c in &self.cells_of[i as usize] {
            self.objects_in[c as usize].retain(|&x| x != i);
        }
        let mut cells = std::mem::take(&mut self.cells_of[i as usize]);
        if b.is_empty() {
            cells.clear();
        } else {
            // Grown a little: a face flush with a cell boundary (a door in its frame) is seen
            // from the cell it touches even though it encloses no volume of it.
            let grown = Aabb::new(
                b.min - Vec3::splat(LINK_MARGIN),
                b.max + Vec3::splat(LINK_MARGIN),
            );
            cells_touching(level, &grown, &mut cells);
        }
        for &c in &cells {
            self.objects_in[c as usize].push(i);
        }
        self.cells_of[i as usize] = cells;
        self.bounds[i as usize] = b;
    }

    /// Objects seen through the visible cells: an object is drawn when its screen octagon meets
    /// the octagon of a visible cell it is in; its record gets the union of those octagons.
    pub fn cull(
        &self,
        camera: &Camera,
        cells: &[VisibleCell],
        // Per-frame scratch kept by the caller (no allocation once warm).
        stamp: &mut Vec<u32>,
        frame: u32,
        out: &mut Vec<VisibleObject>,
    ) {
        // stamp[o] = frame of the last sighting; slot[o] = where it sits in `out` then.
        stamp.resize(self.cells_of.len() * 2, 0);
        let (stamp, slot) = stamp.split_at_mut(self.cells_of.len());
        let vp = camera.view_proj();
        for vc in cells {
            for &o in &self.objects_in[vc.cell as usize] {
                let screen = screen_octagon(&vp, &self.bounds[o as usize]);
                if screen.intersect(&vc.octagon).is_empty() {
                    continue;
                }
                let oi = o as usize;
                if stamp[oi] != frame {
                    stamp[oi] = frame;
                    slot[oi] = out.len() as u32;
                    out.push(VisibleObject {
                        object: o,
                        octagon: vc.octagon,
                    });
                } else {
                    let e = &mut out[slot[oi] as usize];
                    e.octagon = e.octagon.union(&vc.octagon);
                }
            }
        }
    }
}

/// The screen octagon of a box; the full screen when a corner is behind the near plane.
pub fn screen_octagon(view_proj: &glam::Mat4, b: &Aabb) -> Octagon {
    let mut pts = [Vec2::ZERO; 8];
    for (i, c) in b.corners().iter().enumerate() {
        let p: Vec4 = *view_proj * c.extend(1.0);
        if p.w - p.z < 0.0 || p.w <= 1e-6 {
            return Octagon::FULL;
        }
        pts[i] = Vec2::new(p.x, p.y) / p.w;
    }
    Octagon::from_points(pts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::Object;
    use crate::scenes::synthetic::{maze, MazeSpec};

    #[test]
    fn links_match_brute_force_overlap_and_follow_moves() {
        let mut level = maze(&MazeSpec {
            nx: 6,
            ny: 6,
            ..Default::default()
        });
        // A crate straddling the corner of four rooms, and a small one inside a room.
        for (min, max) in [
            (Vec3::new(-16.0, -16.0, 0.0), Vec3::new(16.0, 16.0, 32.0)),
            (Vec3::splat(-4.0), Vec3::splat(4.0)),
        ] {
            level.objects.push(Object {
                name: "box".into(),
                surfaces: vec![],
                bounds: Aabb::new(min, max),
                origin: Vec3::ZERO,
                entity: None,
            });
        }
        level.objects[0].origin = Vec3::new(512.0, 512.0, 0.0);
        level.objects[1].origin = Vec3::new(100.0, 100.0, 50.0);
        let mut links = ObjectLinks::new(&level);
        let brute = |links: &ObjectLinks, i: usize| -> Vec<u32> {
            (0..level.cells.len() as u32)
                .filter(|&c| box_touches_cell(&level, c, &links.bounds[i]))
                .collect()
        };
        assert_eq!(links.cells_of[0].len(), 4);
        assert_eq!(links.cells_of[0], brute(&links, 0));
        assert_eq!(links.cells_of[1], vec![0]);
        // Move the small box along a path; links always equal brute force, and the reverse
        // index stays consistent.
        for k in 0..200 {
            let p = Vec3::new(
                30.0 + k as f32 * 7.3,
                40.0 + (k as f32 * 0.37).sin() * 200.0 + 200.0,
                50.0,
            );
            links.place(&level, 1, p);
            assert_eq!(links.cells_of[1], brute(&links, 1));
            for (c, objs) in links.objects_in.iter().enumerate() {
                assert_eq!(objs.contains(&1), links.cells_of[1].contains(&(c as u32)));
            }
        }
    }
}
