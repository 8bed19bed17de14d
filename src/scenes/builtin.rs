//! The built-in test scene: a walled yard with an open sky, a floor and lit boxes. The yard is
//! a scene, `assets/levels/builtin.ron`, compiled into the program and compiled by the scene
//! compiler when it is loaded; its textures are generated (`compile::scene::procedural`), so
//! the demo runs with no data files. Its portal variant is still built here in code.

use glam::{Vec2, Vec3};

use super::embedded;
use crate::compile::scene::procedural::procedural;
use crate::compile::{CompileError, CompileOptions};
use crate::geom::{Aabb, Plane};
use crate::level::{
    cell_flags, material_flags, surface_flags, Bsp, BspChild, BspLeaf, BspNode, Cell, Entity,
    Level, Material, Medium, Portal, Sky, Surface, Vertex,
};
use crate::light::direct::{bake, BakeOptions, PointLight};

pub const MIN: Vec3 = Vec3::new(-512.0, -384.0, 0.0);
pub const MAX: Vec3 = Vec3::new(512.0, 384.0, 320.0);

/// Boxes standing on the floor: (min, max, material: 1 brick, 2 crate), as
/// `assets/levels/builtin.ron` builds them.
pub const BOXES: [(Vec3, Vec3, u32); 5] = [
    (
        Vec3::new(-96.0, -64.0, 0.0),
        Vec3::new(32.0, 64.0, 128.0),
        2,
    ),
    (
        Vec3::new(128.0, 96.0, 0.0),
        Vec3::new(224.0, 192.0, 96.0),
        2,
    ),
    (
        Vec3::new(-320.0, 128.0, 0.0),
        Vec3::new(-256.0, 192.0, 224.0),
        1,
    ),
    (
        Vec3::new(256.0, -256.0, 0.0),
        Vec3::new(320.0, -192.0, 64.0),
        2,
    ),
    (
        Vec3::new(-352.0, -224.0, 0.0),
        Vec3::new(-224.0, -160.0, 48.0),
        2,
    ),
];

const FLOOR: u32 = 0;
const WALL: u32 = 1;
const SKY: u32 = 3;

/// The yard compiled from `assets/levels/builtin.ron` (light baked from its entities, a
/// luxel every 8 units as the yard always had).
pub fn load() -> Result<Level, CompileError> {
    let options = CompileOptions {
        luxel_size: 8.0,
        ..Default::default()
    };
    Ok(embedded::compile("builtin.ron", &options)?.0)
}

/// The yard, lit (`load`, compiled once per process: tests ask for it many times; the
/// embedded scene always compiles, a test checks it).
pub fn scene() -> Level {
    static YARD: std::sync::OnceLock<Level> = std::sync::OnceLock::new();
    YARD.get_or_init(|| {
        load().unwrap_or_else(|e| panic!("the built-in yard does not compile: {e}"))
    })
    .clone()
}

/// The yard with a mirror in its east wall and a teleporter in its west wall that looks into a
/// green room far away (cell 1): the test scene of views through transformed portals, built in
/// code.
pub fn portals_scene() -> Level {
    build(true)
}

fn build(portals: bool) -> Level {
    let mut level = Level::default();
    level.materials = yard_materials();
    add_yard_surfaces(&mut level);
    level.cells.push(Cell {
        planes: box_planes(MIN, MAX),
        aabb: Aabb::new(MIN, MAX),
        medium: Medium::Air,
        flags: cell_flags::SKY_VISIBLE | cell_flags::OUTDOOR,
        portals: vec![],
        surfaces: (0..level.surfaces.len() as u32).collect(),
    });
    level.bsp = Bsp {
        nodes: vec![],
        leaves: vec![BspLeaf { cells: vec![0] }],
        root: Some(BspChild::Leaf(0)),
    };
    // A generated dusk skybox; the two-layer sky material is the fallback.
    level.sky = Some(Sky {
        material: Some(SKY),
        cubemap: Some("procedural:dusk".into()),
    });
    level.entities = yard_entities();
    let mut lights = yard_lights();
    if portals {
        add_mirror_and_teleporter(&mut level, &mut lights);
    }
    add_light_entities(&mut level, &lights);
    bake(
        &mut level,
        &lights,
        &BakeOptions {
            luxel_size: 8.0,
            ambient: 0.12,
        },
    );
    level
}

fn yard_materials() -> Vec<Material> {
    let generated = |name: &str| procedural(name).expect("a generator of compile::scene");
    let mut wall = generated("brick");
    wall.name = "wall".into();
    let mut sky = generated("sky");
    sky.name = "sky_builtin".into();
    sky.flags = material_flags::SKY;
    vec![generated("floor"), wall, generated("crate"), sky]
}

/// The yard's floor, sky and walls (surfaces 0 to 5), then the boxes' faces.
fn add_yard_surfaces(level: &mut Level) {
    for (q, m) in yard_faces(MIN, MAX) {
        level.surfaces.push(quad(q, m, &level.materials));
    }
    for (lo, hi, m) in BOXES {
        for q in box_faces(lo, hi) {
            level.surfaces.push(quad(q, m, &level.materials));
        }
    }
    level.surfaces[1].flags |= surface_flags::SKY;
}

/// The yard between `a` and `b`: floor and walls face inward; the ceiling is sky.
fn yard_faces(a: Vec3, b: Vec3) -> [([Vec3; 4], u32); 6] {
    [
        // floor (+Z)
        (
            [
                v3(a.x, a.y, a.z),
                v3(b.x, a.y, a.z),
                v3(b.x, b.y, a.z),
                v3(a.x, b.y, a.z),
            ],
            FLOOR,
        ),
        // sky (−Z)
        (
            [
                v3(a.x, a.y, b.z),
                v3(a.x, b.y, b.z),
                v3(b.x, b.y, b.z),
                v3(b.x, a.y, b.z),
            ],
            SKY,
        ),
        // walls: −X side faces +X, etc.
        (
            [
                v3(a.x, a.y, a.z),
                v3(a.x, b.y, a.z),
                v3(a.x, b.y, b.z),
                v3(a.x, a.y, b.z),
            ],
            WALL,
        ),
        (
            [
                v3(b.x, a.y, a.z),
                v3(b.x, a.y, b.z),
                v3(b.x, b.y, b.z),
                v3(b.x, b.y, a.z),
            ],
            WALL,
        ),
        (
            [
                v3(a.x, a.y, a.z),
                v3(a.x, a.y, b.z),
                v3(b.x, a.y, b.z),
                v3(b.x, a.y, a.z),
            ],
            WALL,
        ),
        (
            [
                v3(a.x, b.y, a.z),
                v3(b.x, b.y, a.z),
                v3(b.x, b.y, b.z),
                v3(a.x, b.y, b.z),
            ],
            WALL,
        ),
    ]
}

/// The six inward-facing planes of the box between `a` and `b`.
fn box_planes(a: Vec3, b: Vec3) -> Vec<Plane> {
    vec![
        Plane::new(Vec3::X, a.x),
        Plane::new(-Vec3::X, -b.x),
        Plane::new(Vec3::Y, a.y),
        Plane::new(-Vec3::Y, -b.y),
        Plane::new(Vec3::Z, a.z),
        Plane::new(-Vec3::Z, -b.z),
    ]
}

fn yard_entities() -> Vec<Entity> {
    vec![
        entity(&[
            ("classname", "worldspawn"),
            ("message", "Lanthorn built-in yard"),
        ]),
        entity(&[
            ("classname", "info_player_start"),
            ("origin", "-440 -300 0"),
            ("angle", "35"),
        ]),
    ]
}

fn yard_lights() -> Vec<PointLight> {
    vec![
        PointLight {
            position: Vec3::new(-200.0, 0.0, 260.0),
            radius: 700.0,
            color: Vec3::new(1.0, 0.9, 0.75),
        },
        PointLight {
            position: Vec3::new(300.0, 200.0, 200.0),
            radius: 500.0,
            color: Vec3::new(0.5, 0.6, 1.0),
        },
    ]
}

/// One `light` entity per baked light.
fn add_light_entities(level: &mut Level, lights: &[PointLight]) {
    for l in lights {
        let o = format!("{} {} {}", l.position.x, l.position.y, l.position.z);
        level.entities.push(entity(&[
            ("classname", "light"),
            ("origin", &o),
            ("light", "300"),
        ]));
    }
}

/// Mirror hole in the east wall (y, z ranges) and teleporter hole in the west wall.
pub const MIRROR: ([f32; 2], [f32; 2]) = ([-128.0, 128.0], [32.0, 224.0]);
pub const TELEPORTER: ([f32; 2], [f32; 2]) = ([-96.0, 96.0], [0.0, 192.0]);
/// The green room behind the teleporter: x, y, z ranges; its east wall (x = 2384) holds the
/// other end of the teleporter.
pub const ROOM: [[f32; 2]; 3] = [[2000.0, 2384.0], [-192.0, 192.0], [0.0, 256.0]];

/// Pieces of a wall rectangle `[u0,u1]×[v0,v1]` around a hole, through `at(u, v)`, wound like
/// `[at(u0,v0), at(u0,v1), at(u1,v1), at(u1,v0)]` (or reversed with `flip`).
fn wall_around_hole(
    at: &dyn Fn(f32, f32) -> Vec3,
    u: [f32; 2],
    v: [f32; 2],
    hu: [f32; 2],
    hv: [f32; 2],
    flip: bool,
) -> Vec<[Vec3; 4]> {
    let rect = |u0: f32, u1: f32, v0: f32, v1: f32| {
        let mut q = [at(u0, v0), at(u0, v1), at(u1, v1), at(u1, v0)];
        if flip {
            q.reverse();
        }
        q
    };
    let mut out = vec![rect(u[0], hu[0], v[0], v[1]), rect(hu[1], u[1], v[0], v[1])];
    if hv[0] > v[0] {
        out.push(rect(hu[0], hu[1], v[0], hv[0]));
    }
    if hv[1] < v[1] {
        out.push(rect(hu[0], hu[1], hv[1], v[1]));
    }
    out
}

fn add_mirror_and_teleporter(level: &mut Level, lights: &mut Vec<PointLight>) {
    cut_wall_holes(level);
    add_green_room(level);
    // Holes meet their neighbours in T-junctions: share the vertices.
    let all: Vec<u32> = (0..level.surfaces.len() as u32).collect();
    crate::level::tjunctions::repair_tjunctions(&mut level.surfaces, &all);
    add_mirror(level);
    add_teleporter(level);
    let (_, rb) = room_box();
    level.bsp = Bsp {
        nodes: vec![BspNode {
            plane: Plane::new(Vec3::X, 1000.0),
            children: [BspChild::Leaf(1), BspChild::Leaf(0)],
            aabb: Aabb::new(MIN, rb),
        }],
        leaves: vec![BspLeaf { cells: vec![0] }, BspLeaf { cells: vec![1] }],
        root: Some(BspChild::Node(0)),
    };
    // The green room's light.
    lights.push(PointLight {
        position: v3(2192.0, 0.0, 200.0),
        radius: 500.0,
        color: Vec3::new(1.0, 1.0, 1.0),
    });
}

/// The east wall (x = b.x, surface 3) gets the mirror's hole and the west wall (x = a.x,
/// surface 2) the teleporter's; the extra pieces around the holes join the yard cell.
fn cut_wall_holes(level: &mut Level) {
    let (a, b) = (MIN, MAX);
    let east = wall_around_hole(
        &|y, z| v3(b.x, y, z),
        [a.y, b.y],
        [a.z, b.z],
        MIRROR.0,
        MIRROR.1,
        false,
    );
    let west = wall_around_hole(
        &|y, z| v3(a.x, y, z),
        [a.y, b.y],
        [a.z, b.z],
        TELEPORTER.0,
        TELEPORTER.1,
        true,
    );
    let mut new_walls: Vec<Surface> = east
        .into_iter()
        .chain(west)
        .map(|q| quad(q, WALL, &level.materials))
        .collect();
    level.surfaces[3] = new_walls.remove(0);
    level.surfaces[2] = new_walls.remove(0);
    let first_new = level.surfaces.len() as u32;
    level.surfaces.extend(new_walls);
    level.cells[0]
        .surfaces
        .extend(first_new..level.surfaces.len() as u32);
}

/// The green room's corners.
fn room_box() -> (Vec3, Vec3) {
    let [rx, ry, rz] = ROOM;
    (v3(rx[0], ry[0], rz[0]), v3(rx[1], ry[1], rz[1]))
}

/// The green room, cell 1, with its own material.
fn add_green_room(level: &mut Level) {
    level.materials.push(Material {
        name: "green".into(),
        width: 64,
        height: 64,
        texels: None,
        fullbright: None,
        color: [0.15, 0.55, 0.2],
        flags: 0,
    });
    let green = level.materials.len() as u32 - 1;
    let (ra, rb) = room_box();
    let first_room = level.surfaces.len() as u32;
    for q in room_quads(ra, rb) {
        level.surfaces.push(quad(q, green, &level.materials));
    }
    let room_surfaces: Vec<u32> = (first_room..level.surfaces.len() as u32).collect();
    level.cells.push(Cell {
        planes: box_planes(ra, rb),
        aabb: Aabb::new(ra, rb),
        medium: Medium::Air,
        flags: 0,
        portals: vec![],
        surfaces: room_surfaces,
    });
}

/// The room's floor, ceiling and west, south and north walls, facing inward, then the pieces of
/// its east wall around the teleporter.
fn room_quads(ra: Vec3, rb: Vec3) -> Vec<[Vec3; 4]> {
    let mut quads = vec![
        [
            v3(ra.x, ra.y, ra.z),
            v3(rb.x, ra.y, ra.z),
            v3(rb.x, rb.y, ra.z),
            v3(ra.x, rb.y, ra.z),
        ],
        [
            v3(ra.x, ra.y, rb.z),
            v3(ra.x, rb.y, rb.z),
            v3(rb.x, rb.y, rb.z),
            v3(rb.x, ra.y, rb.z),
        ],
        [
            v3(ra.x, ra.y, ra.z),
            v3(ra.x, rb.y, ra.z),
            v3(ra.x, rb.y, rb.z),
            v3(ra.x, ra.y, rb.z),
        ],
        [
            v3(ra.x, ra.y, ra.z),
            v3(ra.x, ra.y, rb.z),
            v3(rb.x, ra.y, rb.z),
            v3(rb.x, ra.y, ra.z),
        ],
        [
            v3(ra.x, rb.y, ra.z),
            v3(rb.x, rb.y, ra.z),
            v3(rb.x, rb.y, rb.z),
            v3(ra.x, rb.y, rb.z),
        ],
    ];
    quads.extend(wall_around_hole(
        &|y, z| v3(rb.x, y, z),
        [ra.y, rb.y],
        [ra.z, rb.z],
        TELEPORTER.0,
        TELEPORTER.1,
        false,
    ));
    quads
}

/// A hole's rectangle in the wall at `x`: the polygon of the portal that fills it.
fn hole_polygon(x: f32, y: [f32; 2], z: [f32; 2]) -> Vec<Vec3> {
    vec![
        v3(x, y[0], z[0]),
        v3(x, y[1], z[0]),
        v3(x, y[1], z[1]),
        v3(x, y[0], z[1]),
    ]
}

/// Adds a portal and lists it in the cells on both its sides (once when they are the same).
fn link_portal(level: &mut Level, p: Portal) {
    let id = level.portals.len() as u32;
    level.cells[p.front as usize].portals.push(id);
    if p.back != p.front {
        level.cells[p.back as usize].portals.push(id);
    }
    level.portals.push(p);
}

/// Mirror: reflection across x = b.x; the yard on both sides.
fn add_mirror(level: &mut Level) {
    let b = MAX;
    let reflect = glam::Mat4::from_translation(v3(2.0 * b.x, 0.0, 0.0))
        * glam::Mat4::from_scale(v3(-1.0, 1.0, 1.0));
    link_portal(
        level,
        Portal {
            polygon: hole_polygon(b.x, MIRROR.0, MIRROR.1),
            plane: Plane::new(-Vec3::X, -b.x),
            front: 0,
            back: 0,
            transform: Some(reflect.to_cols_array()),
            flags: 0,
        },
    );
}

/// Teleporter: the room's east wall appears in the yard's west wall; one portal each way.
fn add_teleporter(level: &mut Level) {
    let a = MIN;
    let (_, rb) = room_box();
    let shift = rb.x - a.x;
    let to_yard = glam::Mat4::from_translation(v3(-shift, 0.0, 0.0));
    link_portal(
        level,
        Portal {
            polygon: hole_polygon(a.x, TELEPORTER.0, TELEPORTER.1),
            plane: Plane::new(Vec3::X, a.x),
            front: 0,
            back: 1,
            transform: Some(to_yard.to_cols_array()),
            flags: 0,
        },
    );
    link_portal(
        level,
        Portal {
            polygon: hole_polygon(rb.x, TELEPORTER.0, TELEPORTER.1),
            plane: Plane::new(-Vec3::X, -rb.x),
            front: 1,
            back: 0,
            transform: Some(to_yard.inverse().to_cols_array()),
            flags: 0,
        },
    );
}

fn v3(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

fn entity(pairs: &[(&str, &str)]) -> Entity {
    Entity {
        pairs: pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

/// The 5 visible faces of a box on the floor, facing outward, counter-clockwise from outside.
fn box_faces(a: Vec3, b: Vec3) -> [[Vec3; 4]; 5] {
    [
        [
            v3(a.x, a.y, b.z),
            v3(b.x, a.y, b.z),
            v3(b.x, b.y, b.z),
            v3(a.x, b.y, b.z),
        ],
        [
            v3(a.x, a.y, a.z),
            v3(a.x, a.y, b.z),
            v3(a.x, b.y, b.z),
            v3(a.x, b.y, a.z),
        ],
        [
            v3(b.x, a.y, a.z),
            v3(b.x, b.y, a.z),
            v3(b.x, b.y, b.z),
            v3(b.x, a.y, b.z),
        ],
        [
            v3(a.x, a.y, a.z),
            v3(b.x, a.y, a.z),
            v3(b.x, a.y, b.z),
            v3(a.x, a.y, b.z),
        ],
        [
            v3(a.x, b.y, a.z),
            v3(a.x, b.y, b.z),
            v3(b.x, b.y, b.z),
            v3(b.x, b.y, a.z),
        ],
    ]
}

/// A quad surface with Quake-style projected texture coordinates (1 texel = 1 unit).
fn quad(q: [Vec3; 4], material: u32, materials: &[Material]) -> Surface {
    let normal = (q[1] - q[0]).cross(q[2] - q[0]).normalize();
    let m = &materials[material as usize];
    let a = normal.abs();
    let (u, v) = if a.z >= a.x && a.z >= a.y {
        (Vec3::X, -Vec3::Y)
    } else if a.x >= a.y {
        (Vec3::Y, -Vec3::Z)
    } else {
        (Vec3::X, -Vec3::Z)
    };
    let vertices = q
        .iter()
        .map(|&p| Vertex {
            position: p,
            uv: Vec2::new(p.dot(u) / m.width as f32, p.dot(v) / m.height as f32),
            lightmap_uv: Vec2::ZERO,
        })
        .collect();
    Surface {
        vertices,
        indices: vec![0, 1, 2, 0, 2, 3],
        normal,
        material,
        lightmap: None,
        styles: Default::default(),
        flags: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Area of a surface's triangles.
    fn area(s: &Surface) -> f32 {
        s.indices
            .chunks(3)
            .map(|t| {
                let p = |i: u32| s.vertices[i as usize].position;
                (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0])).length() * 0.5
            })
            .sum()
    }

    /// The luxel (red + green) of the floor at `p` (z = 0): the lightmap coordinate
    /// interpolated in the floor triangle holding `p`.
    fn floor_light(level: &Level, p: Vec3) -> u32 {
        for s in level.surfaces.iter().filter(|s| s.normal.z > 0.999) {
            let Some(rect) = s.lightmap else { continue };
            for t in s.indices.chunks(3) {
                let v = |i: usize| &s.vertices[t[i] as usize];
                let (a, b, c) = (v(0).position, v(1).position, v(2).position);
                if a.z.abs() > 1e-3 {
                    continue;
                }
                let d = (b - a).cross(c - a).z;
                let wb = (p - a).cross(c - a).z / d;
                let wc = (b - a).cross(p - a).z / d;
                let wa = 1.0 - wb - wc;
                if wa < 0.0 || wb < 0.0 || wc < 0.0 {
                    continue;
                }
                let uv = v(0).lightmap_uv * wa + v(1).lightmap_uv * wb + v(2).lightmap_uv * wc;
                let (x, y) = (rect.x + uv.x as u32, rect.y + uv.y as u32);
                let i = ((y * level.lightmaps.width + x) * 3) as usize;
                return level.lightmaps.texels[i] as u32 + level.lightmaps.texels[i + 1] as u32;
            }
        }
        panic!("no floor at {p}");
    }

    /// The compiled `builtin.ron` is the yard of `MIN`, `MAX` and `BOXES` (the hand-built
    /// yard's constants): open where the yard is, solid in every box; per material, the
    /// surfaces' area is the analytic area of the floor, walls, boxes and open sky; it is lit.
    #[test]
    fn the_compiled_yard_is_the_yard() {
        let level = scene();
        crate::level::file::validate(&level).unwrap();
        let open = |p: Vec3| {
            level
                .locate(p)
                .is_some_and(|c| level.cells[c as usize].contains(p, 0.01))
        };
        assert!(open(Vec3::new(0.0, 0.0, 200.0)) && open(Vec3::new(-500.0, 370.0, 10.0)));
        let mut areas = std::collections::HashMap::<&str, f32>::new();
        let (size, h) = (MAX - MIN, MAX.z - MIN.z);
        let mut floor = size.x * size.y;
        let mut wall = 2.0 * (size.x + size.y) * h;
        let mut boxes = 0.0;
        for (lo, hi, m) in BOXES {
            assert!(!open((lo + hi) * 0.5), "box {lo}..{hi} is not solid");
            let d = hi - lo;
            floor -= d.x * d.y;
            let faces = d.x * d.y + 2.0 * (d.x + d.y) * d.z;
            if m == WALL {
                wall += faces;
            } else {
                boxes += faces;
            }
        }
        for s in &level.surfaces {
            *areas
                .entry(level.materials[s.material as usize].name.as_str())
                .or_default() += area(s);
        }
        let close = |name: &str, want: f32| {
            let got = areas.get(name).copied().unwrap_or(0.0);
            assert!((got - want).abs() < 0.5, "{name}: {got} (expected {want})");
        };
        close("floor", floor);
        close("wall", wall);
        close("crate", boxes);
        close("sky", size.x * size.y);
        assert_eq!(areas.len(), 4, "{areas:?}");
        for m in &level.materials {
            assert!(m.texels.is_some(), "{} has no texels", m.name);
        }
        let sky = level.sky.as_ref().unwrap();
        assert_eq!(sky.cubemap.as_deref(), Some("procedural:dusk"));
        let sky_material = &level.materials[sky.material.unwrap() as usize];
        assert_eq!(
            sky_material.flags & material_flags::SKY,
            material_flags::SKY
        );
        assert!(level
            .cells
            .iter()
            .all(|c| c.flags & cell_flags::OUTDOOR != 0));
        // The floor under the main light is brighter than the floor in the tall pillar's
        // shadow (−320..−256, 128..192, 224 high, seen from the light at (−200, 0, 260)).
        let lit = floor_light(&level, Vec3::new(-200.0, -200.0, 0.0));
        let shadow = floor_light(&level, Vec3::new(-300.0, 250.0, 0.0));
        assert!(lit > shadow + 20, "lit {lit} vs shadow {shadow}");
        assert!(level.player_start().is_some());
    }
}
