//! The `.map` front end (Quake / TrenchBroom sources): parse, read the wads, build every
//! entity's brushes, clip the world's faces (CSG), build the brush BSP and its portals, flood
//! from the outside to find leaks, and emit cells, portals and surface drafts for the back half.

mod brush;
mod cells;
#[cfg(test)]
mod contents_tests;
mod drafts;
mod entity_brushes;
mod faces;
mod leak;
#[cfg(test)]
mod leak_tests;
pub(super) mod map_file;
mod sources;
mod tree;
mod wad;

use std::path::Path;

use self::entity_brushes::EntityBrushes;
use self::map_file::MapFile;
use self::sources::Materials;
use self::wad::TextureSizes;
use super::draft::Draft;
use super::finish::finish;
use super::stats::StageTimer;
use crate::level::{material_flags, Entity, Level, Sky};

pub(super) use super::{CompileError, CompileOptions, CompileStats};

// What the tests below share (they compile whole maps).
#[cfg(test)]
use {
    super::{compile, compile_to_file},
    crate::level::*,
    glam::{DVec3, Vec3},
    std::path::PathBuf,
};

/// Compiles a `.map` file; its wads and palette are looked for beside it (see `sources`).
pub(crate) fn compile_map_file(
    path: &Path,
    options: &CompileOptions,
) -> Result<(Level, CompileStats), CompileError> {
    let mut timer = StageTimer::start();
    let mut stats = CompileStats::default();
    let bytes = std::fs::read(path).map_err(|error| CompileError::Io {
        path: path.into(),
        error,
    })?;
    let map = parse(&String::from_utf8_lossy(&bytes), path)?;
    timer.lap(&mut stats, "parse");
    let textures = sources::load_textures(path, &map, options);
    timer.lap(&mut stats, "wads");
    let materials = Materials::new(&textures, sources::load_palette(path, options));
    compile_map(&map, materials, options, path, timer, stats)
}

/// Compiles `.map` text held in memory (tests, tools); wads from `options.wad_dirs` only.
pub fn compile_map_text(
    text: &str,
    options: &CompileOptions,
) -> Result<(Level, CompileStats), CompileError> {
    let path = Path::new("<memory>.map");
    let mut timer = StageTimer::start();
    let mut stats = CompileStats::default();
    let map = parse(text, path)?;
    timer.lap(&mut stats, "parse");
    let mut textures = TextureSizes::default();
    for d in &options.wad_dirs {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let _ = textures.add_wad_file(&e.path());
        }
    }
    let materials = Materials::new(&textures, sources::load_palette(path, options));
    compile_map(&map, materials, options, path, timer, stats)
}

fn parse(text: &str, path: &Path) -> Result<MapFile, CompileError> {
    map_file::parse(text).map_err(|error| CompileError::Map {
        path: path.into(),
        error,
    })
}

/// The stages after parsing; `timer`/`stats` carry the stages already run.
fn compile_map(
    map: &MapFile,
    mut materials: Materials,
    options: &CompileOptions,
    path: &Path,
    mut timer: StageTimer,
    mut stats: CompileStats,
) -> Result<(Level, CompileStats), CompileError> {
    if map.entities.is_empty() {
        return Err(empty(
            path,
            "the map has no entities (add a worldspawn with brushes)",
        ));
    }
    let brushes = EntityBrushes::build(map, path, &mut stats);
    timer.lap(&mut stats, "brushes");
    if brushes.in_group(entity_brushes::Group::World).is_empty() {
        return Err(empty(
            path,
            "the map has no world brush that builds (worldspawn needs brushes enclosing the level)",
        ));
    }
    let fragments = drafts::world_fragments(&brushes);
    timer.lap(&mut stats, "csg");
    let mut tree = cells::cell_tree(&brushes, &fragments, options.max_cell_size);
    timer.lap(&mut stats, "bsp");
    tree.make_portals();
    timer.lap(&mut stats, "portals");
    let from = tree.flood_outside();
    timer.lap(&mut stats, "flood");
    let leak = leak::find(map, &brushes, &tree, &from);
    if let Some(leak) = &leak {
        leak_found(leak, path, options, &mut tree, &timer, &mut stats)?;
    }
    let mut draft = Draft::default();
    draft.level.leak = leak.as_ref().map(leak::Leak::level_path);
    cells::add_cells_and_portals(&mut tree, &mut draft.level);
    timer.lap(&mut stats, "cells");
    if draft.level.cells.is_empty() {
        return Err(empty(path, "the world brushes enclose no open space (build rooms: hollow space sealed by solid brushes)"));
    }
    draft.cell_surfaces =
        drafts::world_surfaces(fragments, &brushes, &tree, options, &mut materials);
    draft.objects = drafts::objects(map, &brushes, options, &mut materials);
    draft.level.materials = materials.list;
    draft.level.bsp = cells::bsp_of(&tree);
    draft.level.entities = map
        .entities
        .iter()
        .map(|e| Entity {
            pairs: e.pairs.clone(),
        })
        .collect();
    draft.level.sky = sky(map, &draft.level);
    timer.lap(&mut stats, "drafts");
    let level = finish(draft, options, &mut timer, &mut stats);
    Ok((level, stats))
}

/// A leak: its point file written (where wanted) and then either the error, or, with
/// `allow_leak`, a warning and the outside kept as cells (nothing is flooded away).
fn leak_found(
    leak: &leak::Leak,
    path: &Path,
    options: &CompileOptions,
    tree: &mut tree::Tree,
    timer: &StageTimer,
    stats: &mut CompileStats,
) -> Result<(), CompileError> {
    leak::record(leak, path, options.leak_file.as_deref(), stats)?;
    if options.allow_leak {
        log::warn!("{}", stats.warnings.last().map_or("", String::as_str));
        for l in &mut tree.leaves {
            l.outside = false;
        }
        return Ok(());
    }
    stats.bsp_nodes = tree.nodes.len();
    stats.bsp_leaves = tree.leaves.len();
    stats.seconds = timer.total();
    Err(CompileError::Leak {
        path: path.into(),
        line: u32::try_from(leak.line).unwrap_or(u32::MAX),
        entity: u32::try_from(leak.entity).unwrap_or(u32::MAX),
        classname: leak.classname.clone(),
        position: leak.position.as_vec3().to_array(),
        pointfile: options.leak_file.clone(),
        crossings: leak.crossings_text().into(),
        stats: Box::new(std::mem::take(stats)),
    })
}

fn empty(path: &Path, why: &'static str) -> CompileError {
    CompileError::Empty {
        path: path.into(),
        why,
    }
}

/// The sky: a sky material if a face uses one, and the worldspawn's cubemap (`sky` or
/// `skyname`) if it names one.
fn sky(map: &MapFile, level: &Level) -> Option<Sky> {
    let material = level
        .materials
        .iter()
        .position(|m| m.flags & material_flags::SKY != 0)
        .map(|m| m as u32);
    let cubemap = map
        .entities
        .first()
        .and_then(|e| e.get("sky").or(e.get("skyname")))
        .map(String::from);
    (material.is_some() || cubemap.is_some()).then_some(Sky { material, cubemap })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A sealed two-room map written as `.map` text: a 1024×512×256 box of six walls, a
    /// pool of water, a sky ceiling patch, a detail pillar, a door and a light.
    pub(crate) fn room_map(skip_wall: Option<usize>) -> String {
        let boxb = |a: [f64; 3], b: [f64; 3], tex: &str| {
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
        };
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
        let planes: Vec<crate::geom::DPlane> =
            c.planes.iter().map(|p| p.flipped().to_f64()).collect();
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
}

#[cfg(test)]
mod realdata {
    use super::*;

    fn maps_dir() -> Option<PathBuf> {
        let dir = crate::realdata_dir().join("quake/maps");
        if dir.join("e1m1.map").exists() {
            Some(dir)
        } else {
            crate::testutil::missing_realdata(&dir);
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
            stats.cells,
            stats.portals,
            stats.surfaces,
            stats.triangles,
            stats.seconds,
            stats.stages
        );
        assert!(!stats.leak);
        assert_eq!(stats.failed_brushes, 0, "{:?}", stats.warnings);
        crate::level::file::validate(&level).unwrap();
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
        if let Some((si, a, b, p)) = crate::level::tjunctions::find_tjunction(&world, 0.02) {
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
        let bytes = crate::level::file::to_bytes(&level);
        eprintln!("e1m1.lvl: {} bytes", bytes.len());
        assert_eq!(
            crate::level::file::to_bytes(&crate::level::file::from_bytes(&bytes).unwrap()),
            bytes
        );
    }

    /// A cell listing a surface that does not reach into it (clipped by the cell's planes,
    /// with 0.05 units to spare, every triangle of the surface vanishes): the portal flow
    /// would draw the surface from the wrong place and miss it from the right one.
    fn listing_apart(level: &Level) -> Option<(usize, u32)> {
        let reaches = |cell: &Cell, s: &crate::level::Surface| {
            s.indices.chunks_exact(3).any(|t| {
                let tri = t.iter().map(|&i| s.vertices[i as usize].position.as_dvec3());
                let mut w = crate::geom::DPolygon::new(tri.collect());
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
        assert_eq!(names.len(), 15);
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
                    if let Err(e) = crate::level::file::validate(&level) {
                        failures.push(format!("{}: {e}", p.display()));
                    }
                    // No flat triangles, and each surface's triangles cover its outline.
                    for (i, s) in level.surfaces.iter().enumerate() {
                        if let Some(why) = crate::testutil::bad_triangulation(s) {
                            failures.push(format!("{}: surface {i}: {why}", p.display()));
                            break;
                        }
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
}

#[cfg(test)]
pub(super) mod map_props {
    use super::*;
    use proptest::prelude::*;

    pub(crate) fn box_text(a: [i32; 3], b: [i32; 3], tex: &str) -> String {
        let (x0, y0, z0, x1, y1, z1) = (a[0], a[1], a[2], b[0], b[1], b[2]);
        format!(
            "{{\n( {x0} {y0} {z0} ) ( {x0} {y1} {z0} ) ( {x0} {y0} {z1} ) {tex} 0 0 0 1 1\n\
             ( {x1} {y0} {z0} ) ( {x1} {y0} {z1} ) ( {x1} {y1} {z0} ) {tex} 0 0 0 1 1\n\
             ( {x0} {y0} {z0} ) ( {x0} {y0} {z1} ) ( {x1} {y0} {z0} ) {tex} 0 0 0 1 1\n\
             ( {x0} {y1} {z0} ) ( {x1} {y1} {z0} ) ( {x0} {y1} {z1} ) {tex} 0 0 0 1 1\n\
             ( {x0} {y0} {z0} ) ( {x1} {y0} {z0} ) ( {x0} {y1} {z0} ) {tex} 0 0 0 1 1\n\
             ( {x0} {y0} {z1} ) ( {x0} {y1} {z1} ) ( {x1} {y0} {z1} ) {tex} 0 0 0 1 1\n}}\n"
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

        /// A sealed hull with random solid and water boxes inside: at random points, the
        /// compiled level's cell (or its absence) agrees with the brushes themselves.
        #[test]
        fn cells_match_the_brushes(
            boxes in prop::collection::vec((prop::array::uniform3(0i32..16), prop::array::uniform3(1i32..6), 0u8..4), 0..12),
            max_cell in prop_oneof![Just(128.0), Just(512.0)],
        ) {
            let n = 1024;
            let mut text = String::from("{\n\"classname\" \"worldspawn\"\n");
            for k in 0..3 {
                let (mut lo, mut hi) = ([-16; 3], [n + 16; 3]);
                hi[k] = 0;
                text += &box_text(lo, hi, "wall");
                lo[k] = n;
                hi[k] = n + 16;
                text += &box_text(lo, hi, "wall");
            }
            let mut brushes = Vec::new();
            for (lo, size, kind) in &boxes {
                let a = [lo[0] * 64, lo[1] * 64, lo[2] * 64];
                let b = [(a[0] + size[0] * 48).min(n), (a[1] + size[1] * 48).min(n), (a[2] + size[2] * 48).min(n)];
                if (0..3).any(|k| b[k] <= a[k]) {
                    continue;
                }
                let tex = if *kind == 0 { "*water1" } else { "rock" };
                text += &box_text(a, b, tex);
                brushes.push((a, b, *kind == 0));
            }
            text += "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"-8 -8 -8\"\n}\n";
            let options = CompileOptions { max_cell_size: max_cell, leak_file: Some(std::env::temp_dir().join("lanthorn-prop.pts")), ..Default::default() };
            let (level, stats) = compile_map_text(&text, &options).unwrap();
            prop_assert_eq!(stats.failed_brushes, 0);
            crate::level::file::validate(&level).unwrap();
            for c in &level.cells {
                prop_assert!(c.aabb.size().max_element() <= max_cell as f32 + 1e-3);
            }
            let mut s = 12345u64 + boxes.len() as u64;
            let mut rnd = || { s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); ((s >> 33) % 10000) as f32 / 10000.0 };
            for _ in 0..300 {
                let p = Vec3::new(rnd(), rnd(), rnd()) * (n as f32) + Vec3::splat(0.37);
                let inside = |&(a, b, _): &([i32; 3], [i32; 3], bool)| (0..3).all(|k| p[k] > a[k] as f32 && p[k] < b[k] as f32);
                let near = brushes.iter().any(|&(a, b, _)| (0..3).any(|k| (p[k] - a[k] as f32).abs() < 0.01 || (p[k] - b[k] as f32).abs() < 0.01));
                if near { continue; }
                let solid = brushes.iter().filter(|b| !b.2).any(inside);
                let water = brushes.iter().filter(|b| b.2).any(inside);
                let cell = level.locate(p).filter(|&c| level.cells[c as usize].contains(p, 0.01));
                match cell {
                    None => prop_assert!(solid, "no cell at open point {}", p),
                    Some(c) => {
                        prop_assert!(!solid, "cell {} at solid point {}", c, p);
                        let want = if water { Medium::Water } else { Medium::Air };
                        prop_assert_eq!(level.cells[c as usize].medium, want, "at {}", p);
                    }
                }
            }
            super::tests::check_portals_and_locate(&level);
        }

        /// Mangled map text never panics the compiler: it compiles, or it is an error.
        #[test]
        fn mangled_maps_never_panic(cut in 0usize..4000, flips in prop::collection::vec((0usize..4000, 0u8..128), 0..6)) {
            let mut bytes = super::tests::room_map(None).into_bytes();
            for (at, b) in flips {
                let i = at % bytes.len();
                bytes[i] = b;
            }
            bytes.truncate(cut.max(1).min(bytes.len()));
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let options = CompileOptions { leak_file: Some(std::env::temp_dir().join("lanthorn-prop2.pts")), ..Default::default() };
            let _ = compile_map_text(&text, &options);
        }
    }
}

#[cfg(test)]
mod sealing {
    use super::*;

    /// Clip and liquid brushes do not seal; a solid brush in the same place does, and so does
    /// one textured `trigger` (a world brush: id's qbsp makes it solid) or `sky…`.
    #[test]
    fn only_solid_brushes_seal() {
        let options = CompileOptions {
            leak_file: Some(
                std::env::temp_dir().join(format!("lanthorn-seal-{}.pts", std::process::id())),
            ),
            ..Default::default()
        };
        for (tex, seals) in [
            ("clip", false),
            ("*water0", false),
            ("trigger", true),
            ("wall", true),
            ("sky3", true),
        ] {
            let mut text = tests::room_map(Some(1));
            let at = text.find("}\n{\n\"classname\" \"func_detail\"").unwrap();
            text.insert_str(
                at,
                &map_props::box_text([1024, -16, -16], [1040, 528, 272], tex),
            );
            let result = compile_map_text(&text, &options);
            match (seals, result) {
                (true, Ok((level, _))) => {
                    assert!(!level.cells.is_empty());
                    // A sealing brush's inner face is a surface.
                    assert!(level.materials.iter().any(|m| m.name == tex));
                }
                (false, Err(CompileError::Leak { .. })) => {}
                (s, r) => panic!(
                    "{tex}: expected sealed={s}, got {:?}",
                    r.map(|(_, st)| st.cells)
                ),
            }
        }
        let _ = std::fs::remove_file(options.leak_file.unwrap());
    }
}

#[cfg(test)]
mod texinfo_oracle {
    use super::*;

    /// Reads BSP29 texinfo records: (s axis, s offset, t axis, t offset, texture name).
    fn bsp_texinfo(bytes: &[u8]) -> Vec<([f32; 4], [f32; 4], String)> {
        let i32_at = |o: usize| i32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        let f32_at = |o: usize| f32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        assert_eq!(i32_at(0), 29);
        let lump = |i: usize| (i32_at(4 + i * 8) as usize, i32_at(8 + i * 8) as usize);
        let (tex_ofs, _) = lump(2);
        let ntex = i32_at(tex_ofs) as usize;
        let names: Vec<String> = (0..ntex)
            .map(|k| {
                let o = i32_at(tex_ofs + 4 + k * 4);
                if o < 0 {
                    return String::new();
                }
                let at = tex_ofs + o as usize;
                let raw = &bytes[at..at + 16];
                let end = raw.iter().position(|&c| c == 0).unwrap_or(16);
                String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase()
            })
            .collect();
        let (ti_ofs, ti_len) = lump(6);
        (0..ti_len / 40)
            .map(|k| {
                let o = ti_ofs + k * 40;
                let v: Vec<f32> = (0..8).map(|j| f32_at(o + j * 4)).collect();
                let mip = i32_at(o + 32) as usize;
                (
                    [v[0], v[1], v[2], v[3]],
                    [v[4], v[5], v[6], v[7]],
                    names.get(mip).cloned().unwrap_or_default(),
                )
            })
            .collect()
    }

    /// Texture axes from the `.map` faces match the texinfo id's own compiler wrote into the
    /// shipped e1m1.bsp (the oracle: Quake's data).
    #[test]
    fn texture_axes_match_the_shipped_bsp() {
        let dir = crate::realdata_dir().join("quake");
        let (map, bsp) = (dir.join("maps/e1m1.map"), dir.join("bsp/e1m1.bsp"));
        if !map.exists() || !bsp.exists() {
            crate::testutil::missing_realdata(&dir);
            return;
        }
        let infos = bsp_texinfo(&std::fs::read(&bsp).unwrap());
        let m = map_file::parse(&std::fs::read_to_string(&map).unwrap()).unwrap();
        let (mut found, mut total) = (0, 0);
        for f in m.entities[0].brushes.iter().flat_map(|b| b.faces.iter()) {
            if brush::is_tool_texture(&f.texture) {
                continue;
            }
            let Some(plane) = brush::map_plane(&f.points) else {
                continue;
            };
            let tv = crate::compile::texture::tex_vecs(&f.projection, plane.normal);
            let name = f.texture.to_ascii_lowercase();
            total += 1;
            let close = |a: [f32; 4], v: DVec3, off: f64| {
                (a[0] as f64 - v.x).abs() < 1e-3
                    && (a[1] as f64 - v.y).abs() < 1e-3
                    && (a[2] as f64 - v.z).abs() < 1e-3
                    && (a[3] as f64 - off).abs() < 1e-2
            };
            if infos.iter().any(|(s, t, n)| {
                *n == name && close(*s, tv.s, tv.s_offset) && close(*t, tv.t, tv.t_offset)
            }) {
                found += 1;
            }
        }
        eprintln!("e1m1 texture axes: {found} of {total} faces match a texinfo of e1m1.bsp");
        assert!(found * 100 >= total * 99, "{found} of {total}");
    }
}
