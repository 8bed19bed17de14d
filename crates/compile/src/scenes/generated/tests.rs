//! The generated levels compile sealed with Lanthorn's compiler and with ericw-tools' qbsp,
//! hold every feature (counted in the compiled level, not from the generator's notes), and
//! depend on the seed alone.

use std::collections::BTreeMap;

use super::{generate, generate_counted, write_level, GenOptions};
use crate::{compile_map_text, CompileOptions};
use lanthorn_level::{Level, Medium};

const SEEDS: [u64; 4] = [1, 2, 3, 42];

fn compile(seed: u64, options: &GenOptions) -> Level {
    let text = generate(seed, options);
    let opts = CompileOptions {
        light: false,
        ..Default::default()
    };
    let (level, stats) =
        compile_map_text(&text, &opts).unwrap_or_else(|e| panic!("seed {seed}: {e:#}"));
    assert!(level.leak.is_none(), "seed {seed} leaks");
    assert_eq!(stats.failed_brushes, 0, "seed {seed}: {:?}", stats.warnings);
    level
}

fn classes(level: &Level) -> BTreeMap<&str, usize> {
    let mut count = BTreeMap::new();
    for e in &level.entities {
        *count.entry(e.classname()).or_default() += 1;
    }
    count
}

/// Entities: each kind present; the rising stairs' doors are targeted by a button or a
/// trigger; the train's path is a loop of `path_corner`s.
fn check_entities(seed: u64, level: &Level) {
    let count = classes(level);
    for class in [
        "info_player_start",
        "light",
        "func_door",
        "func_plat",
        "func_wall",
        "func_train",
        "path_corner",
        "func_door_secret",
        "func_detail",
    ] {
        assert!(
            count.get(class).is_some_and(|&n| n > 0),
            "seed {seed}: no {class}: {count:?}"
        );
    }
    let get = |e: &lanthorn_level::Entity, k: &str| e.get(k).map(String::from);
    let rising: Vec<String> = level
        .entities
        .iter()
        .filter(|e| e.classname() == "func_door" && e.get("angle") == Some("-1"))
        .filter_map(|e| get(e, "targetname"))
        .collect();
    let fired = level.entities.iter().any(|e| {
        matches!(e.classname(), "func_button" | "trigger_once")
            && e.get("target")
                .is_some_and(|t| rising.iter().any(|r| r == t))
    });
    assert!(fired, "seed {seed}: no button or trigger raises a stair");
    let next: BTreeMap<String, String> = level
        .entities
        .iter()
        .filter(|e| e.classname() == "path_corner")
        .filter_map(|e| Some((get(e, "targetname")?, get(e, "target")?)))
        .collect();
    let train = level
        .entities
        .iter()
        .find(|e| e.classname() == "func_train")
        .unwrap();
    let first = get(train, "target").expect("the train has a target");
    let mut at = first.clone();
    for _ in 0..4 {
        at = next
            .get(&at)
            .unwrap_or_else(|| panic!("seed {seed}: path breaks at {at}"))
            .clone();
    }
    assert_eq!(
        at, first,
        "seed {seed}: the train's path is no loop of four"
    );
}

/// Geometry: liquids of each kind, sky, angled walls and sloped arch facets, several storeys.
fn check_geometry(seed: u64, level: &Level) {
    for m in [Medium::Water, Medium::Slime, Medium::Lava] {
        assert!(
            level.cells.iter().any(|c| c.medium == m),
            "seed {seed}: no {m:?} cell"
        );
    }
    let used = |name: &str| {
        let id = level
            .materials
            .iter()
            .position(|m| m.name.eq_ignore_ascii_case(name));
        id.is_some_and(|id| level.surfaces.iter().any(|s| s.material as usize == id))
    };
    for name in ["sky1", "*water0", "*slime0", "*lava1"] {
        assert!(used(name), "seed {seed}: no surface of {name}");
    }
    assert!(level.sky.is_some(), "seed {seed}: no sky");
    let angled = level.surfaces.iter().any(|s| {
        let n = s.normal;
        n.z.abs() < 0.01 && n.x.abs() > 0.1 && n.y.abs() > 0.1
    });
    assert!(angled, "seed {seed}: no angled wall");
    let sloped = level
        .surfaces
        .iter()
        .any(|s| (0.1..0.99).contains(&s.normal.z.abs()));
    assert!(sloped, "seed {seed}: no arch facet");
    let floors: Vec<f32> = level
        .cells
        .iter()
        .filter(|c| c.medium == Medium::Air)
        .map(|c| c.aabb.min.z)
        .collect();
    let span = floors.iter().cloned().fold(f32::MIN, f32::max)
        - floors.iter().cloned().fold(f32::MAX, f32::min);
    assert!(
        span >= 192.0,
        "seed {seed}: one storey (floors span {span})"
    );
    assert!(
        level.objects.len() >= 5,
        "seed {seed}: {} objects",
        level.objects.len()
    );
}

#[test]
fn seeds_compile_sealed_with_every_feature() {
    for seed in SEEDS {
        let (_, attempts) = generate_counted(seed, &GenOptions::default());
        assert!(attempts <= 64, "seed {seed}: no attempt had every feature");
        let level = compile(seed, &GenOptions::default());
        check_entities(seed, &level);
        check_geometry(seed, &level);
        eprintln!(
            "seed {seed}: attempt {attempts}, {} cells, {} portals, {} surfaces, {} objects",
            level.cells.len(),
            level.portals.len(),
            level.surfaces.len(),
            level.objects.len()
        );
    }
}

/// Small and large levels compile sealed too (they need not hold every feature).
#[test]
fn sizes_compile_sealed() {
    for (seed, rooms, storeys) in [(5, 4, 1), (6, 8, 2), (7, 30, 3), (8, 24, 4)] {
        let level = compile(seed, &GenOptions { rooms, storeys });
        assert!(
            level.cells.len() > rooms as usize,
            "seed {seed}: {} cells",
            level.cells.len()
        );
    }
}

#[test]
fn same_seed_same_text_other_seeds_differ() {
    let o = GenOptions::default();
    assert_eq!(generate(9, &o), generate(9, &o));
    let texts: Vec<String> = (0..6).map(|s| generate(s, &o)).collect();
    for i in 0..texts.len() {
        for j in i + 1..texts.len() {
            assert_ne!(texts[i], texts[j], "seeds {i} and {j} gave the same level");
        }
    }
    assert_ne!(
        generate(
            9,
            &GenOptions {
                rooms: 10,
                ..o.clone()
            }
        ),
        generate(9, &o)
    );
}

/// ericw-tools' qbsp compiles a few seeds without a leak, and the BSP and the map (through
/// its wads beside it) load into levels.
#[test]
fn ericw_qbsp_compiles_without_a_leak() {
    let qbsp = lanthorn_testdata::realdata_dir().join("../tools/ericw/bin/qbsp");
    let wad = lanthorn_testdata::realdata_dir().join("quake/wads/base.wad");
    for needed in [&qbsp, &wad] {
        if !needed.is_file() {
            lanthorn_testdata::missing_realdata(needed);
            return;
        }
    }
    let dir = std::env::temp_dir().join(format!("lanthorn-generated-{}", std::process::id()));
    for seed in [1, 7, 19] {
        let map = write_level(&dir, seed, &GenOptions::default());
        let out = std::process::Command::new(&qbsp)
            .arg("-noprogress")
            .arg(&map)
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", qbsp.display()));
        let log = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "seed {seed}: qbsp failed:\n{log}");
        assert!(
            !log.contains("LEAK"),
            "seed {seed}: qbsp found a leak:\n{log}"
        );
        assert!(
            !map.with_extension("pts").exists(),
            "seed {seed}: qbsp wrote a point file"
        );
        let bsp = lanthorn_load::load(&map.with_extension("bsp"))
            .unwrap_or_else(|e| panic!("seed {seed}: {e:#}"));
        assert!(
            bsp.cells.len() > 20 && bsp.sky.is_some(),
            "seed {seed}: {} cells",
            bsp.cells.len()
        );
        let own = lanthorn_load::load(&map).unwrap_or_else(|e| panic!("seed {seed}: {e:#}"));
        let textured = own.materials.iter().filter(|m| m.texels.is_some()).count();
        assert!(
            textured + 2 >= own.materials.len(),
            "seed {seed}: the wads beside the map were not read"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
