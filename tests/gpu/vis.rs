//! The portal traverser against the unculled ground truth (the `vis-check` harness), on levels
//! compiled from the id map sources and on the imported id BSPs.

use lanthorn::app::vis_check::{run, VisCheckOptions};

use crate::golden::quake_level;
use crate::support::{gpu_fallbacks, unavailable};

fn compiled(name: &str) -> Option<lanthorn::level::Level> {
    let path = lanthorn::realdata_dir()
        .join("quake/maps")
        .join(format!("{name}.map"));
    if !path.exists() {
        return unavailable(
            "../shared/realdata",
            &format!("{} is missing", path.display()),
        );
    }
    let (level, stats) =
        lanthorn::compile::compile(&path, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
    assert!(!stats.leak);
    Some(level)
}

fn check(
    level: &lanthorn::level::Level,
    views: u32,
    seed: u64,
) -> lanthorn::app::vis_check::VisCheckReport {
    // The exact fragment test for octagons (lavapipe's hardware clip distances crack at
    // octagon edges, which would show up as differing pixels that are not culling errors).
    let gpu = gpu_fallbacks().expect("checked by the caller");
    let report = run(
        gpu,
        level,
        &VisCheckOptions {
            views,
            seed,
            size: (320, 180),
            ..Default::default()
        },
    )
    .unwrap();
    report.print_table();
    report
}

#[test]
fn portal_culling_misses_nothing_on_compiled_id_maps() {
    if gpu_fallbacks().is_none() {
        return;
    }
    for (map, seed) in [("e1m1", 11), ("dm3", 12)] {
        let Some(level) = compiled(map) else { return };
        let report = check(&level, 150, seed);
        let portal = report
            .methods
            .iter()
            .find(|m| m.method == "portal")
            .unwrap();
        let frustum = report
            .methods
            .iter()
            .find(|m| m.method == "frustum")
            .unwrap();
        assert_eq!(portal.missed_surfaces, 0, "{map}: {:?}", portal.worst);
        assert_eq!(portal.differing_pixels, 0, "{map}: {:?}", portal.worst);
        // And it is far tighter than frustum culling alone.
        assert!(portal.mean_ratio() * 5.0 < frustum.mean_ratio(), "{map}");
    }
}

/// With the truth fixed (no flat triangles, no triggers), portal culling on an imported map
/// misses nothing and leaves at most vis-check's allowance of 2 pixels per 300 views, and it
/// submits well under GLQuake's method (`pvs`) and the whole-cell PVS.
#[test]
fn portal_culling_on_imported_bsp_beats_glquakes_pvs() {
    if gpu_fallbacks().is_none() {
        return;
    }
    let Some(level) = quake_level("e1m1") else {
        return;
    };
    let report = check(&level, 150, 21);
    let method = |name: &str| report.methods.iter().find(|m| m.method == name).unwrap();
    let (portal, pvs, cells) = (method("portal"), method("pvs"), method("pvs-cells"));
    assert_eq!(portal.missed_surfaces, 0, "{:?}", portal.worst);
    assert!(
        portal.differing_pixels <= 1,
        "{} pixels: {:?}",
        portal.differing_pixels,
        portal.worst
    );
    // What these views measured on 2026-12-02 (portal 2.34, GLQuake's pvs 10.11 at 320x180):
    // a change that loosens or tightens either by more than 10 % shows here.
    for (m, measured) in [(portal, 2.34), (pvs, 10.11)] {
        let r = m.mean_ratio();
        assert!(
            (r / measured - 1.0).abs() < 0.1,
            "{}: submitted/visible {r}, measured {measured}",
            m.method
        );
    }
    assert!(
        portal.mean_ratio() <= 0.6 * pvs.mean_ratio() && pvs.mean_ratio() < cells.mean_ratio(),
        "portal {} pvs {} pvs-cells {}",
        portal.mean_ratio(),
        pvs.mean_ratio(),
        cells.mean_ratio()
    );
}

/// The README's outdoor scene: eyes high on the terrace look over the facade and the hall's
/// unbuilt roof. The truth render treats surfaces seen from behind as the level's solid outside
/// (they hide what is behind them); the portal flow, through the OUTSIDE cell, misses nothing.
#[test]
fn portal_culling_misses_nothing_in_an_outdoor_scene() {
    if gpu_fallbacks().is_none() {
        return;
    }
    let level = crate::support::readme_scene();
    assert!(level.outside_cell().is_some());
    let report = check(&level, 120, 5);
    let portal = report
        .methods
        .iter()
        .find(|m| m.method == "portal")
        .unwrap();
    assert_eq!(portal.missed_surfaces, 0, "{:?}", portal.worst);
    assert_eq!(portal.differing_pixels, 0, "{:?}", portal.worst);
}

/// The keep, the demo's level: random eyes in its corridor, rooms, hall, cellar, courtyard and
/// out on the drawbridge, with every door shut (24 s) and every door open (6.5 s); the truth
/// includes the views of the mirror and the teleporter window, objects in them, and the shut
/// doors. The portal flow misses nothing.
#[test]
fn portal_culling_misses_nothing_in_the_keep_with_doors_shut_and_open() {
    let Some(gpu) = gpu_fallbacks() else { return };
    let options = lanthorn::compile::CompileOptions {
        light: false,
        ..Default::default()
    };
    let (level, _) = lanthorn::scenes::embedded::compile("keep.ron", &options).unwrap();
    for time in [24.0, 6.5, 0.0] {
        let options = VisCheckOptions {
            views: 150,
            seed: 7,
            size: (320, 180),
            overdraw: false,
            time,
            ..Default::default()
        };
        let report = run(gpu, &level, &options).unwrap();
        report.print_table();
        let portal = &report.methods[0];
        assert_eq!(portal.method, "portal");
        assert_eq!(portal.missed_surfaces, 0, "at {time} s: {:?}", portal.worst);
    }
}

/// Every other committed near-portal and walk view (`tests/views/*-portals.json`: eyes 0-8
/// units from a portal's plane, over it, at its edges and corners, and the bench walk through
/// portals): portal culling misses no surface and leaves no differing pixel, on e1m1 imported
/// and compiled and in the keep at its start.
#[test]
fn portal_culling_misses_nothing_at_doorways() {
    let Some(gpu) = gpu_fallbacks() else { return };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/views");
    let keep = lanthorn::load::load(std::path::Path::new("keep")).unwrap();
    let mut levels = vec![("keep", keep, "keep-portals.json")];
    if let Some(l) = quake_level("e1m1") {
        levels.push(("e1m1.bsp", l, "e1m1-portals.json"));
    }
    if let Some(l) = compiled("e1m1") {
        levels.push(("e1m1.map", l, "e1m1.map-portals.json"));
    }
    for (name, level, file) in &levels {
        let views = lanthorn::app::vis_check::views_in_cells(&dir.join(file), level).unwrap();
        let options = VisCheckOptions {
            views_list: Some(views.into_iter().step_by(2).collect()),
            size: (320, 180),
            overdraw: false,
            ..Default::default()
        };
        let report = run(gpu, level, &options).unwrap();
        report.print_table();
        let portal = &report.methods[0];
        assert_eq!(portal.method, "portal");
        assert_eq!(portal.missed_surfaces, 0, "{name}: {:?}", portal.worst);
        assert_eq!(portal.differing_pixels, 0, "{name}: {:?}", portal.worst);
    }
}
