//! Leak reports on a hand-made leaky map: the room of `room_map` with its +x wall (x ∈
//! [1024, 1040]) replaced by a `clip` brush, which does not seal. Every expectation is read off
//! the map text itself (the oracle): the entity's line, the brush's line, the room's box.

use super::*;

struct Leaky {
    dir: PathBuf,
    text: String,
    /// Line of the clip brush's opening brace and of the player start's.
    clip_line: usize,
    start_line: usize,
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

fn leaky(name: &str) -> Leaky {
    let dir = std::env::temp_dir().join(format!("lanthorn-leak-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = tests::room_map(Some(1));
    let at = text.find("}\n{\n\"classname\" \"func_detail\"").unwrap();
    text.insert_str(
        at,
        &map_props::box_text([1024, -16, -16], [1040, 528, 272], "clip"),
    );
    let clip_line = line_of(&text, at);
    let start_line = line_of(
        &text,
        text.find("{\n\"classname\" \"info_player_start\"").unwrap(),
    );
    Leaky {
        dir,
        text,
        clip_line,
        start_line,
    }
}

fn read_points(path: &Path) -> Vec<DVec3> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Vec<f64> = l.split_whitespace().map(|v| v.parse().unwrap()).collect();
            assert_eq!(v.len(), 3, "{l}");
            DVec3::new(v[0], v[1], v[2])
        })
        .collect()
}

/// The report names the entity's line and the clip brush (entity 0, its index among the
/// worldspawn's brushes, its line, why); the point file has a point every 2 units from the
/// entity to beyond the room; the stale level is gone.
#[test]
fn a_leak_names_the_entity_line_and_the_brush_that_does_not_seal() {
    let l = leaky("report");
    let map = l.dir.join("room.map");
    std::fs::write(&map, &l.text).unwrap();
    let out = l.dir.join("room.lvl");
    std::fs::write(&out, b"stale").unwrap();
    let err = compile_to_file(&map, &out, &CompileOptions::default()).unwrap_err();
    let text = err.to_string();
    let CompileError::Leak {
        line,
        classname,
        position,
        pointfile,
        ..
    } = &err
    else {
        panic!("{err}")
    };
    // room_map's first point entity is the player start; it is the first the flood reaches.
    assert_eq!(classname, "info_player_start");
    assert_eq!(*line as usize, l.start_line);
    assert!(text.starts_with(&format!(
        "{}:{}: leak: entity ",
        map.display(),
        l.start_line
    )));
    // The clip brush is worldspawn's 7th brush (5 walls and the pool before it: index 6).
    let brush = format!(
        "entity 0 (worldspawn) brush 6 (line {}): its last face (line {}) is \"clip\"",
        l.clip_line,
        l.clip_line + 6
    );
    assert!(text.contains(&brush), "{text}");
    assert_eq!(
        text.matches("player clip, which does not seal").count(),
        1,
        "{text}"
    );
    assert!(!out.exists(), "the stale level is removed on a leak");
    let pts = read_points(pointfile.as_ref().unwrap());
    assert!(pts[0].distance(Vec3::from_array(*position).as_dvec3()) < 1e-3);
    for w in pts.windows(2) {
        assert!(w[0].distance(w[1]) <= 2.0 + 1e-6, "{} → {}", w[0], w[1]);
    }
    let end = *pts.last().unwrap();
    assert!(
        end.x > 1040.0 || end.y > 528.0 || end.z > 272.0 || end.min_element() < -16.0,
        "{end}"
    );
    // Sealed again: the level is written and the stale point file removed.
    std::fs::write(&map, tests::room_map(None)).unwrap();
    compile_to_file(&map, &out, &CompileOptions::default()).unwrap();
    assert!(out.exists());
    assert!(
        !pointfile.as_ref().unwrap().exists(),
        "the stale point file is removed"
    );
    std::fs::remove_dir_all(&l.dir).unwrap();
}

/// `--allow-leak` writes the level, outside kept, with the same path as the point file in it;
/// it loads back from the `.lvl`.
#[test]
fn allow_leak_writes_the_level_with_its_leak_path() {
    let l = leaky("allow");
    let map = l.dir.join("room.map");
    std::fs::write(&map, &l.text).unwrap();
    let out = l.dir.join("room.lvl");
    let options = CompileOptions {
        allow_leak: true,
        ..Default::default()
    };
    let stats = compile_to_file(&map, &out, &options).unwrap();
    assert!(stats.leak);
    assert_eq!(
        stats
            .warnings
            .iter()
            .filter(|w| w.contains("leak:"))
            .count(),
        1
    );
    let level = lanthorn_level::file::load_lvl(&out).unwrap();
    let leak = level.leak.as_ref().unwrap();
    assert_eq!(
        (leak.entity.as_str(), leak.line as usize),
        ("info_player_start", l.start_line)
    );
    // The brush it leaves through is stored with it (the demo's panel names it): the clip
    // brush, by its line in the map.
    assert_eq!(leak.crossings.len(), 1, "{:?}", leak.crossings);
    assert!(
        leak.crossings[0].contains(&format!("(line {})", l.clip_line)),
        "{:?} (clip brush at line {})",
        leak.crossings,
        l.clip_line
    );
    let pts = read_points(&out.with_extension("pts"));
    assert_eq!(leak.points.len(), pts.len());
    for (a, b) in leak.points.iter().zip(&pts) {
        assert!(a.as_dvec3().distance(*b) < 1e-2);
    }
    // The outside is kept: the room's cells and more (the void around the walls).
    let sealed = compile_map_text(&tests::room_map(None), &CompileOptions::default())
        .unwrap()
        .0;
    assert!(level.cells.len() > sealed.cells.len());
    assert_eq!(sealed.leak, None);
    std::fs::remove_dir_all(&l.dir).unwrap();
}
