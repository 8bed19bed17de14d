//! The built-in levels: the yard (`builtin`), a walled yard with an open sky, a floor and lit
//! boxes, and its portal variant (`builtin:portals`), the yard with a mirror, a teleporter and
//! the room it leads to. Both are scenes, `assets/levels/builtin.ron` and
//! `assets/levels/portals.ron`, compiled into the program and compiled by the scene compiler
//! when they are loaded; their textures are generated (`compile::scene::procedural`), so the
//! demo runs with no data files. The constants here are the scenes' coordinates, which the
//! tests check against the compiled levels.

use glam::Vec3;

use super::embedded;
use crate::{CompileError, CompileOptions};
use lanthorn_level::Level;

/// The yard's least corner.
pub const MIN: Vec3 = Vec3::new(-512.0, -384.0, 0.0);
/// Its greatest corner.
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

/// Mirror in the east wall (x = `MAX.x`): its y and z ranges.
pub const MIRROR: ([f32; 2], [f32; 2]) = ([-128.0, 128.0], [32.0, 224.0]);
/// Teleporter in the west wall (x = `MIN.x`): its y and z ranges; the same rectangle of the
/// green room's east wall is its other end.
pub const TELEPORTER: ([f32; 2], [f32; 2]) = ([-96.0, 96.0], [0.0, 192.0]);
/// The green room behind the teleporter: x, y, z ranges; its east wall (x = 2384) holds the
/// other end of the teleporter.
pub const ROOM: [[f32; 2]; 3] = [[2000.0, 2384.0], [-192.0, 192.0], [0.0, 256.0]];

/// The embedded scene `levels/NAME`, compiled (light baked from its entities, a luxel every 8
/// units as the yard always had).
fn compile(name: &str) -> Result<Level, CompileError> {
    let options = CompileOptions {
        luxel_size: 8.0,
        ..Default::default()
    };
    Ok(embedded::compile(name, &options)?.0)
}

/// The yard compiled from `assets/levels/builtin.ron`.
pub fn load() -> Result<Level, CompileError> {
    compile("builtin.ron")
}

/// The portal yard compiled from `assets/levels/portals.ron`.
pub fn load_portals() -> Result<Level, CompileError> {
    compile("portals.ron")
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
/// green room far away: the test scene of views through transformed portals (`load_portals`,
/// compiled once per process).
pub fn portals_scene() -> Level {
    static PORTALS: std::sync::OnceLock<Level> = std::sync::OnceLock::new();
    PORTALS
        .get_or_init(|| {
            load_portals()
                .unwrap_or_else(|e| panic!("the built-in portal yard does not compile: {e}"))
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Mat4;
    use lanthorn_level::{cell_flags, material_flags, Portal, Surface};

    /// The wall boxes' material in `BOXES`.
    const WALL: u32 = 1;

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

    /// The yard's analytic areas from `MIN`, `MAX` and `BOXES`: (floor, walls and brick
    /// pillar, crates, open sky).
    fn yard_areas() -> (f32, f32, f32, f32) {
        let (size, h) = (MAX - MIN, MAX.z - MIN.z);
        let mut floor = size.x * size.y;
        let mut wall = 2.0 * (size.x + size.y) * h;
        let mut boxes = 0.0;
        for (lo, hi, m) in BOXES {
            let d = hi - lo;
            floor -= d.x * d.y;
            let faces = d.x * d.y + 2.0 * (d.x + d.y) * d.z;
            if m == WALL {
                wall += faces;
            } else {
                boxes += faces;
            }
        }
        (floor, wall, boxes, size.x * size.y)
    }

    /// The area of the level's surfaces per material name.
    fn areas_by_material(level: &Level) -> std::collections::HashMap<&str, f32> {
        let mut areas = std::collections::HashMap::<&str, f32>::new();
        for s in &level.surfaces {
            *areas
                .entry(level.materials[s.material as usize].name.as_str())
                .or_default() += area(s);
        }
        areas
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
        lanthorn_level::file::validate(&level).unwrap();
        let open = |p: Vec3| {
            level
                .locate(p)
                .is_some_and(|c| level.cells[c as usize].contains(p, 0.01))
        };
        assert!(open(Vec3::new(0.0, 0.0, 200.0)) && open(Vec3::new(-500.0, 370.0, 10.0)));
        for (lo, hi, _) in BOXES {
            assert!(!open((lo + hi) * 0.5), "box {lo}..{hi} is not solid");
        }
        let areas = areas_by_material(&level);
        let (floor, wall, boxes, sky) = yard_areas();
        let close = |name: &str, want: f32| {
            let got = areas.get(name).copied().unwrap_or(0.0);
            assert!((got - want).abs() < 0.5, "{name}: {got} (expected {want})");
        };
        close("floor", floor);
        close("wall", wall);
        close("crate", boxes);
        close("sky", sky);
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

    /// A transformed portal's matrix.
    fn transform(p: &Portal) -> Option<Mat4> {
        p.transform.map(|m| Mat4::from_cols_array(&m))
    }

    /// Whether every vertex of `p` lies on x = `x` inside the rectangle `(y, z)`.
    fn fills(p: &Portal, x: f32, (y, z): ([f32; 2], [f32; 2])) -> bool {
        p.polygon.iter().all(|v| {
            (v.x - x).abs() < 1e-3
                && (y[0] - 1e-3..=y[1] + 1e-3).contains(&v.y)
                && (z[0] - 1e-3..=z[1] + 1e-3).contains(&v.z)
        })
    }

    fn polygon_area(points: &[Vec3]) -> f32 {
        let mut a = Vec3::ZERO;
        for k in 1..points.len() - 1 {
            a += (points[k] - points[0]).cross(points[k + 1] - points[0]);
        }
        a.length() * 0.5
    }

    /// The compiled `portals.ron` is the yard with the hand-built portal yard's pieces
    /// (`MIRROR`, `TELEPORTER`, `ROOM`): the mirror fills its rectangle of the east wall and
    /// reflects across it; the teleporter fills its rectangle of the west wall and of the
    /// room's east wall, each way the translation between them (the hand-built transforms);
    /// the room is an indoor cell that only the teleporter reaches; per material, the areas
    /// are the yard's less the two holes, and the room's box less its hole.
    #[test]
    fn the_compiled_portal_yard_is_the_portal_yard() {
        let level = portals_scene();
        lanthorn_level::file::validate(&level).unwrap();
        let rect = |r: ([f32; 2], [f32; 2])| (r.0[1] - r.0[0]) * (r.1[1] - r.1[0]);
        let kind = |reflects: bool| -> Vec<&Portal> {
            let det = |p: &&Portal| transform(p).map(|m| m.determinant() < 0.0);
            level
                .portals
                .iter()
                .filter(|p| det(p) == Some(reflects))
                .collect()
        };
        let reflect = Mat4::from_translation(Vec3::new(2.0 * MAX.x, 0.0, 0.0))
            * Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
        let mirrors = kind(true);
        for p in &mirrors {
            assert!(transform(p).unwrap().abs_diff_eq(reflect, 1e-4));
            assert!(fills(p, MAX.x, MIRROR) && p.front == p.back);
            assert!(p.plane.normal.abs_diff_eq(-Vec3::X, 1e-6));
        }
        let sum = |ps: &[&Portal]| ps.iter().map(|p| polygon_area(&p.polygon)).sum::<f32>();
        assert!((sum(&mirrors) - rect(MIRROR)).abs() < 0.5);
        let [rx, ry, rz] = ROOM;
        let room = level.locate(Vec3::new(rx[0] + 1.0, ry[0] + 1.0, rz[0] + 1.0));
        let room = room.expect("the green room is open");
        let cell = &level.cells[room as usize];
        assert_eq!(cell.flags & cell_flags::OUTDOOR, 0);
        let to_yard = Mat4::from_translation(Vec3::new(MIN.x - rx[1], 0.0, 0.0));
        let (from, to): (Vec<&Portal>, Vec<&Portal>) =
            kind(false).into_iter().partition(|p| p.back == room);
        for p in &from {
            assert!(transform(p).unwrap().abs_diff_eq(to_yard, 1e-3));
            assert!(fills(p, MIN.x, TELEPORTER));
        }
        for p in &to {
            assert!(transform(p).unwrap().abs_diff_eq(to_yard.inverse(), 1e-3));
            assert!(fills(p, rx[1], TELEPORTER) && p.front == room);
        }
        assert!((sum(&from) - rect(TELEPORTER)).abs() < 0.5);
        assert!((sum(&to) - rect(TELEPORTER)).abs() < 0.5);
        assert!(cell
            .portals
            .iter()
            .all(|&i| level.portals[i as usize].transform.is_some()));
        let areas = areas_by_material(&level);
        let (floor, wall, boxes, sky) = yard_areas();
        let (w, d, h) = (rx[1] - rx[0], ry[1] - ry[0], rz[1] - rz[0]);
        let green = 2.0 * w * d + 2.0 * (w + d) * h - rect(TELEPORTER);
        let want = [
            ("floor", floor),
            ("wall", wall - rect(MIRROR) - rect(TELEPORTER)),
            ("crate", boxes),
            ("sky", sky),
            ("green", green),
        ];
        for (name, want) in want {
            let got = areas.get(name).copied().unwrap_or(0.0);
            assert!((got - want).abs() < 0.5, "{name}: {got} (expected {want})");
        }
        assert_eq!(areas.len(), want.len(), "{areas:?}");
        assert_eq!(
            level.materials[level.surfaces[cell.surfaces[0] as usize].material as usize].color,
            [0.15, 0.55, 0.2]
        );
    }
}
