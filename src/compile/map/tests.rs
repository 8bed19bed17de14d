use super::*;

/// An axis-aligned box brush from `a` to `b` in standard `.map` syntax, every face `tex`.
pub(crate) fn box_brush(a: [f64; 3], b: [f64; 3], tex: &str) -> String {
    format!(
        "{{\n( {x0} {y0} {z0} ) ( {x0} {y1} {z0} ) ( {x0} {y0} {z1} ) {t} 0 0 0 1 1\n\
         ( {x1} {y0} {z0} ) ( {x1} {y0} {z1} ) ( {x1} {y1} {z0} ) {t} 0 0 0 1 1\n\
         ( {x0} {y0} {z0} ) ( {x0} {y0} {z1} ) ( {x1} {y0} {z0} ) {t} 0 0 0 1 1\n\
         ( {x0} {y1} {z0} ) ( {x1} {y1} {z0} ) ( {x0} {y1} {z1} ) {t} 0 0 0 1 1\n\
         ( {x0} {y0} {z0} ) ( {x1} {y0} {z0} ) ( {x0} {y1} {z0} ) {t} 0 0 0 1 1\n\
         ( {x0} {y0} {z1} ) ( {x0} {y1} {z1} ) ( {x1} {y0} {z1} ) {t} 0 0 0 1 1\n}}\n",
        x0 = a[0],
        y0 = a[1],
        z0 = a[2],
        x1 = b[0],
        y1 = b[1],
        z1 = b[2],
        t = tex
    )
}

/// A sealed two-room map written as `.map` text: a 1024×512×256 box of six walls, a
/// pool of water, a sky ceiling patch, a detail pillar, a door and a light.
pub(crate) fn room_map(skip_wall: Option<usize>) -> String {
    let boxb = box_brush;
    let (t, x, y, z) = (16.0, 1024.0, 512.0, 256.0);
    let walls = [
        boxb([-t, -t, -t], [0.0, y + t, z + t], "wall"),
        boxb([x, -t, -t], [x + t, y + t, z + t], "wall"),
        boxb([-t, -t, -t], [x + t, 0.0, z + t], "wall"),
        boxb([-t, y, -t], [x + t, y + t, z + t], "wall"),
        boxb([-t, -t, -t], [x + t, y + t, 0.0], "floor"),
        boxb([-t, -t, z], [x + t, y + t, z + t], "sky1"),
    ];
    let mut s = String::from("{\n\"classname\" \"worldspawn\"\n\"wad\" \"gfx/base.wad\"\n");
    for (i, w) in walls.iter().enumerate() {
        if Some(i) != skip_wall {
            s += w;
        }
    }
    s += &boxb([600.0, 100.0, 0.0], [900.0, 400.0, 64.0], "*water0");
    s += "}\n{\n\"classname\" \"func_detail\"\n";
    s += &boxb([200.0, 200.0, 0.0], [232.0, 232.0, 256.0], "pillar");
    s += "}\n{\n\"classname\" \"func_door\"\n\"targetname\" \"d1\"\n";
    s += &boxb([500.0, 0.0, 0.0], [508.0, 128.0, 128.0], "door");
    s += "}\n{\n\"classname\" \"trigger_once\"\n";
    s += &boxb([10.0, 10.0, 10.0], [50.0, 50.0, 50.0], "trigger");
    s += "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"64 64 24\"\n}\n";
    s += "{\n\"classname\" \"light\"\n\"origin\" \"700 200 200\"\n}\n";
    s
}

#[test]
fn room_compiles_into_cells_portals_and_surfaces() {
    let (level, stats) = compile_map_text(&room_map(None), &CompileOptions::default()).unwrap();
    assert!(!stats.leak);
    assert_eq!(stats.failed_brushes, 0, "{:?}", stats.warnings);
    crate::level::file::validate(&level).unwrap();
    // Open volume adds up to the room's (brute force: the room box).
    let vol: f64 = level.cells.iter().map(cell_volume).sum();
    assert!((vol - 1024.0 * 512.0 * 256.0).abs() < 1.0, "{vol}");
    // Cells no longer than 512 on any axis.
    for c in &level.cells {
        assert!(c.aabb.size().max_element() <= 512.0 + 1e-3, "{:?}", c.aabb);
    }
    // Water: a liquid cell, and its top is both a portal and liquid surfaces.
    assert!(level.cells.iter().any(|c| c.medium == Medium::Water));
    assert!(level
        .portals
        .iter()
        .any(|p| p.flags & portal_flags::LIQUID_SURFACE != 0));
    assert!(level
        .surfaces
        .iter()
        .any(|s| s.flags & surface_flags::LIQUID != 0));
    // The sky ceiling marks cells sky-visible; the detail pillar did not split cells but
    // its surfaces are listed by the cells it touches.
    assert!(level
        .cells
        .iter()
        .any(|c| c.flags & cell_flags::SKY_VISIBLE != 0));
    let pillar = level
        .materials
        .iter()
        .position(|m| m.name == "pillar")
        .unwrap() as u32;
    let pillar_cells: Vec<usize> = (0..level.cells.len())
        .filter(|&c| {
            level.cells[c]
                .surfaces
                .iter()
                .any(|&s| level.surfaces[s as usize].material == pillar)
        })
        .collect();
    assert!(!pillar_cells.is_empty());
    assert!(level
        .surfaces
        .iter()
        .filter(|s| s.material == pillar)
        .all(|s| s.flags & surface_flags::DETAIL != 0));
    // The door is an object; the trigger makes nothing.
    assert_eq!(level.objects.len(), 1);
    assert_eq!(level.objects[0].name, "func_door d1");
    assert!(!level.materials.iter().any(|m| m.name == "trigger"));
    // Every surface faces into a cell that lists it: its centre, nudged along the normal,
    // lies inside one of its cells (brute force over the cell planes).
    for (si, s) in level.surfaces.iter().enumerate() {
        if level.objects[0].surfaces.contains(&(si as u32)) {
            continue;
        }
        let c = s.vertices.iter().map(|v| v.position).sum::<Vec3>() / s.vertices.len() as f32
            + s.normal * 0.5;
        let owners: Vec<usize> = (0..level.cells.len())
            .filter(|&k| level.cells[k].surfaces.contains(&(si as u32)))
            .collect();
        assert!(!owners.is_empty());
        for t in s.indices.chunks(3) {
            let q = |k: usize| s.vertices[t[k] as usize].position;
            let n = (q(1) - q(0)).cross(q(2) - q(0));
            assert!(
                n.dot(s.normal) > 0.0,
                "surface {si}: triangle not counter-clockwise from the front"
            );
        }
        assert!(
            owners.iter().any(|&k| level.cells[k].contains(c, 0.6)),
            "surface {si} at {c}"
        );
    }
    check_portals_and_locate(&level);
}

fn cell_volume(c: &Cell) -> f64 {
    // Clip each plane's big square by the others: the cell's faces; volume by pyramids.
    let planes: Vec<crate::geom::DPlane> = c.planes.iter().map(|p| p.flipped().to_f64()).collect();
    let centre = ((c.aabb.min + c.aabb.max) * 0.5).as_dvec3();
    let mut v = 0.0;
    for (i, p) in planes.iter().enumerate() {
        let mut w = crate::geom::DPolygon::base_winding(p, 1e5);
        for (j, q) in planes.iter().enumerate() {
            if i != j {
                w = w.clip_back(q, 1e-9);
            }
        }
        v += -p.distance(centre) * w.area() / 3.0;
    }
    v
}

/// Portals lie on both cells' boundaries with the cells on opposite sides; point location
/// agrees with the cells' own planes.
pub(crate) fn check_portals_and_locate(level: &Level) {
    for (i, p) in level.portals.iter().enumerate() {
        let c = p.polygon.iter().copied().sum::<Vec3>() / p.polygon.len() as f32;
        let (f, b) = (
            &level.cells[p.front as usize],
            &level.cells[p.back as usize],
        );
        // A mirror's or teleporter's back cell lies behind it in the space its transform
        // maps from: carry the points back there.
        let back_space = p.transform.map_or(glam::Mat4::IDENTITY, |m| {
            glam::Mat4::from_cols_array(&m).inverse()
        });
        let behind = |q: Vec3| back_space.transform_point3(q);
        assert!(
            f.contains(c, 0.05) && b.contains(behind(c), 0.05),
            "portal {i} centre {c} off its cells"
        );
        assert!(
            f.contains(c + p.plane.normal * 0.5, 0.01),
            "portal {i}: front cell not in front"
        );
        assert!(
            b.contains(behind(c - p.plane.normal * 0.5), 0.01),
            "portal {i}: back cell not behind"
        );
        assert!(f.portals.contains(&(i as u32)) && b.portals.contains(&(i as u32)));
        // Wound counter-clockwise seen from the front cell.
        let mut area = Vec3::ZERO;
        for k in 1..p.polygon.len() - 1 {
            area += (p.polygon[k] - p.polygon[0]).cross(p.polygon[k + 1] - p.polygon[0]);
        }
        assert!(area.dot(p.plane.normal) > 0.0, "portal {i} winding");
    }
    for (i, c) in level.cells.iter().enumerate() {
        let centre = c.aabb.center();
        if c.contains(centre, -0.1) && c.flags & cell_flags::OUTSIDE == 0 {
            assert_eq!(
                level.locate(centre),
                Some(i as u32),
                "cell {i} centre {centre}"
            );
        }
    }
}

#[test]
fn a_missing_wall_leaks_and_writes_the_path_not_the_level() {
    let dir = std::env::temp_dir().join(format!("lanthorn-leak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let map = dir.join("room.map");
    std::fs::write(&map, room_map(Some(1))).unwrap();
    let out = dir.join("room.lvl");
    let err = compile_to_file(&map, &out, &CompileOptions::default()).unwrap_err();
    let CompileError::Leak {
        classname,
        pointfile,
        stats,
        ..
    } = &err
    else {
        panic!("{err}")
    };
    assert!(
        classname == "info_player_start" || classname == "light",
        "{classname}"
    );
    assert!(stats.leak);
    assert!(err.to_string().contains(classname.as_str()));
    assert!(!out.exists(), "no level may be written on a leak");
    assert_eq!(pointfile.as_deref(), Some(dir.join("room.pts").as_path()));
    let pts = std::fs::read_to_string(pointfile.as_ref().unwrap()).unwrap();
    let lines: Vec<Vec<f64>> = pts
        .lines()
        .map(|l| l.split_whitespace().map(|v| v.parse().unwrap()).collect())
        .collect();
    assert!(lines.len() >= 2 && lines.iter().all(|l| l.len() == 3));
    // The path ends outside the room box.
    let end = lines.last().unwrap();
    assert!(
        end[0] > 1024.0
            || end[0] < 0.0
            || end[1] > 512.0
            || end[1] < 0.0
            || end[2] > 256.0
            || end[2] < 0.0
    );
    // The sealed room compiles and saves.
    std::fs::write(&map, room_map(None)).unwrap();
    let stats = compile_to_file(&map, &out, &CompileOptions::default()).unwrap();
    let loaded = crate::level::file::load_lvl(&out).unwrap();
    assert_eq!(loaded.cells.len(), stats.cells);
    let info = CompileStats::of_level(&loaded).to_json();
    for key in [
        "brushes",
        "cells",
        "portals",
        "surfaces",
        "triangles",
        "leak",
        "seconds",
    ] {
        assert!(info.get(key).is_some(), "{key}");
    }
    assert_eq!(info["cells"], stats.cells);
    assert_eq!(info["triangles"], stats.triangles);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_brushes_are_warnings_naming_line_and_brush() {
    let mut text = room_map(None);
    // A brush with 3 faces and one with collinear points, inside worldspawn.
    let at = text.find("{\n( ").unwrap();
    text.insert_str(
        at,
        "{\n( 0 0 0 ) ( 0 1 0 ) ( 1 0 0 ) a 0 0 0 1 1\n( 0 0 9 ) ( 1 0 9 ) ( 0 1 9 ) a 0 0 0 1 1\n\
         ( 0 0 0 ) ( 0 0 1 ) ( 0 1 0 ) a 0 0 0 1 1\n}\n\
         {\n( 0 0 0 ) ( 1 1 1 ) ( 2 2 2 ) a 0 0 0 1 1\n( 0 0 9 ) ( 1 0 9 ) ( 0 1 9 ) a 0 0 0 1 1\n\
         ( 0 0 0 ) ( 0 0 1 ) ( 0 1 0 ) a 0 0 0 1 1\n( 5 0 0 ) ( 5 1 0 ) ( 5 0 1 ) a 0 0 0 1 1\n}\n",
    );
    let (_, stats) = compile_map_text(&text, &CompileOptions::default()).unwrap();
    assert_eq!(stats.failed_brushes, 2);
    assert!(
        stats.warnings[0].starts_with("line 4: entity 0 (worldspawn) brush 0"),
        "{:?}",
        stats.warnings
    );
    assert!(
        stats.warnings[1].contains("line 10: entity 0 (worldspawn) brush 1"),
        "{:?}",
        stats.warnings
    );
    assert!(stats.warnings[1].contains("collinear"));
    // Syntax errors carry the line.
    let err = compile_map_text(
        &text.replace("( 5 0 0 )", "( 5 NaN 0 )"),
        &CompileOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains(":13:"), "{err}");
}
