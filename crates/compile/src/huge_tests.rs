//! Inputs as large as the sources allow (±65536) cost work bounded by the brush count, not by
//! the coordinate range: the lookup grid stores a box in at most 8 cells, and an open leaf is
//! split into at most 4096 cells. (Before, one ±65536 brush ran past 20 s and 2.4 GB.) The
//! counts below are worked out by hand; the memory and time bounds themselves are checked by
//! the mutation tests, which run such inputs in a subprocess under a memory limit and a timeout.

use super::*;

fn box_brush(a: [i64; 3], b: [i64; 3]) -> String {
    let ([x0, y0, z0], [x1, y1, z1]) = (a, b);
    [
        format!("( {x0} {y0} {z0} ) ( {x0} {y1} {z0} ) ( {x0} {y0} {z1} )"),
        format!("( {x1} {y0} {z0} ) ( {x1} {y0} {z1} ) ( {x1} {y1} {z0} )"),
        format!("( {x0} {y0} {z0} ) ( {x0} {y0} {z1} ) ( {x1} {y0} {z0} )"),
        format!("( {x0} {y1} {z0} ) ( {x1} {y1} {z0} ) ( {x0} {y1} {z1} )"),
        format!("( {x0} {y0} {z0} ) ( {x1} {y0} {z0} ) ( {x0} {y1} {z0} )"),
        format!("( {x0} {y0} {z1} ) ( {x0} {y1} {z1} ) ( {x1} {y0} {z1} )"),
    ]
    .iter()
    .fold("{\n".to_string(), |s, f| s + f + " wall 0 0 0 1 1\n")
        + "}\n"
}

fn options() -> CompileOptions {
    CompileOptions {
        leak_file: None,
        ..Default::default()
    }
}

const START: &str = "{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 0\"\n}\n{\n\"classname\" \"light\"\n\"origin\" \"100 100 100\"\n}\n";

/// One solid cube as large as the parser allows fills everything: no open space, an error.
#[test]
fn a_huge_solid_cube_is_refused_quickly() {
    for n in [32768, 65536] {
        let text = format!(
            "{{\n\"classname\" \"worldspawn\"\n{}}}\n{START}",
            box_brush([-n; 3], [n; 3])
        );
        let err = compile_map_text(&text, &options()).unwrap_err();
        assert!(matches!(err, CompileError::Empty { .. }), "{err}");
        assert!(err.to_string().contains("enclose no open space"), "{err}");
    }
}

/// A hollow box ±32768 (walls 16 thick): its inside, 65504 units wide, would be 128³ cells of
/// 512; the split stops at 4096 cells, 16 per axis (halved 4 times, each at most 4096 units),
/// joined by 3 · 15 · 16 · 16 = 11520 portals, filling the inside.
#[test]
fn a_huge_hollow_room_is_split_into_at_most_4096_cells() {
    let (n, m) = (32768, 32768 - 16);
    let mut world = String::new();
    for k in 0..3 {
        let (mut lo, mut hi) = ([-n; 3], [n; 3]);
        hi[k] = -m;
        world += &box_brush(lo, hi);
        lo[k] = m;
        hi[k] = n;
        world += &box_brush(lo, hi);
    }
    let text = format!("{{\n\"classname\" \"worldspawn\"\n{world}}}\n{START}");
    let (level, stats) = compile_map_text(&text, &options()).unwrap();
    assert!(!stats.leak);
    assert_eq!((level.cells.len(), level.portals.len()), (4096, 11520));
    let mut volume = 0.0;
    for c in &level.cells {
        assert!(c.aabb.size().max_element() <= 4096.0, "{:?}", c.aabb);
        volume += c.aabb.size().as_dvec3().element_product();
    }
    assert!((volume / 65504f64.powi(3) - 1.0).abs() < 1e-6, "{volume}");
}

/// A scene whose one operation carves a ±65536 box of air: one cell, its six walls.
#[test]
fn a_huge_scene_box_is_one_cell() {
    let text = "Scene(ops: [(brush: Box(min: (-65536, -65536, -65536), max: (65536, 65536, 65536)), medium: Air)], \
                entities: [[(\"classname\", \"light\"), (\"origin\", \"10 10 10\")]])";
    let scene = scene::parse(text).unwrap();
    let (level, _) = scene::compile_scene(&scene, &options()).unwrap();
    assert_eq!((level.cells.len(), level.portals.len()), (1, 0));
    assert_eq!(level.surfaces.len(), 6);
}
