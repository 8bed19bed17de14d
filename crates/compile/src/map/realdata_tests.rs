use super::*;

fn maps_dir() -> Option<PathBuf> {
    let dir = lanthorn_testdata::realdata_dir().join("quake/maps");
    if dir.join("e1m1.map").exists() {
        Some(dir)
    } else {
        lanthorn_testdata::missing_realdata(&dir);
        None
    }
}

#[test]
fn e1m1_compiles_sealed_without_tjunctions() {
    let Some(dir) = maps_dir() else { return };
    let options = CompileOptions {
        leak_file: Some(std::env::temp_dir().join("lanthorn-test-e1m1-only.pts")),
        ..Default::default()
    };
    let (level, stats) = compile(&dir.join("e1m1.map"), &options).unwrap();
    eprintln!(
        "e1m1: {} cells, {} portals, {} surfaces, {} triangles, {:.2} s; stages {:?}",
        stats.cells, stats.portals, stats.surfaces, stats.triangles, stats.seconds, stats.stages
    );
    assert!(!stats.leak);
    assert_eq!(stats.failed_brushes, 0, "{:?}", stats.warnings);
    lanthorn_level::file::validate(&level).unwrap();
    let textured = level
        .materials
        .iter()
        .filter(|m| m.texels.is_some())
        .count();
    assert!(
        textured * 10 >= level.materials.len() * 9,
        "{textured} of {} materials decoded",
        level.materials.len()
    );
    // Texture sizes came from the wads (the oracle: Quake's own data).
    assert!(level
        .materials
        .iter()
        .any(|m| (m.width, m.height) != (64, 64)));
    // The player start lies in a cell.
    let start = level
        .entities
        .iter()
        .find(|e| e.classname() == "info_player_start")
        .unwrap()
        .origin()
        .unwrap();
    assert!(level.locate(start).is_some());
    tests::check_portals_and_locate(&level);
    // T-junctions: no world surface vertex lies inside another world surface's edge.
    let world: Vec<&Surface> = {
        let objects: std::collections::HashSet<u32> = level
            .objects
            .iter()
            .flat_map(|o| o.surfaces.iter().copied())
            .collect();
        (0..level.surfaces.len() as u32)
            .filter(|s| !objects.contains(s))
            .map(|s| &level.surfaces[s as usize])
            .collect()
    };
    if let Some((si, a, b, p)) = lanthorn_level::tjunctions::find_tjunction(&world, 0.02) {
        for (i, s) in world.iter().enumerate() {
            if s.vertices.iter().any(|v| v.position.distance(p) < 0.05) || i == si {
                let m = &level.materials[s.material as usize].name;
                let pts: Vec<Vec3> = s.vertices.iter().map(|v| v.position).collect();
                eprintln!(
                    "surface {i} {m} flags {} normal {} {pts:?} {:?}",
                    s.flags, s.normal, s.indices
                );
            }
        }
        panic!("T-junction: surface {si} edge {a} {b} has {p} inside");
    }
    // For comparison with qbsp's leaves (it has no grid split): cells without the grid.
    let no_grid = CompileOptions {
        max_cell_size: 1e9,
        ..options.clone()
    };
    let (_, s2) = compile(&dir.join("e1m1.map"), &no_grid).unwrap();
    eprintln!(
        "e1m1 without the 512 grid: {} cells, {} portals",
        s2.cells, s2.portals
    );
    assert!(s2.cells <= stats.cells);
    eprintln!(
        "e1m1: {} liquid cells, {} liquid portals, {} sky-visible cells, {} objects, {} materials, atlas {}x{}",
        level.cells.iter().filter(|c| c.medium.is_liquid()).count(),
        level.portals.iter().filter(|p| p.flags & portal_flags::LIQUID_SURFACE != 0).count(),
        level.cells.iter().filter(|c| c.flags & cell_flags::SKY_VISIBLE != 0).count(),
        level.objects.len(),
        level.materials.len(),
        level.lightmaps.width,
        level.lightmaps.height
    );
    assert!(
        level.cells.iter().any(|c| c.medium == Medium::Slime),
        "e1m1 has slime"
    );
    assert!(level
        .objects
        .iter()
        .any(|o| o.name.starts_with("func_door")));
    // Save → load → save is byte-identical on a real level.
    let bytes = lanthorn_level::file::to_bytes(&level);
    eprintln!("e1m1.lvl: {} bytes", bytes.len());
    assert_eq!(
        lanthorn_level::file::to_bytes(&lanthorn_level::file::from_bytes(&bytes).unwrap()),
        bytes
    );
}

/// A cell listing a surface that does not reach into it (clipped by the cell's planes,
/// with 0.05 units to spare, every triangle of the surface vanishes): the portal flow
/// would draw the surface from the wrong place and miss it from the right one.
fn listing_apart(level: &Level) -> Option<(usize, u32)> {
    let reaches = |cell: &Cell, s: &lanthorn_level::Surface| {
        s.indices.chunks_exact(3).any(|t| {
            let tri = t
                .iter()
                .map(|&i| s.vertices[i as usize].position.as_dvec3());
            let mut w = lanthorn_geom::DPolygon::new(tri.collect());
            for pl in &cell.planes {
                w = w.clip_back(&pl.flipped().to_f64(), 0.05);
            }
            !w.is_empty()
        })
    };
    level.cells.iter().enumerate().find_map(|(c, cell)| {
        let s = cell
            .surfaces
            .iter()
            .find(|&&s| !reaches(cell, &level.surfaces[s as usize]))?;
        Some((c, *s))
    })
}

#[test]
fn every_id_map_compiles_without_leak() {
    let Some(dir) = maps_dir() else { return };
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "map"))
        .collect();
    names.sort();
    assert_eq!(
        names.len(),
        22,
        "expected the 22 id maps (episodes 1 and 2, dm1–dm6, start)"
    );
    let mut failures = Vec::new();
    for p in &names {
        let options = CompileOptions {
            leak_file: Some(std::env::temp_dir().join(format!(
                "lanthorn-test-{}.pts",
                p.file_stem().unwrap().to_string_lossy()
            ))),
            ..Default::default()
        };
        match compile(p, &options) {
            Ok((level, stats)) => {
                eprintln!(
                    "{}: {} brushes, {} cells, {} portals, {} surfaces, {} triangles, {:.2} s",
                    p.file_name().unwrap().to_string_lossy(),
                    stats.brushes,
                    stats.cells,
                    stats.portals,
                    stats.surfaces,
                    stats.triangles,
                    stats.seconds
                );
                if stats.failed_brushes != 0 {
                    failures.push(format!(
                        "{}: failed brushes {:?}",
                        p.display(),
                        stats.warnings
                    ));
                }
                if let Err(e) = lanthorn_level::file::validate(&level) {
                    failures.push(format!("{}: {e}", p.display()));
                }
                // No flat triangles, and each surface's triangles cover its outline.
                for (i, s) in level.surfaces.iter().enumerate() {
                    if let Some(why) = lanthorn_testdata::bad_triangulation(s) {
                        failures.push(format!("{}: surface {i}: {why}", p.display()));
                        break;
                    }
                }
                if let Some(why) = lanthorn_testdata::object_seen_from_an_unlinked_cell(&level) {
                    failures.push(format!("{}: {why}", p.display()));
                }
                if let Some((c, s)) = listing_apart(&level) {
                    failures.push(format!("{}: cell {c} lists surface {s}", p.display()));
                }
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A map copied away from its wads and palette compiles with flat colours and one warning
/// saying what to give; with `--wad-dir` pointing at them it is textured and says nothing.
#[test]
fn a_map_without_its_wads_says_so_and_wad_dirs_find_them() {
    let Some(dir) = maps_dir() else { return };
    let away = std::env::temp_dir().join(format!("lanthorn-wadless-{}", std::process::id()));
    std::fs::create_dir_all(&away).unwrap();
    let map = away.join("e1m1.map");
    std::fs::copy(dir.join("e1m1.map"), &map).unwrap();
    let options = CompileOptions {
        light: false,
        ..Default::default()
    };
    let (bare, stats) = compile(&map, &options).unwrap();
    let said: Vec<_> = stats
        .warnings
        .iter()
        .filter(|w| w.contains("--wad-dir"))
        .collect();
    assert_eq!(said.len(), 1, "{:?}", stats.warnings);
    assert!(bare.materials.iter().all(|m| m.texels.is_none()));
    let quake = dir.join("..");
    let options = CompileOptions {
        light: false,
        wad_dirs: vec![quake.join("wads"), quake],
        ..Default::default()
    };
    let (textured, stats) = compile(&map, &options).unwrap();
    assert!(
        !stats.warnings.iter().any(|w| w.contains("--wad-dir")),
        "{:?}",
        stats.warnings
    );
    assert!(
        textured
            .materials
            .iter()
            .filter(|m| m.texels.is_some())
            .count()
            > 20
    );
    let _ = std::fs::remove_dir_all(&away);
}
