//! Synthetic levels generated in code: a maze of box rooms joined by doorway portals. The portal
//! traverser is tested on it against ray casting, and benchmarked at 100,000 cells.

use glam::{Vec2, Vec3};

use lanthorn_geom::{Aabb, Plane};
use lanthorn_level::{
    Bsp, BspChild, BspLeaf, BspNode, Cell, Level, Material, Medium, Portal, Surface, Vertex,
};

/// A grid maze of rooms joined by doorways (benchmarks and tests of the flow).
#[derive(Clone, Copy, Debug)]
pub struct MazeSpec {
    /// Rooms along x.
    pub nx: u32,
    /// Rooms along y.
    pub ny: u32,
    /// Room edge in units.
    pub room: f32,
    /// Room height in units.
    pub height: f32,
    /// Doorway width…
    pub door_width: f32,
    /// …and height.
    pub door_height: f32,
    /// Fraction of the non-tree walls that also get a doorway (loops).
    pub extra_doors: f32,
    /// Which maze (the spanning tree and the extra doors).
    pub seed: u64,
    /// Build wall/floor surfaces (benchmarks of the traverser alone can skip them).
    pub surfaces: bool,
    /// Doors decided by a hash of the wall's position alone (probability `extra_doors`),
    /// not a spanning tree: the neighbourhood of a room looks the same whatever the maze size,
    /// so benchmarks can compare equal views in small and huge levels. Not always connected.
    pub local_doors: bool,
}

impl Default for MazeSpec {
    fn default() -> Self {
        MazeSpec {
            nx: 8,
            ny: 8,
            room: 256.0,
            height: 128.0,
            door_width: 64.0,
            door_height: 96.0,
            extra_doors: 0.3,
            seed: 1,
            surfaces: true,
            local_doors: false,
        }
    }
}

use lanthorn_geom::rng::XorShift as Rng;

/// Which walls have doorways: `east[y][x]` between (x,y) and (x+1,y); `north[y][x]` between
/// (x,y) and (x,y+1). A random spanning tree (so every room is reachable) plus extra doors.
pub fn maze_doors(spec: &MazeSpec) -> (Vec<bool>, Vec<bool>) {
    let (nx, ny) = (spec.nx as usize, spec.ny as usize);
    let mut east = vec![false; nx * ny];
    let mut north = vec![false; nx * ny];
    if spec.local_doors {
        for y in 0..ny {
            for x in 0..nx {
                let h = |d: u64| {
                    let mut r = Rng((x as u64) << 40
                        ^ (y as u64) << 16
                        ^ d
                        ^ spec.seed.wrapping_mul(0x9E3779B97F4A7C15)
                        | 1);
                    r.next_u64();
                    r.unit_f32()
                };
                east[y * nx + x] = x + 1 < nx && h(1) < spec.extra_doors;
                north[y * nx + x] = y + 1 < ny && h(2) < spec.extra_doors;
            }
        }
        return (east, north);
    }
    let mut rng = Rng(spec.seed.wrapping_mul(0x9E3779B97F4A7C15) | 1);
    // Randomized Kruskal with union-find.
    let mut parent: Vec<usize> = (0..nx * ny).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let mut walls: Vec<(usize, bool)> = Vec::new();
    for y in 0..ny {
        for x in 0..nx {
            if x + 1 < nx {
                walls.push((y * nx + x, true));
            }
            if y + 1 < ny {
                walls.push((y * nx + x, false));
            }
        }
    }
    for i in (1..walls.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        walls.swap(i, j);
    }
    for (cell, is_east) in walls {
        let other = if is_east { cell + 1 } else { cell + nx };
        let (a, b) = (find(&mut parent, cell), find(&mut parent, other));
        let open = if a != b {
            parent[a] = b;
            true
        } else {
            rng.unit_f32() < spec.extra_doors
        };
        if open {
            if is_east {
                east[cell] = true;
            } else {
                north[cell] = true;
            }
        }
    }
    (east, north)
}

/// The maze level: room (x, y) is cell `y * nx + x`, spanning
/// `[x·room, (x+1)·room] × [y·room, (y+1)·room] × [0, height]`.
pub fn maze(spec: &MazeSpec) -> Level {
    let (nx, ny) = (spec.nx as usize, spec.ny as usize);
    let (east, north) = maze_doors(spec);
    let mut level = Level::default();
    level.materials = vec![
        flat("maze_floor", [0.35, 0.3, 0.25]),
        flat("maze_wall", [0.55, 0.5, 0.45]),
        flat("maze_ceiling", [0.3, 0.32, 0.36]),
    ];
    level.cells.reserve(nx * ny);
    for y in 0..ny {
        for x in 0..nx {
            level.cells.push(room_cell(spec, x, y));
        }
    }
    add_doorways(&mut level, spec, &east, &north);
    if spec.surfaces {
        for y in 0..ny {
            for x in 0..nx {
                let open = room_doorways(spec, x, y, &east, &north);
                add_room_surfaces(&mut level, spec, x, y, open);
            }
        }
    }
    level.bsp = grid_bsp(spec);
    level.entities = maze_entities(spec);
    level
}

/// The empty cell of room (x, y).
fn room_cell(spec: &MazeSpec, x: usize, y: usize) -> Cell {
    let (r, h) = (spec.room, spec.height);
    let min = Vec3::new(x as f32 * r, y as f32 * r, 0.0);
    let max = Vec3::new((x + 1) as f32 * r, (y + 1) as f32 * r, h);
    Cell {
        planes: vec![
            Plane::new(Vec3::X, min.x),
            Plane::new(-Vec3::X, -max.x),
            Plane::new(Vec3::Y, min.y),
            Plane::new(-Vec3::Y, -max.y),
            Plane::new(Vec3::Z, min.z),
            Plane::new(-Vec3::Z, -max.z),
        ],
        aabb: Aabb::new(min, max),
        medium: Medium::Air,
        flags: 0,
        portals: vec![],
        surfaces: vec![],
    }
}

/// Portals: doorway rectangles centred on the shared wall.
fn add_doorways(level: &mut Level, spec: &MazeSpec, east: &[bool], north: &[bool]) {
    let (nx, ny) = (spec.nx as usize, spec.ny as usize);
    for y in 0..ny {
        for x in 0..nx {
            let c = y * nx + x;
            if east[c] {
                add_east_doorway(level, spec, x, y);
            }
            if north[c] {
                add_north_doorway(level, spec, x, y);
            }
        }
    }
}

/// The doorway between room (x, y) and its east neighbour.
fn add_east_doorway(level: &mut Level, spec: &MazeSpec, x: usize, y: usize) {
    let c = y * spec.nx as usize + x;
    let (r, dw, dh) = (spec.room, spec.door_width, spec.door_height);
    let px = (x + 1) as f32 * r;
    let cy = (y as f32 + 0.5) * r;
    // Plane normal −X: the front (positive) side is the west room `c`.
    let polygon = vec![
        Vec3::new(px, cy - dw / 2.0, 0.0),
        Vec3::new(px, cy - dw / 2.0, dh),
        Vec3::new(px, cy + dw / 2.0, dh),
        Vec3::new(px, cy + dw / 2.0, 0.0),
    ];
    add_portal(
        level,
        polygon,
        Plane::new(-Vec3::X, -px),
        c as u32,
        (c + 1) as u32,
    );
}

/// The doorway between room (x, y) and its north neighbour.
fn add_north_doorway(level: &mut Level, spec: &MazeSpec, x: usize, y: usize) {
    let nx = spec.nx as usize;
    let c = y * nx + x;
    let (r, dw, dh) = (spec.room, spec.door_width, spec.door_height);
    let py = (y + 1) as f32 * r;
    let cx = (x as f32 + 0.5) * r;
    let polygon = vec![
        Vec3::new(cx - dw / 2.0, py, 0.0),
        Vec3::new(cx + dw / 2.0, py, 0.0),
        Vec3::new(cx + dw / 2.0, py, dh),
        Vec3::new(cx - dw / 2.0, py, dh),
    ];
    add_portal(
        level,
        polygon,
        Plane::new(-Vec3::Y, -py),
        c as u32,
        (c + nx) as u32,
    );
}

/// Which walls of room (x, y) have a doorway: [south, east, north, west].
fn room_doorways(spec: &MazeSpec, x: usize, y: usize, east: &[bool], north: &[bool]) -> [bool; 4] {
    let (nx, ny) = (spec.nx as usize, spec.ny as usize);
    let c = y * nx + x;
    let west_open = x > 0 && east[c - 1];
    let east_open = x + 1 < nx && east[c];
    let south_open = y > 0 && north[c - nx];
    let north_open = y + 1 < ny && north[c];
    [south_open, east_open, north_open, west_open]
}

/// Room (x, y)'s floor corners counter-clockwise seen from above, south-west first, and the
/// doorway jambs of the walls that start at them ([south, east, north, west]), in that winding.
fn room_corners_and_jambs(spec: &MazeSpec, x: usize, y: usize) -> ([Vec3; 4], [(Vec3, Vec3); 4]) {
    let (r, dw) = (spec.room, spec.door_width);
    let min = Vec2::new(x as f32 * r, y as f32 * r);
    let max = min + Vec2::splat(r);
    let corners = [
        v(min.x, min.y, 0.0),
        v(max.x, min.y, 0.0),
        v(max.x, max.y, 0.0),
        v(min.x, max.y, 0.0),
    ];
    // Jamb coordinates from the wall's centre, so the rooms on both sides of a wall
    // compute bit-identical vertices (shared edges must match exactly).
    let (cx, cy) = ((x as f32 + 0.5) * r, (y as f32 + 0.5) * r);
    let (lo_x, hi_x) = (cx - dw / 2.0, cx + dw / 2.0);
    let (lo_y, hi_y) = (cy - dw / 2.0, cy + dw / 2.0);
    let jambs = [
        (v(lo_x, min.y, 0.0), v(hi_x, min.y, 0.0)),
        (v(max.x, lo_y, 0.0), v(max.x, hi_y, 0.0)),
        (v(hi_x, max.y, 0.0), v(lo_x, max.y, 0.0)),
        (v(min.x, hi_y, 0.0), v(min.x, lo_y, 0.0)),
    ];
    (corners, jambs)
}

/// Floor, ceiling and walls of room (x, y), facing into it and listed in its cell; `open` says
/// which walls have a doorway ([south, east, north, west]).
fn add_room_surfaces(level: &mut Level, spec: &MazeSpec, x: usize, y: usize, open: [bool; 4]) {
    let c = y * spec.nx as usize + x;
    let (h, dh) = (spec.height, spec.door_height);
    let add = |level: &mut Level, q: Vec<Vec3>, m: u32| {
        let id = level.surfaces.len() as u32;
        level.surfaces.push(polygon_surface(q, m));
        level.cells[c].surfaces.push(id);
    };
    let (corners, jambs) = room_corners_and_jambs(spec, x, y);
    // The outline runs counter-clockwise seen from above; doorways split the walls
    // without T-junctions: the floor and ceiling outlines carry the jambs' vertices.
    let mut outline = Vec::new();
    for i in 0..4 {
        outline.push(corners[i]);
        if open[i] {
            let (j0, j1) = jambs[i];
            outline.extend([j0, j1]);
        }
    }
    let up = |p: Vec3, z: f32| p + Vec3::Z * z;
    // Listed along the outline these face outward: reversed they face the room.
    let wall = |level: &mut Level, mut q: Vec<Vec3>| {
        q.reverse();
        add(level, q, 1)
    };
    add(level, outline.clone(), 0);
    add(level, outline.iter().rev().map(|p| up(*p, h)).collect(), 2);
    for i in 0..4 {
        let (p0, p1) = (corners[i], corners[(i + 1) % 4]);
        if open[i] {
            let (j0, j1) = jambs[i];
            wall(level, vec![p0, j0, up(j0, dh), up(j0, h), up(p0, h)]);
            wall(level, vec![j1, p1, up(p1, h), up(j1, h), up(j1, dh)]);
            wall(level, vec![up(j0, dh), up(j1, dh), up(j1, h), up(j0, h)]);
        } else {
            wall(level, vec![p0, p1, up(p1, h), up(p0, h)]);
        }
    }
}

/// Worldspawn, and the player start in room (0, 0).
fn maze_entities(spec: &MazeSpec) -> Vec<lanthorn_level::Entity> {
    let r = spec.room;
    let start = format!("{} {} 40", r * 0.5, r * 0.5);
    vec![
        lanthorn_level::Entity {
            pairs: vec![("classname".into(), "worldspawn".into())],
        },
        lanthorn_level::Entity {
            pairs: vec![
                ("classname".into(), "info_player_start".into()),
                ("origin".into(), start),
                ("angle".into(), "45".into()),
            ],
        },
    ]
}

fn add_portal(level: &mut Level, polygon: Vec<Vec3>, plane: Plane, front: u32, back: u32) {
    level.add_portal(Portal {
        polygon,
        plane,
        front,
        back,
        transform: None,
        flags: 0,
    });
}

fn v(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

/// A convex polygon (collinear vertices allowed) as a fan-triangulated surface.
fn polygon_surface(points: Vec<Vec3>, material: u32) -> Surface {
    let n = points.len();
    let mut normal = Vec3::ZERO;
    for i in 1..n - 1 {
        normal += (points[i] - points[0]).cross(points[i + 1] - points[0]);
    }
    let normal = normal.normalize();
    let a = normal.abs();
    let (u, w) = if a.z >= a.x && a.z >= a.y {
        (Vec3::X, Vec3::Y)
    } else if a.x >= a.y {
        (Vec3::Y, Vec3::Z)
    } else {
        (Vec3::X, Vec3::Z)
    };
    let vertices = points
        .iter()
        .map(|&p| Vertex {
            position: p,
            uv: Vec2::new(p.dot(u), -p.dot(w)) / 64.0,
            lightmap_uv: Vec2::ZERO,
        })
        .collect();
    let indices = (1..n as u32 - 1).flat_map(|i| [0, i, i + 1]).collect();
    Surface {
        vertices,
        indices,
        normal,
        material,
        lightmap: None,
        styles: Default::default(),
        flags: 0,
    }
}

fn flat(name: &str, color: [f32; 3]) -> Material {
    Material {
        name: name.into(),
        width: 64,
        height: 64,
        texels: None,
        fullbright: None,
        color,
        flags: 0,
        ..Default::default()
    }
}

/// A balanced BSP of axial splits over the room grid: point location in O(log n).
fn grid_bsp(spec: &MazeSpec) -> Bsp {
    let mut bsp = Bsp::default();
    let (nx, ny) = (spec.nx, spec.ny);
    fn build(bsp: &mut Bsp, spec: &MazeSpec, x0: u32, x1: u32, y0: u32, y1: u32) -> BspChild {
        let r = spec.room;
        if x1 - x0 == 1 && y1 - y0 == 1 {
            let leaf = bsp.leaves.len() as u32;
            bsp.leaves.push(BspLeaf {
                cells: vec![y0 * spec.nx + x0],
            });
            return BspChild::Leaf(leaf);
        }
        let id = bsp.nodes.len() as u32;
        let aabb = Aabb::new(
            Vec3::new(x0 as f32 * r, y0 as f32 * r, 0.0),
            Vec3::new(x1 as f32 * r, y1 as f32 * r, spec.height),
        );
        bsp.nodes.push(BspNode {
            plane: Plane::default(),
            children: [BspChild::Leaf(0); 2],
            aabb,
        });
        let (plane, front, back) = if x1 - x0 >= y1 - y0 {
            let m = (x0 + x1) / 2;
            let f = build(bsp, spec, m, x1, y0, y1);
            let b = build(bsp, spec, x0, m, y0, y1);
            (Plane::new(Vec3::X, m as f32 * r), f, b)
        } else {
            let m = (y0 + y1) / 2;
            let f = build(bsp, spec, x0, x1, m, y1);
            let b = build(bsp, spec, x0, x1, y0, m);
            (Plane::new(Vec3::Y, m as f32 * r), f, b)
        };
        bsp.nodes[id as usize].plane = plane;
        bsp.nodes[id as usize].children = [front, back];
        BspChild::Node(id)
    }
    let root = build(&mut bsp, spec, 0, nx, 0, ny);
    bsp.root = Some(root);
    bsp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maze_is_connected_and_portals_sit_between_their_rooms() {
        let spec = MazeSpec {
            nx: 12,
            ny: 9,
            ..Default::default()
        };
        let level = maze(&spec);
        assert_eq!(level.cells.len(), 108);
        // Spanning tree: at least n−1 portals, and BFS reaches every room.
        assert!(level.portals.len() >= 107);
        let mut seen = vec![false; level.cells.len()];
        let mut stack = vec![0u32];
        seen[0] = true;
        while let Some(c) = stack.pop() {
            for &p in &level.cells[c as usize].portals {
                let o = level.portals[p as usize].other(c);
                if !seen[o as usize] {
                    seen[o as usize] = true;
                    stack.push(o);
                }
            }
        }
        assert!(seen.iter().all(|s| *s));
        for p in &level.portals {
            let f = &level.cells[p.front as usize];
            let b = &level.cells[p.back as usize];
            assert!(p.plane.distance(f.aabb.center()) > 0.0);
            assert!(p.plane.distance(b.aabb.center()) < 0.0);
            for v in &p.polygon {
                assert!(f.contains(*v, 1e-3) && b.contains(*v, 1e-3));
                assert!(p.plane.distance(*v).abs() < 1e-3);
            }
        }
        // BSP point location agrees with the grid.
        for (i, c) in level.cells.iter().enumerate() {
            assert_eq!(level.locate(c.aabb.center()), Some(i as u32));
        }
        // Surfaces face into their room.
        for c in &level.cells {
            for &s in &c.surfaces {
                let s = &level.surfaces[s as usize];
                let centre =
                    s.vertices.iter().map(|v| v.position).sum::<Vec3>() / s.vertices.len() as f32;
                assert!(c.contains(centre + s.normal, 0.0));
            }
        }
    }
}
