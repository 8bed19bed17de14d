use super::scene_file::brush_planes;
use super::*;
use lanthorn_geom::DPlane;
use lanthorn_level::*;

pub(crate) const EXAMPLE: &str = r#"Scene(
ops: [
    // Carve a hall and a side room out of solid space.
    (brush: Box(min: (0, 0, 0), max: (1024, 512, 256)), medium: Air, material: Some("stone")),
    (brush: Box(min: (1024, 128, 0), max: (1280, 384, 128)), medium: Air),
    // A pillar back into the hall.
    (brush: Box(min: (200, 200, 0), max: (264, 264, 256)), medium: Solid, material: Some("pillar")),
    // Flood the low part of the hall, but only where it is air (the pillar stays solid).
    (brush: Box(min: (0, 0, 0), max: (600, 512, 48)), medium: Water, only: Some([Air]), material: Some("*water")),
    // A slanted cut: a ramp of solid in the side room.
    (brush: Planes([
        (normal: (0, 0, -1), dist: 0), (normal: (-1, 0, 0), dist: -1024), (normal: (1, 0, 0), dist: 1280),
        (normal: (0, -1, 0), dist: -128), (normal: (0, 1, 0), dist: 384), (normal: (-1, 0, 2), dist: -1100),
    ]), medium: Solid),
],
entities: [
    [("classname", "info_player_start"), ("origin", "64 64 100")],
    [("classname", "light"), ("origin", "512 256 200"), ("light", "300")],
],
sky: Some("day"),
terrain: Some((heightmap: "procedural:512", origin: (0, 0, -64), horizontal_scale: 8, vertical_scale: 1)),
outdoor: [Box(min: (1024, 128, 0), max: (1280, 384, 128))],
)"#;

#[test]
fn example_scene_compiles() {
    let scene = parse(EXAMPLE).unwrap();
    let (level, stats) = compile_scene(&scene, &CompileOptions::default()).unwrap();
    assert_eq!(stats.failed_brushes, 0);
    lanthorn_level::file::validate(&level).unwrap();
    eprintln!(
        "example scene: {} cells, {} portals, {} surfaces",
        stats.cells, stats.portals, stats.surfaces
    );
    // Oracle: the point-wise ordered application.
    let ops = oracle_ops(&scene);
    for p in [
        DVec3::new(100.0, 100.0, 20.0),
        DVec3::new(100.0, 100.0, 100.0),
        DVec3::new(230.0, 230.0, 20.0),
        DVec3::new(1100.0, 200.0, 100.0),
        DVec3::new(1250.0, 200.0, 20.0),
    ] {
        let m = csg::medium_at(&ops, p);
        let cell = level
            .locate(p.as_vec3())
            .filter(|&c| level.cells[c as usize].contains(p.as_vec3(), 0.01));
        match cell {
            Some(c) => assert_eq!(level.cells[c as usize].medium, m, "at {p}"),
            None => assert_eq!(m, Medium::Solid, "at {p}"),
        }
    }
    assert!(level
        .cells
        .iter()
        .any(|c| c.flags & cell_flags::OUTDOOR != 0));
    assert!(level
        .portals
        .iter()
        .any(|p| p.flags & portal_flags::LIQUID_SURFACE != 0));
    assert!(level
        .surfaces
        .iter()
        .any(|s| s.flags & surface_flags::LIQUID != 0));
    assert_eq!(level.terrain.as_ref().unwrap().heightmap, "procedural:512");
    crate::map::tests::check_portals_and_locate(&level);
    // T-junctions repaired over all surfaces.
    assert_eq!(
        lanthorn_level::tjunctions::find_tjunction(
            &level.surfaces.iter().collect::<Vec<_>>(),
            0.02
        ),
        None
    );
}

/// The scene's operations for the point-wise oracle (`csg::written_at`).
fn oracle_ops(scene: &Scene) -> Vec<Op> {
    scene
        .ops
        .iter()
        .map(|o| Op {
            planes: brush_planes(&o.brush),
            medium: o.medium.medium(),
            only: o
                .only
                .as_ref()
                .map(|v| v.iter().map(|m| m.medium()).collect()),
            material: 0,
            cut: false,
        })
        .collect()
}

/// A hall (indoor) beside a yard (outdoor) with a pillar in the yard, a facade brush half
/// in the yard, and a wall written over the initial solid along the yard's south side.
const YARD: &str = r#"Scene(
ops: [
    (brush: Box(min: (0, 0, 0), max: (512, 512, 256)), medium: Air),
    (brush: Box(min: (512, 64, 0), max: (1024, 512, 256)), medium: Air, material: Some("grass")),
    (brush: Box(min: (700, 200, 0), max: (764, 264, 128)), medium: Solid, material: Some("pillar")),
    (brush: Box(min: (960, 100, 0), max: (1100, 400, 96)), medium: Solid, material: Some("facade")),
    (brush: Box(min: (512, 0, 0), max: (1024, 64, 256)), medium: Solid, material: Some("fence")),
    (brush: Box(min: (500, 200, 0), max: (524, 300, 128)), medium: Air),
    (brush: Box(min: (512, 0, 0), max: (524, 512, 256)), medium: Solid, only: Some([Air]), material: Some("hallwall")),
    (brush: Box(min: (508, 200, 0), max: (528, 300, 128)), medium: Air),
],
terrain: Some((heightmap: "procedural:256", origin: (0, 0, -500), horizontal_scale: 16, vertical_scale: 1)),
outdoor: [Box(min: (524, 0, -1), max: (1100, 600, 300))],
)"#;

/// Oracle for open outdoor faces: sample points on every cell's boundary and apply the
/// operations in order just behind each. Built or indoor → a wall surface of the cell covers
/// the point; initial solid behind an outdoor cell → nothing (with a terrain) or sky.
#[test]
fn outdoor_cells_open_where_nothing_was_built() {
    for with_terrain in [true, false] {
        let mut scene = parse(YARD).unwrap();
        if !with_terrain {
            scene.terrain = None;
        }
        let ops = oracle_ops(&scene);
        let (level, _) = compile_scene(&scene, &CompileOptions::default()).unwrap();
        lanthorn_level::file::validate(&level).unwrap();
        let outdoor = level
            .cells
            .iter()
            .filter(|c| c.flags & cell_flags::OUTDOOR != 0)
            .count();
        assert!(outdoor > 0 && outdoor < level.cells.len());
        // Counts of (walled, open) samples, to prove both cases were exercised.
        let (mut walled, mut open, mut built_behind_outdoor) = (0, 0, 0);
        let mut seed = 12345u64;
        let mut rnd = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let all_planes: Vec<DPlane> = ops.iter().flat_map(|o| o.planes.clone()).collect();
        for (ci, cell) in level.cells.iter().enumerate() {
            let is_outdoor = cell.flags & cell_flags::OUTDOOR != 0;
            let outward: Vec<DPlane> = cell.planes.iter().map(|p| p.to_f64().flipped()).collect();
            for (i, face_plane) in outward.iter().enumerate() {
                let mut w = lanthorn_geom::DPolygon::base_winding(face_plane, 1e5);
                for (j, q) in outward.iter().enumerate() {
                    if i != j {
                        w = w.clip_back(q, 1e-9);
                    }
                }
                if w.is_empty() {
                    continue;
                }
                let pts = &w.points;
                for _ in 0..40 {
                    // A random point of the face (fan triangle weighted crudely; enough).
                    let k = 1 + (rnd() * (pts.len() - 2) as f64) as usize;
                    let (mut a, mut b) = (rnd(), rnd());
                    if a + b > 1.0 {
                        (a, b) = (1.0 - a, 1.0 - b);
                    }
                    let p = pts[0] + (pts[k] - pts[0]) * a + (pts[k + 1] - pts[0]) * b;
                    let behind = p + face_plane.normal;
                    if all_planes.iter().any(|pl| pl.distance(behind).abs() < 0.5) {
                        continue; // on an edge between differently built parts
                    }
                    let (m, written) = csg::written_at(&ops, behind);
                    if m.is_open() {
                        continue; // a portal
                    }
                    let covering: Vec<&Surface> = cell
                        .surfaces
                        .iter()
                        .map(|&s| &level.surfaces[s as usize])
                        .filter(|s| surface_covers(s, p, -face_plane.normal))
                        .collect();
                    let kinds: Vec<bool> = covering
                        .iter()
                        .map(|s| s.flags & surface_flags::SKY != 0)
                        .collect();
                    if is_outdoor && !written {
                        open += 1;
                        let expect: &[bool] = if with_terrain { &[] } else { &[true] };
                        assert_eq!(kinds, expect, "cell {ci} at {p}: open face");
                    } else {
                        walled += 1;
                        built_behind_outdoor += (is_outdoor && written) as usize;
                        assert_eq!(kinds, [false], "cell {ci} at {p}: walled face");
                    }
                }
            }
        }
        eprintln!("outdoor faces: {walled} walled, {open} open, {built_behind_outdoor} built around outdoor cells");
        assert!(walled > 100 && open > 100 && built_behind_outdoor > 20);
        assert_eq!(
            level.sky.as_ref().and_then(|s| s.material).is_some(),
            !with_terrain
        );
    }
}

/// Two outdoor yards with a built block between them and no portal path from one to the
/// other: with a terrain they see each other across the sky through the OUTSIDE cell; without
/// one the open faces are sky surfaces, opaque like Quake's, and they do not.
pub(crate) const TWO_YARDS: &str = r#"Scene(
ops: [
    (brush: Box(min: (0, 0, 0), max: (512, 512, 256)), medium: Air),
    (brush: Box(min: (768, 0, 0), max: (1280, 512, 256)), medium: Air),
    (brush: Box(min: (-64, -64, -32), max: (1344, 576, 0)), medium: Solid, material: Some("ground")),
    (brush: Box(min: (512, 0, 0), max: (768, 512, 96)), medium: Solid, material: Some("block")),
],
terrain: Some((heightmap: "procedural:256", origin: (-4096, -4096, -300), horizontal_scale: 32, vertical_scale: 0.1)),
outdoor: [Box(min: (-64, -64, -32), max: (1344, 576, 300))],
)"#;

#[test]
fn outdoor_yards_see_each_other_across_the_outside() {
    use lanthorn_geom::{Camera, CameraSpec};
    use lanthorn_vis::{CullMode, Culler, VisibleSet};
    for with_terrain in [true, false] {
        let mut scene = parse(TWO_YARDS).unwrap();
        if !with_terrain {
            scene.terrain = None;
        }
        let (level, _) = compile_scene(&scene, &CompileOptions::default()).unwrap();
        crate::map::tests::check_portals_and_locate(&level);
        let outside = level.outside_cell();
        assert_eq!(outside.is_some(), with_terrain);
        // Point location never answers OUTSIDE, not even far outside the yards.
        for p in [
            Vec3::new(256.0, 256.0, 100.0),
            Vec3::new(640.0, 256.0, 200.0),
            Vec3::new(-40.0, -40.0, 100.0),
        ] {
            let c = level.locate(p);
            assert!(c.is_none() || c != outside, "{p}");
        }
        let yard_b = level.locate(Vec3::new(1100.0, 256.0, 50.0)).unwrap();
        // From yard A, high above the block, looking at yard B's floor (x 1100): the segment
        // to it clears the block (x 512..768, z < 96) — geometrically visible.
        let eye = Vec3::new(300.0, 256.0, 240.0);
        let target = Vec3::new(1100.0, 256.0, 0.5);
        let z_at_block = |x: f32| eye.z + (target.z - eye.z) * (x - eye.x) / (target.x - eye.x);
        assert!(z_at_block(768.0) > 96.0);
        let d = target - eye;
        let spec = CameraSpec {
            position: eye,
            yaw: 0.0,
            pitch: (d.z / d.truncate().length()).atan().to_degrees(),
        };
        let cam = Camera::new(spec, 16.0 / 9.0);
        let mut vis = VisibleSet::default();
        Culler::new(&level, CullMode::Portal).cull(&level, &cam, &mut vis);
        let sees_b = vis.cells.iter().any(|c| c.cell == yard_b);
        assert_eq!(
            sees_b, with_terrain,
            "terrain {with_terrain}: yard B visible {sees_b}"
        );
        if with_terrain {
            // An eye out over the terrain, beyond every cell, is in OUTSIDE and sees both
            // yards through their open tops.
            let spec = CameraSpec {
                position: Vec3::new(640.0, -900.0, 900.0),
                yaw: 90.0,
                pitch: -40.0,
            };
            let cam = Camera::new(spec, 16.0 / 9.0);
            let mut culler = Culler::new(&level, CullMode::Portal);
            culler.cull(&level, &cam, &mut vis);
            assert_eq!(culler.tracker.cell(), outside);
            let yard_a = level.locate(Vec3::new(256.0, 256.0, 50.0)).unwrap();
            assert!(vis.cells.iter().any(|c| c.cell == yard_a));
            assert!(vis.cells.iter().any(|c| c.cell == yard_b));
        }
    }
}

/// Whether a surface facing `normal` covers point `p` of its plane.
fn surface_covers(s: &Surface, p: DVec3, normal: DVec3) -> bool {
    if s.normal.as_dvec3().dot(normal) < 0.999 {
        return false;
    }
    let v = |i: u32| s.vertices[i as usize].position.as_dvec3();
    if normal.dot(p - v(0)).abs() > 0.05 {
        return false;
    }
    s.indices.chunks(3).any(|t| {
        let (a, b, c) = (v(t[0]), v(t[1]), v(t[2]));
        let inside = |e0: DVec3, e1: DVec3| (e1 - e0).cross(p - e0).dot(normal) >= -1e-3;
        inside(a, b) && inside(b, c) && inside(c, a)
    })
}

#[test]
fn bad_scenes_are_errors() {
    assert!(parse("Scene(ops: [(brush: Box(min: (0,0,0)), medium: Air)])").is_err());
    let s = parse("Scene(ops: [])").unwrap();
    assert!(compile_scene(&s, &CompileOptions::default()).is_err());
    // An unbounded brush is skipped with a warning; with nothing left, an error.
    let s =
        parse("Scene(ops: [(brush: Planes([(normal: (1,0,0), dist: 5)]), medium: Air)])").unwrap();
    let e = compile_scene(&s, &CompileOptions::default()).unwrap_err();
    assert!(e.to_string().contains("no operations"), "{e}");
    let s =
        parse("Scene(ops: [(brush: Box(min: (0,0,0), max: (1e300,1,1)), medium: Air)])").unwrap();
    assert!(compile_scene(&s, &CompileOptions::default())
        .unwrap_err()
        .to_string()
        .contains("beyond"));
}

/// The seeded random-box scenes against brute force: at random points, the cell the
/// compiled level puts there (or none, in solid) has the medium that applying every
/// operation in order to that one point gives.
#[test]
fn random_boxes_match_point_sampling() {
    for seed in 1..4 {
        let scene = random_boxes(80, seed);
        let (level, _) = compile_scene(
            &scene,
            &CompileOptions {
                light: false,
                ..Default::default()
            },
        )
        .unwrap();
        lanthorn_level::file::validate(&level).unwrap();
        let ops = oracle_ops(&scene);
        let side = 192.0 * 80f64.cbrt() + 256.0;
        let mut s = seed;
        let mut rnd = move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Odd multiples of 1/16: never on a box face (faces lie on multiples of 8).
            ((s >> 33) % (side as u64 * 8)) as f64 / 8.0 + 1.0 / 16.0
        };
        let mut open = 0;
        for _ in 0..3000 {
            let p = DVec3::new(rnd(), rnd(), rnd());
            let want = csg::medium_at(&ops, p);
            let cell = level
                .locate(p.as_vec3())
                .filter(|&c| level.cells[c as usize].contains(p.as_vec3(), 0.01));
            match cell {
                Some(c) => {
                    assert_eq!(level.cells[c as usize].medium, want, "seed {seed} at {p}")
                }
                None => assert_eq!(want, Medium::Solid, "seed {seed}: no cell at {p}"),
            }
            open += usize::from(want != Medium::Solid);
        }
        assert!(open > 100, "seed {seed}: only {open} open samples");
    }
}

/// Parse errors name the field, a misspelt field as itself, and bytes that are not UTF-8
/// by their line and column; a long token is cut.
#[test]
fn parse_errors_name_the_field() {
    let msg = |text: &str| parse(text).unwrap_err().to_string();
    let e = msg("Scene(ops: [(brush: Box(min: (0,0,0), max: (1,\"x\",1)), medium: Air)])");
    assert!(
        e.starts_with("line 1, column ") && e.contains("field `max`"),
        "{e}"
    );
    let e = msg("Scene(ops: [(brush: Box(min: (0,0,0), maxx: (1,1,1)), medium: Air)])");
    assert!(e.contains("`maxx`") && !e.contains("missing"), "{e}");
    let e =
        msg("Scene(ops: [(brush: Box(min: (0,0,0), max: (1,1,1)), medium: Air, materal: None)])");
    assert!(e.contains("`materal`"), "{e}");
    let long = "A".repeat(1 << 20);
    let e = msg(&format!(
        "Scene(ops: [(brush: Box(min: (0,0,0), max: (1,1,1)), medium: {long})])"
    ));
    assert!(e.len() < 400, "{} bytes", e.len());
    let e = scene_file::parse_bytes(b"Scene(ops: [\n  (brush: \xff)])")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "line 2, column 11: byte 0xff is not UTF-8: save the scene as UTF-8 text"
    );
}

/// A scene's entities take the light keys a `.map`'s do (one baker reads both): the example
/// scene's light under `style` 5 gets its own slot; with a `targetname` and spawnflag 1 it gets
/// switchable style 32, written back to the entity; worldspawn `_bounce` adds light; `_deviance`
/// changes the shadows, not the total.
#[test]
fn scene_lights_take_the_map_light_keys() {
    let light = r#"[("classname", "light"), ("origin", "512 256 200"), ("light", "300")]"#;
    let compile = |light_keys: &str, world_keys: &str| {
        let text = EXAMPLE.replace(
            light,
            &format!(
                r#"[("classname", "worldspawn"){world_keys}],
    [("classname", "light"), ("origin", "512 256 200"), ("light", "300"){light_keys}]"#
            ),
        );
        assert_ne!(text, EXAMPLE);
        compile_scene(&parse(&text).unwrap(), &CompileOptions::default())
            .unwrap()
            .0
    };
    let has_style = |level: &Level, style: u8| {
        level
            .surfaces
            .iter()
            .any(|s| s.styles.slots().any(|st| st == style))
    };
    let layer0 = |level: &Level| {
        let lm = &level.lightmaps;
        let n = (lm.width * lm.height * 3) as usize;
        lm.texels[..n].iter().map(|&t| t as u64).sum::<u64>()
    };
    let plain = compile("", "");
    assert!(!has_style(&plain, 5) && !has_style(&plain, 32));

    assert!(has_style(&compile(r#", ("style", "5")"#, ""), 5));

    let switched = compile(r#", ("targetname", "lamp"), ("spawnflags", "1")"#, "");
    assert!(has_style(&switched, 32));
    let written = switched
        .entities
        .iter()
        .find(|e| e.get("targetname") == Some("lamp"));
    assert_eq!(written.and_then(|e| e.get("style")), Some("32"));

    let bounced = compile("", r#", ("_bounce", "1")"#);
    assert!(
        layer0(&bounced) > layer0(&plain) * 21 / 20,
        "bounce adds under 5 %"
    );

    let soft = compile(r#", ("_deviance", "24")"#, "");
    let (a, b) = (layer0(&soft) as f64, layer0(&plain) as f64);
    assert!(
        soft.lightmaps.texels != plain.lightmaps.texels && (a / b - 1.0).abs() < 0.05,
        "{a} {b}"
    );
}
