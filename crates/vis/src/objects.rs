//! Objects in cells: each object is linked to every cell its box overlaps, as Quake links a
//! brush entity to every leaf its box touches (`SV_LinkEdict`, `R_StoreEfrags`), and a door
//! to the cells on both sides of the portals it closes; relinked when it moves, and drawn when
//! its screen octagon meets the octagon of a visible cell it is in, clipped to the union of
//! those cells' octagons. Linking only the cells reached through portals from the box's
//! centre (Thief's rule, used before) loses a brush model that reaches through a wall into
//! cells joined elsewhere (a wall-sized door across three corridors of e2m1).

use glam::{Vec2, Vec3, Vec4};

use super::{View, VisibleCell, VisibleObject};
use lanthorn_geom::{Aabb, Camera, Octagon};
use lanthorn_level::{BspChild, Level};

/// Units an object's box grows by when it is linked to cells.
pub const LINK_MARGIN: f32 = 1.0;

/// Where the level's objects are this frame and the cells each is linked to (every cell its
/// box overlaps, as Quake's efrags), with their light.
#[derive(Clone, Debug, Default)]
pub struct ObjectLinks {
    /// Cells each object overlaps.
    pub cells_of: Vec<Vec<u32>>,
    /// Objects in each cell.
    pub objects_in: Vec<Vec<u32>>,
    /// Each object's current world bounds.
    pub bounds: Vec<Aabb>,
    /// Each object's current translation (its rest `origin` plus its motion's offset).
    pub origins: Vec<Vec3>,
    /// Each object's light this frame (linear RGB multiplier; 1 for an object with its own
    /// lightmap). Set by whoever moves it (`vis::movers`' caller samples the lightmap below).
    pub lights: Vec<[f32; 3]>,
    /// Each object's light from the level's light grid this frame (`None`: lit by `lights`).
    pub ambient: Vec<Option<lanthorn_level::GridLight>>,
    /// The objects with a motion (looked up once, not every frame).
    pub moving: Vec<u32>,
    /// The level's switchable light styles that start off (`level::styles::switched_off`), for
    /// lighting the moving objects; looked up once.
    pub styles_off: u32,
    /// BSP descent scratch.
    stack: Vec<BspChild>,
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

/// Cells whose space the box overlaps, found by descending the BSP with the box (`stack`: the
/// caller's scratch, so relinking a moving object every frame allocates nothing).
pub fn cells_touching(level: &Level, b: &Aabb, stack: &mut Vec<BspChild>, out: &mut Vec<u32>) {
    out.clear();
    let Some(root) = level.bsp.root else {
        out.extend((0..level.cells.len() as u32).filter(|&c| box_touches_cell(level, c, b)));
        return;
    };
    stack.clear();
    stack.push(root);
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
    /// The objects of `level` where they spawn, linked.
    pub fn new(level: &Level) -> ObjectLinks {
        let n = level.objects.len();
        let mut links = ObjectLinks {
            cells_of: vec![Vec::new(); n],
            objects_in: vec![Vec::new(); level.cells.len()],
            bounds: vec![Aabb::EMPTY; n],
            origins: vec![Vec3::NAN; n],
            lights: vec![[1.0; 3]; n],
            ambient: vec![None; n],
            moving: (0..n as u32)
                .filter(|&i| level.objects[i as usize].motion.is_some())
                .collect(),
            styles_off: lanthorn_level::styles::switched_off(&level.entities),
            stack: Vec::new(),
        };
        for (i, o) in level.objects.iter().enumerate() {
            links.place(level, i as u32, o.origin);
        }
        links
    }

    /// (Re)links object `i` at `origin`: every cell its box (grown by `LINK_MARGIN`) overlaps,
    /// found by descending the BSP, and a door's cells beside the portals it closes. Only its
    /// own links change; an object that did not move costs nothing.
    pub fn place(&mut self, level: &Level, i: u32, origin: Vec3) {
        let iu = i as usize;
        if self.origins[iu] == origin {
            return;
        }
        self.origins[iu] = origin;
        let o = &level.objects[iu];
        let b = if o.bounds.is_empty() {
            Aabb::EMPTY
        } else {
            Aabb::new(o.bounds.min + origin, o.bounds.max + origin)
        };
        for &c in &self.cells_of[iu] {
            self.objects_in[c as usize].retain(|&x| x != i);
        }
        let mut cells = std::mem::take(&mut self.cells_of[iu]);
        cells.clear();
        if !b.is_empty() {
            cells_touching(level, &link_box(&b), &mut self.stack, &mut cells);
            add_door_sides(level, iu, &mut cells);
        }
        for &c in &cells {
            self.objects_in[c as usize].push(i);
        }
        self.cells_of[iu] = cells;
        self.bounds[iu] = b;
    }

    /// Objects seen through the visible cells, in each view: an object is drawn in a view when
    /// its screen octagon there meets the octagon of a visible cell of that view it is in; its
    /// record gets the union of those octagons.
    pub fn cull(
        &self,
        camera: &Camera,
        visible: (&[VisibleCell], &[View]),
        // Per-frame scratch kept by the caller (no allocation once warm).
        stamp: &mut Vec<u32>,
        frame: u32,
        out: &mut Vec<VisibleObject>,
    ) {
        let (cells, views) = visible;
        // stamp[k] = frame of the last sighting of (view, object) `k`; slot[k] = where it sits
        // in `out` then.
        let n = self.cells_of.len();
        let keys = n * (views.len() + 1);
        stamp.resize(keys * 2, 0);
        let (stamp, slot) = stamp.split_at_mut(keys);
        let camera_view_proj = camera.view_proj();
        let view_proj = |view: u32| match (view as usize).checked_sub(1) {
            Some(i) => views.get(i).map_or(camera_view_proj, |v| v.view_proj),
            None => camera_view_proj,
        };
        for (first_cell, vc) in cells.iter().enumerate() {
            let vp = view_proj(vc.view);
            for &o in &self.objects_in[vc.cell as usize] {
                let screen = screen_octagon(&vp, &self.bounds[o as usize]);
                if screen.intersect(&vc.octagon).is_empty() {
                    continue;
                }
                let oi = o as usize;
                let key = vc.view as usize * n + oi;
                if stamp[key] != frame {
                    stamp[key] = frame;
                    slot[key] = out.len() as u32;
                    out.push(VisibleObject {
                        object: o,
                        view: vc.view,
                        octagon: vc.octagon,
                        origin: self.origins[oi],
                        light: self.lights[oi],
                        ambient: self.ambient[oi],
                        first_cell: first_cell as u32,
                    });
                } else {
                    let e = &mut out[slot[key] as usize];
                    e.octagon = e.octagon.union(&vc.octagon);
                }
            }
        }
    }
}

/// An object's box grown a little for linking: a face flush with a cell boundary (a door in
/// its frame) is seen from the cell it touches even though it encloses no volume of it.
fn link_box(b: &Aabb) -> Aabb {
    Aabb::new(
        b.min - Vec3::splat(LINK_MARGIN),
        b.max + Vec3::splat(LINK_MARGIN),
    )
}

/// A door is also in the cells on both sides of the portals it closes: shut, it is seen from
/// there while the flow no longer enters its doorway.
fn add_door_sides(level: &Level, object: usize, cells: &mut Vec<u32>) {
    for &p in &level.objects[object].closes {
        let p = &level.portals[p as usize];
        for c in [p.front, p.back] {
            if !cells.contains(&c) {
                cells.push(c);
            }
        }
    }
    cells.sort_unstable();
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
    use lanthorn_compile::scenes::synthetic::{maze, MazeSpec};
    use lanthorn_level::Object;

    /// The oracle of `place`, by a linear scan: every cell the (grown) box touches.
    fn brute_force_links(level: &Level, b: &Aabb) -> Vec<u32> {
        let grown = link_box(b);
        (0..level.cells.len() as u32)
            .filter(|&c| box_touches_cell(level, c, &grown))
            .collect()
    }

    #[test]
    fn links_match_brute_force_and_follow_moves_incrementally() {
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
                bounds: Aabb::new(min, max),
                ..Default::default()
            });
        }
        level.objects[0].origin = Vec3::new(512.0, 512.0, 0.0);
        level.objects[1].origin = Vec3::new(100.0, 100.0, 50.0);
        let mut links = ObjectLinks::new(&level);
        assert_eq!(
            links.cells_of[0],
            brute_force_links(&level, &links.bounds[0])
        );
        assert_eq!(links.cells_of[1], vec![0]);
        // Move the small box along a path through many rooms, walls and doorways; the links
        // always equal the oracle and the reverse index stays consistent.
        let mut cells_seen = std::collections::BTreeSet::new();
        for k in 0..400 {
            let p = Vec3::new(
                30.0 + k as f32 * 3.65,
                40.0 + (k as f32 * 0.185).sin() * 200.0 + 200.0,
                50.0,
            );
            links.place(&level, 1, p);
            assert_eq!(
                links.cells_of[1],
                brute_force_links(&level, &links.bounds[1]),
                "step {k}"
            );
            cells_seen.extend(links.cells_of[1].iter().copied());
            for (c, objs) in links.objects_in.iter().enumerate() {
                assert_eq!(objs.contains(&1), links.cells_of[1].contains(&(c as u32)));
            }
        }
        assert!(
            cells_seen.len() > 6,
            "the path crossed only {} cells",
            cells_seen.len()
        );
    }

    /// An axial box brush in Quake's `.map` format.
    fn brush(min: [i32; 3], max: [i32; 3], texture: &str) -> String {
        let ([x0, y0, z0], [x1, y1, z1]) = (min, max);
        let t = format!("{texture} 0 0 0 1 1");
        format!(
            "{{\n( {x0} {y0} {z0} ) ( {x0} {y1} {z0} ) ( {x0} {y0} {z1} ) {t}\n\
             ( {x1} {y0} {z0} ) ( {x1} {y0} {z1} ) ( {x1} {y1} {z0} ) {t}\n\
             ( {x0} {y0} {z0} ) ( {x0} {y0} {z1} ) ( {x1} {y0} {z0} ) {t}\n\
             ( {x0} {y1} {z0} ) ( {x1} {y1} {z0} ) ( {x0} {y1} {z1} ) {t}\n\
             ( {x0} {y0} {z0} ) ( {x1} {y0} {z0} ) ( {x0} {y1} {z0} ) {t}\n\
             ( {x0} {y0} {z1} ) ( {x0} {y1} {z1} ) ( {x1} {y0} {z1} ) {t}\n}}\n"
        )
    }

    /// Three corridors side by side (walls 32 thick between them), joined only at their far
    /// ends, and a pit in the first one's floor: a `func_wall` slab across all three, its
    /// centre in the middle one, its box through both walls (e2m1's wall-wide door), and
    /// rising stairs (`"angle" "-1"` doors) in the pit, their tops below the floor.
    fn corridors_map() -> String {
        let mut world = String::from("{\n\"classname\" \"worldspawn\"\n");
        // The floor at z = 0 with a pit at x 64..128, y 0..64 down to z = -112.
        let pieces = [
            ([-16, -16, -128], [528, 272, -112]),
            ([-16, -16, -112], [64, 272, 0]),
            ([128, -16, -112], [528, 272, 0]),
            ([64, 64, -112], [128, 272, 0]),
            ([64, -16, -112], [128, 0, 0]),
            ([-16, -16, 128], [528, 272, 144]),
            ([-16, -16, 0], [0, 272, 128]),
            ([512, -16, 0], [528, 272, 128]),
            ([-16, -16, 0], [528, 0, 128]),
            ([-16, 256, 0], [528, 272, 128]),
            ([0, 64, 0], [448, 96, 128]),
            ([0, 160, 0], [448, 192, 128]),
        ];
        for (min, max) in pieces {
            world += &brush(min, max, "wall");
        }
        world += "}\n";
        let entity = |class: &str, keys: &str, body: String| {
            format!("{{\n\"classname\" \"{class}\"\n{keys}{body}}}\n")
        };
        world += &entity(
            "info_player_start",
            "\"origin\" \"480 128 24\"\n",
            String::new(),
        );
        world += &entity("func_wall", "", brush([200, 16, 0], [216, 240, 96], "door"));
        for k in 0..3 {
            let x = 64 + 20 * k;
            world += &entity(
                "func_door",
                "\"angle\" \"-1\"\n\"targetname\" \"steps\"\n",
                brush([x, 0, -96], [x + 20, 64, -32 - 16 * k], "door"),
            );
        }
        world
    }

    /// Kind 1 of the exactness issue, reproduced: each brush entity is linked to the cells
    /// it can be seen from (the invariant over every object surface; Thief's flood from the
    /// box's centre missed the slab's outer corridors).
    #[test]
    fn brush_entities_through_walls_and_in_pits_are_linked_where_seen() {
        let options = lanthorn_compile::CompileOptions {
            light: false,
            ..Default::default()
        };
        let (level, _) = lanthorn_compile::compile_map_text(&corridors_map(), &options).unwrap();
        assert!(level.leak.is_none());
        assert_eq!(level.objects.len(), 4);
        if let Some(why) = lanthorn_testdata::object_seen_from_an_unlinked_cell(&level) {
            panic!("{why}");
        }
        // The slab is seen from all three corridors: in front of its west face in each.
        let links = ObjectLinks::new(&level);
        let slab = level
            .objects
            .iter()
            .position(|o| {
                o.bounds.max.x - o.bounds.min.x < 17.0 && o.bounds.max.y - o.bounds.min.y > 200.0
            })
            .unwrap();
        for y in [40.0, 128.0, 216.0] {
            let cell = level.locate(Vec3::new(198.0, y, 48.0)).unwrap();
            assert!(
                links.cells_of[slab].contains(&cell),
                "y {y}: cell {cell} not in {:?}",
                links.cells_of[slab]
            );
        }
    }
}
