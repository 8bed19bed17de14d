//! Golden images of the culling overlays (`capture --overlay`), each from a fixed camera: on
//! e1m1 from its player start, on `builtin:portals` looking at the mirror and the teleporter
//! (their views' portals dashed), and culling frozen at e1m1's start seen from above.

use glam::Vec3;
use lanthorn::app::overlays::Overlays;
use lanthorn::geom::CameraSpec;
use lanthorn::render::frame::FrameSettings;
use lanthorn::vis::CullMode;

use crate::golden::{check_golden, quake_level};
use crate::support::gpu;

const SIZE: (u32, u32) = (480, 270);

fn capture(level: &lanthorn::level::Level, camera: CameraSpec, overlays: Overlays) -> image::RgbaImage {
    let gpu = gpu().expect("checked by the caller");
    let (img, stats) = lanthorn::app::capture::capture_with_terrain(
        gpu,
        level,
        None,
        camera,
        SIZE,
        CullMode::Portal,
        &FrameSettings::default(),
        &overlays,
    );
    assert!(stats.world.triangles > 0);
    img
}

fn with(names: &str) -> Overlays {
    Overlays {
        set: names.parse().unwrap(),
        ..Default::default()
    }
}

#[test]
fn each_world_overlay_on_e1m1_matches_golden() {
    if gpu().is_none() {
        return;
    }
    let Some(level) = quake_level("e1m1") else {
        return;
    };
    let start = level.player_start().unwrap();
    for name in ["portals", "octagons", "cells", "depth", "overdraw", "wireframe"] {
        let img = capture(&level, start, with(name));
        check_golden(&format!("overlay_e1m1_{name}"), &img);
    }
}

#[test]
fn portals_overlay_in_mirror_and_teleporter_views_matches_golden() {
    if gpu().is_none() {
        return;
    }
    let level = lanthorn::scenes::builtin::portals_scene();
    let camera = CameraSpec {
        position: Vec3::new(200.0, -150.0, 120.0),
        yaw: 160.0,
        pitch: -5.0,
    };
    let img = capture(&level, camera, with("portals,octagons"));
    check_golden("overlay_portals_scene", &img);
}

/// Culling frozen at e1m1's player start, the frame drawn from above and behind: the kept
/// cells, the culled surfaces by reason, the tested portals and the frozen frustum.
#[test]
fn frozen_culling_seen_from_outside_matches_golden() {
    if gpu().is_none() {
        return;
    }
    let Some(level) = quake_level("e1m1") else {
        return;
    };
    let start = level.player_start().unwrap();
    let above = CameraSpec {
        position: start.position + Vec3::new(0.0, -160.0, 260.0),
        yaw: 90.0,
        pitch: -50.0,
    };
    let overlays = Overlays {
        cull_camera: Some(start),
        ..with("frozen,portals,culled-surfaces")
    };
    let img = capture(&level, above, overlays);
    check_golden("overlay_e1m1_frozen", &img);
}
