//! Golden images of the culling overlays (`capture --overlay`), each from a fixed camera: on
//! e1m1 from its player start, on `builtin:portals` looking at the mirror and the teleporter
//! (their views' portals dashed), and culling frozen at e1m1's start seen from above.

use glam::Vec3;
use lanthorn::app::overlays::Overlays;
use lanthorn::geom::CameraSpec;
use lanthorn::render::settings::FrameSettings;
use lanthorn::vis::CullMode;

use crate::golden::{check_golden, quake_level};
use crate::support::gpu;

const SIZE: (u32, u32) = (480, 270);

fn capture(
    level: &lanthorn::level::Level,
    camera: CameraSpec,
    overlays: Overlays,
) -> image::RgbaImage {
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
    for name in [
        "portals",
        "octagons",
        "cells",
        "depth",
        "overdraw",
        "wireframe",
    ] {
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

/// A room whose +x wall is player clip (which does not seal), with the player start inside.
pub(crate) fn leaky_room_map() -> String {
    let wall = lanthorn_testdata::box_brush::<i32>;
    let mut text = String::from("{\n\"classname\" \"worldspawn\"\n");
    text += &wall([-16, -16, -16], [0, 272, 144], "wall");
    text += &wall([512, -16, -16], [528, 272, 144], "clip");
    text += &wall([-16, -16, -16], [528, 0, 144], "wall");
    text += &wall([-16, 256, -16], [528, 272, 144], "wall");
    text += &wall([-16, -16, -16], [528, 272, 0], "floor");
    text += &wall([-16, -16, 128], [528, 272, 144], "ceiling");
    text += "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"128 128 48\"\n}\n";
    text
}

/// A room whose +x wall is player clip (which does not seal), compiled with `--allow-leak`:
/// the stored leak path is drawn as a magenta line from the player start (its cross) out
/// through the clip wall, seen from inside the room.
#[test]
fn the_leak_of_a_leaky_map_matches_golden() {
    if gpu().is_none() {
        return;
    }
    let text = leaky_room_map();
    let options = lanthorn::compile::CompileOptions {
        allow_leak: true,
        light: false,
        ..Default::default()
    };
    let (level, stats) = lanthorn::compile::compile_map_text(&text, &options).unwrap();
    assert!(stats.leak);
    let leak = level.leak.as_ref().expect("the level keeps its leak path");
    assert!(
        leak.points.last().unwrap().x > 528.0,
        "the path leaves through the clip wall"
    );
    let camera = CameraSpec {
        position: Vec3::new(40.0, 40.0, 100.0),
        yaw: 20.0,
        pitch: -10.0,
    };
    let overlays = Overlays {
        set: "leak".parse().unwrap(),
        ..Default::default()
    };
    let img = capture(&level, camera, overlays);
    let magenta = img
        .pixels()
        .filter(|p| p.0[0] > 200 && p.0[1] < 120 && p.0[2] > 200)
        .count();
    assert!(
        magenta > 100,
        "{magenta} magenta pixels: the leak line is not drawn"
    );
    check_golden("overlay_leak_room", &img);
}

/// The overdraw overlay counts inside the frame (an offscreen pass of the world pass, read
/// back frames later without a stall): its number and its heatmap match the standalone
/// counter's own submit over the same prepared draws, for every octagon clipping.
#[test]
fn the_overdraw_overlay_counts_what_the_standalone_counter_counts() {
    use lanthorn::render::overdraw::{FragmentCount, OverdrawCounter};
    use lanthorn::render::overlay::heatmap::RAMP;
    use lanthorn::render::world::OctagonClip;
    let Some(gpu) = gpu() else {
        return;
    };
    let Some(level) = quake_level("e1m1") else {
        return;
    };
    let camera = lanthorn::geom::Camera::new(level.player_start().unwrap(), 16.0 / 9.0);
    // The ramp's colours as the sRGB frame target stores them.
    let encode = |c: f32| {
        let s = if c <= 0.0031308 {
            c * 12.92
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        };
        s * 255.0
    };
    let ramp: Vec<[f32; 3]> = RAMP.iter().map(|c| c.map(encode)).collect();
    let bucket = |p: &image::Rgba<u8>| {
        let d = |c: &[f32; 3]| (0..3).map(|i| (p[i] as f32 - c[i]).powi(2)).sum::<f32>();
        (0..ramp.len())
            .min_by(|&a, &b| d(&ramp[a]).total_cmp(&d(&ramp[b])))
            .unwrap() as u8
    };
    for clip in OctagonClip::ALL {
        let overlays = Overlays {
            overdraw_clip: clip,
            ..with("overdraw")
        };
        let mut session =
            lanthorn::app::session::Session::new(gpu, &level, None, SIZE, CullMode::Portal)
                .with(FrameSettings::default(), overlays);
        for _ in 0..8 {
            session.frame(gpu, &camera, 0.0);
        }
        // The renderer falls back to discard where the device has no clip distances.
        let counted = match clip {
            OctagonClip::ClipDistances if !gpu.features.clip_distances => OctagonClip::Discard,
            c => c,
        };
        let world = &session.renderer.world;
        let truth = OverdrawCounter::create(gpu, SIZE)
            .per_pixel(gpu, world, counted)
            .expect("a supported clipping");
        let expected = FragmentCount::of(&truth).overdraw();
        assert!(expected > 1.0, "{clip:?}: {expected} fragments a pixel");
        assert_eq!(
            session.renderer.overlay_overdraw(),
            Some(expected),
            "{clip:?}"
        );
        let img = session.read_color(gpu);
        let wrong = img
            .pixels()
            .zip(&truth)
            .filter(|(p, &n)| bucket(p) != n.min(5))
            .count();
        assert_eq!(wrong, 0, "{clip:?}: heatmap pixels off the count");
    }
}

/// The overlay pass grows its vertex buffer past the 4,096 vertices it starts with: a light
/// grid dense enough in front of the camera that its overlay has more line vertices than that
/// draws them all (before, the upload overran the buffer and the frame failed).
#[test]
fn more_overlay_lines_than_the_first_buffer_holds_are_all_drawn() {
    use lanthorn::level::{LightGrid, LightStyles};
    let Some(gpu) = gpu() else { return };
    let mut level = lanthorn::scenes::builtin::portals_scene();
    let spec = CameraSpec {
        position: Vec3::new(200.0, -150.0, 120.0),
        yaw: 160.0,
        pitch: -5.0,
    };
    let camera = lanthorn::geom::Camera::new(spec, SIZE.0 as f32 / SIZE.1 as f32);
    let size = [24u32, 24, 12];
    let n = (size[0] * size[1] * size[2]) as usize;
    let styles = vec![LightStyles::default(); n];
    let mut lit = lanthorn::geom::sh::Sh9::ZERO;
    lit.add_uniform(Vec3::new(120.0, 20.0, 20.0));
    level.light_grid = Some(LightGrid {
        origin: spec.position - Vec3::new(240.0, 120.0, 100.0),
        spacing: Vec3::splat(12.0),
        size,
        first: LightGrid::firsts(&styles),
        styles,
        slots: vec![lit; n],
        ..Default::default()
    });
    let frame = |overlays: Overlays| {
        let mut session =
            lanthorn::app::session::Session::new(gpu, &level, None, SIZE, CullMode::Portal)
                .with(FrameSettings::default(), overlays);
        session.frame(gpu, &camera, 0.0);
        let view = lanthorn::render::overlay::OverlayView {
            camera: &camera,
            culling: &camera,
            visible: &session.visible,
        };
        let mut lines = Vec::new();
        lanthorn::render::overlay::lines::light_grid_lines(&level, &view, &mut lines);
        (session.read_color(gpu), lines.len())
    };
    let (plain, _) = frame(Overlays::default());
    let (crossed, vertices) = frame(with("light-grid"));
    assert!(vertices > 4096, "only {vertices} line vertices");
    let reddish = crossed
        .pixels()
        .zip(plain.pixels())
        .filter(|(a, b)| a != b && a[0] > a[1] + 60)
        .count();
    assert!(
        reddish > 2000,
        "{reddish} pixels of crosses for {vertices} line vertices"
    );
}
