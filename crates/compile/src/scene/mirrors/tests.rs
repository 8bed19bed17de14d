//! Mirrors and teleporters against analytic answers: the transforms carry the faces' corners
//! where geometry says, surfaces and portals tile each wall exactly (area sums), the flow sees
//! through them what a camera should, and bad markers are one clear error each.

use glam::{Mat4, Vec3};

use super::super::{compile_scene, parse, SceneError};
use crate::CompileOptions;
use lanthorn_geom::{Camera, CameraSpec};
use lanthorn_level::{Level, Portal};
use lanthorn_vis::{CullMode, Culler, VisibleSet};

/// Room A (0..512)² × 0..256 with a mirror in its east wall (x = 512) and a teleporter in its
/// west wall (x = 0) to the north wall (y = 2512) of room B, far away and not joined to A.
/// `{A}` and `{B}` are extra operations (pillars that split the rooms into several cells).
const ROOMS: &str = r#"Scene(
    ops: [
        (brush: Box(min: (0, 0, 0), max: (512, 512, 256)), medium: Air, material: Some("stone")),
        (brush: Box(min: (2000, 2000, 0), max: (2512, 2512, 256)), medium: Air, material: Some("green")),
        {A}{B}
    ],
    mirrors: [Box(min: (504, 128, 32), max: (520, 384, 224))],
    teleporters: [(
        from: Box(min: (-8, 128, 0), max: (8, 384, 192)),
        to: Box(min: (2128, 2504, 0), max: (2384, 2520, 192)),
    )],
)"#;

/// Pillars in both rooms, near the marked walls but clear of the test cameras' views of them,
/// so that the marked walls may span several cells, cut where the two faces do not line up.
const PILLAR_A: &str =
    "(brush: Box(min: (60, 150, 0), max: (100, 200, 256)), medium: Solid, material: Some(\"p\")),";
const PILLAR_B: &str =
    "(brush: Box(min: (2300, 2440, 0), max: (2340, 2480, 256)), medium: Solid, material: Some(\"p\")),";

fn scene_text(pillars: bool) -> String {
    let (a, b) = if pillars {
        (PILLAR_A, PILLAR_B)
    } else {
        ("", "")
    };
    ROOMS.replace("{A}", a).replace("{B}", b)
}

fn compile(text: &str) -> Result<Level, SceneError> {
    let options = CompileOptions {
        light: false,
        ..Default::default()
    };
    compile_scene(&parse(text)?, &options).map(|(level, _)| level)
}

fn transform(p: &Portal) -> Mat4 {
    Mat4::from_cols_array(&p.transform.expect("a transformed portal"))
}

/// The portals on the plane with inward normal `n` through `point`.
fn portals_on(level: &Level, n: Vec3, point: Vec3) -> Vec<&Portal> {
    level
        .portals
        .iter()
        .filter(|p| p.plane.normal.dot(n) > 0.9999 && p.plane.distance(point).abs() < 0.01)
        .collect()
}

fn polygon_area(points: &[Vec3]) -> f32 {
    let mut a = Vec3::ZERO;
    for k in 1..points.len().saturating_sub(1) {
        a += (points[k] - points[0]).cross(points[k + 1] - points[0]);
    }
    a.length() * 0.5
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).abs().max_element() < 0.01
}

#[test]
fn teleporter_carries_the_to_face_onto_the_from_face() {
    for pillars in [false, true] {
        let level = compile(&scene_text(pillars)).unwrap();
        crate::map::tests::check_portals_and_locate(&level);
        let from = portals_on(&level, Vec3::X, Vec3::ZERO);
        let to = portals_on(&level, -Vec3::Y, Vec3::new(0.0, 2512.0, 0.0));
        assert!(
            !from.is_empty() && from.len() == to.len(),
            "pillars {pillars}"
        );
        eprintln!(
            "pillars {pillars}: the teleporter is {} portal pairs",
            from.len()
        );
        // By hand: looking into B through its north wall (facing −y), its west end x = 2128 is
        // on the right; looking through A's west wall (facing −x) the right is +y. So the
        // corner (2128, 2512, z) goes to (0, 384, z) and (2384, 2512, z) to (0, 128, z); the
        // normal into B (−y) becomes the direction into the wall behind A's face (−x).
        let pairs = [
            (Vec3::new(2128.0, 2512.0, 0.0), Vec3::new(0.0, 384.0, 0.0)),
            (Vec3::new(2384.0, 2512.0, 0.0), Vec3::new(0.0, 128.0, 0.0)),
            (
                Vec3::new(2384.0, 2512.0, 192.0),
                Vec3::new(0.0, 128.0, 192.0),
            ),
            (
                Vec3::new(2128.0, 2512.0, 192.0),
                Vec3::new(0.0, 384.0, 192.0),
            ),
            // 112 units in front of B's face, 112 units behind A's.
            (
                Vec3::new(2256.0, 2400.0, 96.0),
                Vec3::new(-112.0, 256.0, 96.0),
            ),
        ];
        for p in &from {
            let m = transform(p);
            assert!(m.determinant() > 0.0, "a teleporter does not mirror");
            for (b, a) in pairs {
                assert!(
                    close(m.transform_point3(b), a),
                    "{b} ↦ {}",
                    m.transform_point3(b)
                );
            }
            assert!(close(m.transform_vector3(-Vec3::Y), -Vec3::X));
            assert!(close(m.transform_vector3(Vec3::Z), Vec3::Z));
        }
        for p in &to {
            let m = transform(p);
            for (b, a) in pairs {
                assert!(
                    close(m.transform_point3(a), b),
                    "{a} ↦ {}",
                    m.transform_point3(a)
                );
            }
        }
        // Each pair of parts joins the cells the parts lie in, both ways.
        let a = |p: Vec3| level.locate(p).unwrap();
        for p in &from {
            let c = p.polygon.iter().sum::<Vec3>() / p.polygon.len() as f32;
            assert_eq!(p.front, a(c + Vec3::X));
            assert_eq!(
                p.back,
                a(transform(p).inverse().transform_point3(c - Vec3::X))
            );
        }
        let area = |ps: &[&Portal]| ps.iter().map(|p| polygon_area(&p.polygon)).sum::<f32>();
        assert!((area(&from) - 256.0 * 192.0).abs() < 0.5, "{}", area(&from));
        assert!((area(&to) - 256.0 * 192.0).abs() < 0.5, "{}", area(&to));
    }
}

#[test]
fn mirror_reflects_across_its_face() {
    for pillars in [false, true] {
        let level = compile(&scene_text(pillars)).unwrap();
        let mirrors = portals_on(&level, -Vec3::X, Vec3::new(512.0, 0.0, 0.0));
        assert!(!mirrors.is_empty());
        for p in &mirrors {
            let m = transform(p);
            assert!(m.determinant() < 0.0, "a mirror mirrors");
            assert_eq!(p.front, p.back);
            let c = p.polygon.iter().sum::<Vec3>() / p.polygon.len() as f32;
            assert_eq!(Some(p.front), level.locate(c - Vec3::X));
            assert_eq!(
                level.cells[p.front as usize]
                    .portals
                    .iter()
                    .filter(|&&i| std::ptr::eq(&level.portals[i as usize], *p))
                    .count(),
                1,
                "listed once in its cell"
            );
            // Points of the face's plane stay; the normal flips; across the plane by distance.
            for q in [
                Vec3::new(512.0, 128.0, 32.0),
                Vec3::new(512.0, 384.0, 224.0),
                Vec3::new(512.0, -1000.0, 7.0),
            ] {
                assert!(close(m.transform_point3(q), q));
            }
            assert!(close(m.transform_vector3(-Vec3::X), Vec3::X));
            assert!(close(m.transform_vector3(Vec3::Y), Vec3::Y));
            assert!(close(
                m.transform_point3(Vec3::new(400.0, 200.0, 100.0)),
                Vec3::new(624.0, 200.0, 100.0)
            ));
        }
        let area: f32 = mirrors.iter().map(|p| polygon_area(&p.polygon)).sum();
        assert!((area - 256.0 * 192.0).abs() < 0.5, "{area}");
    }
}

/// The area of the level's surfaces on the plane with inward normal `n` through `point`, and
/// whether a surface triangle's centre lies inside `hole` (a box).
fn surface_area_on(level: &Level, n: Vec3, point: Vec3, hole: (Vec3, Vec3)) -> (f32, bool) {
    let (mut area, mut in_hole) = (0.0, false);
    for s in &level.surfaces {
        if s.normal.dot(n) < 0.9999 {
            continue;
        }
        for t in s.indices.chunks(3) {
            let v = |i: u32| s.vertices[i as usize].position;
            let (a, b, c) = (v(t[0]), v(t[1]), v(t[2]));
            if (a - point).dot(n).abs() > 0.01 {
                break;
            }
            area += (b - a).cross(c - a).length() * 0.5;
            let centre = (a + b + c) / 3.0;
            in_hole |= centre.cmpgt(hole.0).all() && centre.cmplt(hole.1).all();
        }
    }
    (area, in_hole)
}

#[test]
fn surfaces_and_portals_tile_each_wall() {
    let wall = 512.0 * 256.0;
    let hole = 256.0 * 192.0;
    for pillars in [false, true] {
        let level = compile(&scene_text(pillars)).unwrap();
        // (inward normal, a point of the wall, the hole's box, the wall's area without pillars)
        let walls = [
            (
                -Vec3::X,
                Vec3::new(512.0, 0.0, 0.0),
                (504.0, 128.0, 32.0),
                (520.0, 384.0, 224.0),
            ),
            (Vec3::X, Vec3::ZERO, (-8.0, 128.0, 0.0), (8.0, 384.0, 192.0)),
            (
                -Vec3::Y,
                Vec3::new(0.0, 2512.0, 0.0),
                (2128.0, 2504.0, 0.0),
                (2384.0, 2520.0, 192.0),
            ),
        ];
        for (n, point, lo, hi) in walls {
            let hole_box = (Vec3::from(lo), Vec3::from(hi));
            let (surfaces, in_hole) = surface_area_on(&level, n, point, hole_box);
            let portals: f32 = portals_on(&level, n, point)
                .iter()
                .map(|p| polygon_area(&p.polygon))
                .sum();
            assert!((portals - hole).abs() < 0.5, "wall {n}: portals {portals}");
            assert!(
                (surfaces + portals - wall).abs() < 1.0,
                "wall {n}: surfaces {surfaces} + portals {portals} ≠ {wall}"
            );
            assert!(!in_hole, "wall {n}: a surface inside the hole");
        }
        // The floor under the teleporter's box (which only touches it) keeps its surfaces;
        // with pillars, less their footprint.
        let footprint = if pillars { 40.0 * 50.0 } else { 0.0 };
        let none = (Vec3::ZERO, Vec3::ZERO);
        let (floor, _) = surface_area_on(&level, Vec3::Z, Vec3::ZERO, none);
        let rooms = 2.0 * 512.0 * 512.0 - footprint - if pillars { 40.0 * 40.0 } else { 0.0 };
        assert!((floor - rooms).abs() < 1.0, "floor {floor} vs {rooms}");
    }
}

fn cull(level: &Level, position: Vec3, yaw: f32) -> VisibleSet {
    let cam = Camera::new(
        CameraSpec {
            position,
            yaw,
            pitch: 0.0,
        },
        16.0 / 9.0,
    );
    let mut vis = VisibleSet::default();
    Culler::new(level, CullMode::Portal).cull(level, &cam, &mut vis);
    vis
}

/// The flow through them: facing the mirror, a mirrored view from the reflected eye that sees
/// room A again; facing the teleporter, a view from the eye carried behind B's wall that sees
/// B; facing neither, no view and no B; from B, A through the way back. The eyes are
/// worked out by hand.
#[test]
fn the_flow_sees_through_mirror_and_teleporter() {
    for pillars in [false, true] {
        let level = compile(&scene_text(pillars)).unwrap();
        let cells_of = |vis: &VisibleSet, view: Option<u32>| -> Vec<u32> {
            let mut v: Vec<u32> = vis
                .cells
                .iter()
                .filter(|c| view.is_none_or(|w| c.view == w))
                .map(|c| c.cell)
                .collect();
            v.sort();
            v.dedup();
            v
        };
        let room_b = level.locate(Vec3::new(2100.0, 2100.0, 100.0)).unwrap();
        let room_a = level.locate(Vec3::new(400.0, 256.0, 100.0)).unwrap();
        let eye = Vec3::new(256.0, 256.0, 100.0);

        // Facing the mirror: the reflected eye (x 256 → 768), and in the mirror the west wall's
        // teleporter, whose view's eye is the reflected eye carried behind B's face (768 in
        // front of A's face, centred → 768 behind B's). Both views are mirrored.
        let east = cull(&level, eye, 0.0);
        let reflected = Vec3::new(768.0, 256.0, 100.0);
        let carried = Vec3::new(2256.0, 2512.0 + 768.0, 100.0);
        assert!(!east.views.is_empty() && east.views.iter().all(|v| v.mirrored));
        assert!(close(east.views[0].eye, reflected), "{}", east.views[0].eye);
        for (i, v) in east.views.iter().enumerate() {
            let view = i as u32 + 1;
            if close(v.eye, reflected) {
                assert!(cells_of(&east, Some(view)).contains(&room_a));
                assert!(!cells_of(&east, Some(view)).contains(&room_b));
            } else {
                assert!(close(v.eye, carried), "{}", v.eye);
            }
        }
        assert!(!cells_of(&east, Some(0)).contains(&room_b));

        let west = cull(&level, eye, 180.0);
        assert!(!west.views.is_empty() && west.views.iter().all(|v| !v.mirrored));
        for v in &west.views {
            // 256 units in front of A's face, centred: 256 units behind B's, centred.
            assert!(close(v.eye, Vec3::new(2256.0, 2768.0, 100.0)), "{}", v.eye);
        }
        assert!(west.cells.iter().any(|c| c.cell == room_b && c.view > 0));

        let north = cull(&level, eye, 90.0);
        assert!(north.views.is_empty());
        assert!(!cells_of(&north, None).contains(&room_b));

        let from_b = cull(&level, Vec3::new(2256.0, 2200.0, 100.0), 90.0);
        // 312 units in front of B's face, centred → 312 behind A's; through it A's east wall,
        // whose mirror opens a mirrored view in turn.
        assert!(!from_b.views.is_empty() && !from_b.views[0].mirrored);
        let v = from_b.views[0].eye;
        assert!(close(v, Vec3::new(-312.0, 256.0, 100.0)), "{v}");
        assert!(cells_of(&from_b, Some(1)).contains(&room_a));
        assert!(!cells_of(&from_b, Some(0)).contains(&room_a));
    }
}

/// Each bad marker is one error naming the marker and what is wrong.
#[test]
fn bad_mirrors_and_teleporters_are_one_clear_error() {
    let with = |mirrors: &str, teleporters: &str| {
        let text = ROOMS.replace("{A}", "").replace("{B}", "");
        let start = text.find("    mirrors:").unwrap();
        format!(
            "{}    mirrors: [{mirrors}],\n    teleporters: [{teleporters}],\n)",
            &text[..start]
        )
    };
    let good_from = "from: Box(min: (-8, 128, 0), max: (8, 384, 192))";
    let err = |text: String| compile(&text).unwrap_err().to_string();
    let no_wall = "the brush meets no wall face: it must cross the plane of a wall of an open \
                   cell (where solid meets air or a liquid) and hold part of that wall";
    assert_eq!(
        err(with("Box(min: (200, 200, 100), max: (300, 300, 150))", "")),
        format!("mirrors[0]: {no_wall}")
    );
    let corner = err(with("Box(min: (500, -8, 100), max: (520, 8, 150))", ""));
    assert!(
        corner.starts_with("mirrors[0]: the brush meets wall faces on 2 planes (")
            && corner.contains("x = 512, facing -x")
            && corner.contains("y = 0, facing +y")
            && corner.ends_with("): make it cross one wall only"),
        "{corner}"
    );
    assert_eq!(
        err(with(
            "",
            &format!("({good_from}, to: Box(min: (2128, 2504, 0), max: (2448, 2520, 192)))")
        )),
        "teleporters[0]: the faces differ in size: `from` is 256 × 192 units, `to` is \
         320 × 192; a teleporter joins two faces of the same size"
    );
    assert_eq!(
        err(with(
            "",
            &format!("({good_from}, to: Box(min: (3000, 0, 0), max: (3100, 100, 100)))")
        )),
        format!("teleporters[0].to: {no_wall}")
    );
    assert_eq!(
        err(with(
            "Box(min: (-8, 300, 100), max: (8, 400, 150))",
            &format!("({good_from}, to: Box(min: (2128, 2504, 0), max: (2384, 2520, 192)))")
        )),
        "teleporters[0].from: the brush overlaps mirrors[0] on the same wall"
    );
    assert_eq!(
        err(with("Box(min: (600, 0, 0), max: (500, 10, 10))", "")),
        "mirrors[0]: the brush is empty, unbounded or not finite"
    );
    // A misspelt field is refused by its name.
    let e = err(with(
        "",
        &format!("({good_from}, too: Box(min: (0,0,0), max: (1,1,1)))"),
    ));
    assert!(e.contains("`too`"), "{e}");
}

/// Through the file front end the error names the scene file first.
#[test]
fn a_bad_mirror_names_the_scene_file() {
    let dir = std::env::temp_dir().join(format!("lanthorn-mirror-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("hall.ron");
    let text = scene_text(false)
        .replace("(504, 128, 32)", "(404, 128, 32)")
        .replace("(520, 384, 224)", "(420, 384, 224)");
    std::fs::write(&path, text).unwrap();
    let options = CompileOptions {
        light: false,
        ..Default::default()
    };
    let e = crate::compile(&path, &options).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "{}: mirrors[0]: the brush meets no wall face",
            path.display()
        )),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
