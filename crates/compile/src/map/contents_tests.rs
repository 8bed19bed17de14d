//! id's brush-contents rule on small hand-written maps. Every map is a sealed corridor, open
//! over x ∈ [0, 512], y, z ∈ [0, 128], with one slab brush across its whole cross-section at
//! x ∈ [192, 256]. Each plane of the slab cuts the corridor whole, so the cells can be counted
//! by hand whatever order the BSP picks its planes in:
//! - a slab that seals (solid, sky) leaves two air cells, [0, 192] and [256, 512], and no
//!   portal between them;
//! - a liquid slab makes three cells (air, liquid, air) joined by two portals, at x = 192 and
//!   x = 256;
//! - a slab that is nothing (clip, a trigger entity) leaves one air cell and no portal.
//!
//! No cell is longer than 512 (the default `max_cell_size`), so no grid split adds any.

use super::*;

/// An axial box brush; the faces are written -x, +x, -y, +y, -z, +z, and `tex(i)` names the
/// texture of face `i`, so the last written face is face 5 (+z).
fn slab_text(a: [i32; 3], b: [i32; 3], tex: &dyn Fn(usize) -> String) -> String {
    let (x0, y0, z0, x1, y1, z1) = (a[0], a[1], a[2], b[0], b[1], b[2]);
    let points = [
        format!("( {x0} {y0} {z0} ) ( {x0} {y1} {z0} ) ( {x0} {y0} {z1} )"),
        format!("( {x1} {y0} {z0} ) ( {x1} {y0} {z1} ) ( {x1} {y1} {z0} )"),
        format!("( {x0} {y0} {z0} ) ( {x0} {y0} {z1} ) ( {x1} {y0} {z0} )"),
        format!("( {x0} {y1} {z0} ) ( {x1} {y1} {z0} ) ( {x0} {y1} {z1} )"),
        format!("( {x0} {y0} {z0} ) ( {x1} {y0} {z0} ) ( {x0} {y1} {z0} )"),
        format!("( {x0} {y0} {z1} ) ( {x0} {y1} {z1} ) ( {x1} {y0} {z1} )"),
    ];
    let mut s = String::from("{\n");
    for (i, p) in points.iter().enumerate() {
        s += &format!("{p} {} 0 0 0 1 1\n", tex(i));
    }
    s + "}\n"
}

/// The corridor's six walls, 16 thick, all `wall` except `ceiling` on the top one.
fn corridor_walls(ceiling: &dyn Fn(usize) -> String) -> String {
    let wall = |_: usize| "wall".to_string();
    let (t, x, y, z) = (16, 512, 128, 128);
    [
        slab_text([-t, -t, -t], [0, y + t, z + t], &wall),
        slab_text([x, -t, -t], [x + t, y + t, z + t], &wall),
        slab_text([-t, -t, -t], [x + t, 0, z + t], &wall),
        slab_text([-t, y, -t], [x + t, y + t, z + t], &wall),
        slab_text([-t, -t, -t], [x + t, y + t, 0], &wall),
        slab_text([-t, -t, z], [x + t, y + t, z + t], ceiling),
    ]
    .concat()
}

const START: &str = "{\n\"classname\" \"info_player_start\"\n\"origin\" \"64 64 24\"\n}\n";

/// The slab across the corridor, with face `i` textured `tex(i)`.
fn across(tex: &dyn Fn(usize) -> String) -> String {
    slab_text([192, 0, 0], [256, 128, 128], tex)
}

/// A corridor map with `world` brushes added to the worldspawn and `entities` after it.
fn corridor(world: &str, entities: &str) -> String {
    let wall = |_: usize| "wall".to_string();
    format!(
        "{{\n\"classname\" \"worldspawn\"\n{}{world}}}\n{entities}{START}",
        corridor_walls(&wall)
    )
}

fn cells_and_portals(text: &str) -> (Level, usize, usize) {
    let options = CompileOptions {
        leak_file: Some(
            std::env::temp_dir().join(format!("lanthorn-contents-{}.pts", std::process::id())),
        ),
        light: false,
        ..Default::default()
    };
    match compile_map_text(text, &options) {
        Ok((level, stats)) => {
            assert_eq!(stats.failed_brushes, 0, "{:?}", stats.warnings);
            let (c, p) = (level.cells.len(), level.portals.len());
            (level, c, p)
        }
        Err(e) => panic!("{e}"),
    }
}

/// Face `i` is `special` and every other face `other`.
fn one_face(i: usize, special: &'static str, other: &'static str) -> impl Fn(usize) -> String {
    move |k| if k == i { special } else { other }.to_string()
}

/// The first case: a sky slab of the hull with one `trigger` face. Only the last face
/// counts, and it is sky: the slab seals. (The old any-face rule made it nothing: a leak.)
#[test]
fn a_sky_ceiling_with_one_trigger_face_seals() {
    for trigger_face in [0, 3, 4] {
        let ceiling = one_face(trigger_face, "trigger", "sky1");
        let text = format!(
            "{{\n\"classname\" \"worldspawn\"\n{}}}\n{START}",
            corridor_walls(&ceiling)
        );
        let (level, c, p) = cells_and_portals(&text);
        assert_eq!((c, p), (1, 0), "trigger on face {trigger_face}");
        // The face seen from inside (face 4, -z) shows what it is textured with: sky, or the
        // trigger texture, which qbsp draws on a world brush like any other.
        let inside = if trigger_face == 4 { "trigger" } else { "sky1" };
        assert!(level.materials.iter().any(|m| m.name == inside));
        let sky_visible = level.cells[0].flags & cell_flags::SKY_VISIBLE != 0;
        assert_eq!(sky_visible, trigger_face != 4);
    }
}

/// The second case: a world brush all of whose faces are `trigger` is solid, as qbsp makes
/// it. Buried in a wall it changes nothing; across the corridor it seals it in two.
#[test]
fn an_all_trigger_world_brush_is_solid() {
    let trigger = |_: usize| "trigger".to_string();
    let buried = slab_text([100, -16, 40], [140, -4, 80], &trigger);
    assert_eq!(cells_and_portals(&corridor(&buried, "")).1, 1);
    let (level, c, p) = cells_and_portals(&corridor(&across(&trigger), ""));
    assert_eq!((c, p), (2, 0));
    assert!(level.cells.iter().all(|c| c.medium == Medium::Air));
}

/// The third case: a sky brush whose first face is `*teleport` stays sky (solid): two cells.
/// Were it water (the old rule), it would be a third cell between two portals.
#[test]
fn a_sky_brush_with_a_liquid_first_face_is_sky() {
    let (_, c, p) = cells_and_portals(&corridor(&across(&one_face(0, "*teleport", "sky4")), ""));
    assert_eq!((c, p), (2, 0));
}

/// The fourth case: a metal wall with one `*teleport` face is solid unless that face is the
/// last one written, when the whole brush is water (qbsp's rule, odd as it is).
#[test]
fn one_liquid_face_makes_water_only_when_it_is_the_last() {
    for face in 0..5 {
        let (_, c, p) = cells_and_portals(&corridor(
            &across(&one_face(face, "*teleport", "metal1_2")),
            "",
        ));
        assert_eq!((c, p), (2, 0), "*teleport on face {face}");
    }
    let (level, c, p) = cells_and_portals(&corridor(
        &across(&one_face(5, "*teleport", "metal1_2")),
        "",
    ));
    assert_eq!((c, p), (3, 2));
    let water = level
        .cells
        .iter()
        .filter(|c| c.medium == Medium::Water)
        .count();
    assert_eq!(water, 1);
}

/// The liquids by the last face's name (`*lava…`, `*slime…`, any other `*` water), clip by
/// its whole name (`clipper` is a texture), in any case.
#[test]
fn the_last_face_names_the_medium() {
    for (tex, medium, cells, portals) in [
        ("*lava1", Some(Medium::Lava), 3, 2),
        ("*SLIME0", Some(Medium::Slime), 3, 2),
        ("*04water1", Some(Medium::Water), 3, 2),
        ("*lav", Some(Medium::Water), 3, 2),
        ("CLIP", None, 1, 0),
        ("clipper", None, 2, 0),
        ("SKY3", None, 2, 0),
    ] {
        let (level, c, p) = cells_and_portals(&corridor(&across(&one_face(5, tex, "wall")), ""));
        assert_eq!((c, p), (cells, portals), "{tex}");
        if let Some(m) = medium {
            assert_eq!(
                level.cells.iter().filter(|c| c.medium == m).count(),
                1,
                "{tex}"
            );
        }
    }
    // A clip face that is not the last does not make the brush clip.
    let (_, c, p) = cells_and_portals(&corridor(&across(&one_face(2, "clip", "wall")), ""));
    assert_eq!((c, p), (2, 0));
}

/// A `trigger_*` entity's brush across the corridor is a separate model in Quake: it neither
/// seals nor draws nor becomes an object, whatever its faces say.
#[test]
fn a_trigger_entity_makes_nothing() {
    for tex in ["trigger", "wall", "*water0", "sky1"] {
        let brush = across(&|_| tex.to_string());
        let entity = format!("{{\n\"classname\" \"trigger_multiple\"\n{brush}}}\n");
        let (level, c, p) = cells_and_portals(&corridor("", &entity));
        assert_eq!((c, p), (1, 0), "{tex}");
        assert!(level.objects.is_empty());
    }
}

/// Liquid and sky count only in the world: a door textured `*water0` is a solid object.
#[test]
fn an_entity_brush_is_never_liquid() {
    let brush = across(&|_| "*water0".to_string());
    let entity = format!("{{\n\"classname\" \"func_door\"\n{brush}}}\n");
    let (level, c, p) = cells_and_portals(&corridor("", &entity));
    assert_eq!((c, p), (1, 0));
    assert_eq!(level.objects.len(), 1);
    assert!(level.cells.iter().all(|c| c.medium == Medium::Air));
}

/// The rule Lanthorn used before (any face: clip > nothing > liquid > sky > solid, `trigger`
/// counting as nothing), kept to list what the change does to real maps.
fn any_face_contents(mb: &map_file::MapBrush, group: entity_brushes::Group) -> brush::Contents {
    use brush::Contents;
    let texs: Vec<Option<Contents>> = mb
        .faces
        .iter()
        .map(|f| match f.texture.to_ascii_lowercase().as_str() {
            "trigger" => Some(Contents::Nothing),
            t => brush::texture_contents(t),
        })
        .collect();
    if texs.contains(&Some(Contents::Clip)) {
        Contents::Clip
    } else if texs.contains(&Some(Contents::Nothing)) || group == entity_brushes::Group::Trigger {
        Contents::Nothing
    } else if let Some(l) = texs.iter().flatten().find(|c| c.is_liquid()) {
        *l
    } else if texs.contains(&Some(Contents::Sky)) {
        Contents::Sky
    } else {
        Contents::Solid
    }
}

/// Lists every world brush of the 15 id maps whose contents differ between the old any-face
/// rule and id's (`cargo test --release --features test-hooks --lib contents_changes -- --ignored --nocapture`).
#[test]
#[ignore = "a report, not a check: prints the brushes whose medium changed"]
fn contents_changes_in_the_id_maps() {
    let dir = lanthorn_testdata::realdata_dir().join("quake/maps");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "map"))
        .collect();
    names.sort();
    for p in &names {
        let map = map_file::parse(&String::from_utf8_lossy(&std::fs::read(p).unwrap())).unwrap();
        for (ei, e) in map.entities.iter().enumerate() {
            let group = entity_brushes::entity_group(ei, e.classname());
            if group != entity_brushes::Group::World {
                continue;
            }
            for (bi, b) in e.brushes.iter().enumerate() {
                let (old, new) = (
                    any_face_contents(b, group),
                    entity_brushes::brush_contents(b, group),
                );
                if old != new {
                    let texs: Vec<&str> = b.faces.iter().map(|f| f.texture.as_str()).collect();
                    println!(
                        "{} entity {ei} brush {bi} (line {}): {old:?} -> {new:?}; faces {texs:?}",
                        p.file_name().unwrap().to_string_lossy(),
                        b.line
                    );
                }
            }
        }
    }
}
