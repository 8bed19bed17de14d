use super::*;

pub(crate) use super::test_maps::{box_brush, room_map};

#[test]
fn room_compiles_into_cells_portals_and_surfaces() {
    let (level, stats) = compile_map_text(&room_map(None), &CompileOptions::default()).unwrap();
    assert!(!stats.leak);
    assert_eq!(stats.failed_brushes, 0, "{:?}", stats.warnings);
    lanthorn_level::file::validate(&level).unwrap();
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
    let planes: Vec<lanthorn_geom::DPlane> =
        c.planes.iter().map(|p| p.flipped().to_f64()).collect();
    let centre = ((c.aabb.min + c.aabb.max) * 0.5).as_dvec3();
    let mut v = 0.0;
    for (i, p) in planes.iter().enumerate() {
        let mut w = lanthorn_geom::DPolygon::base_winding(p, 1e5);
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
    let loaded = lanthorn_level::file::load_lvl(&out).unwrap();
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
