//! Water in the world reflects (`--reflections`): the top of a pool in the camera's view is its
//! own colour (the frame with reflections off) blended by Schlick's Fresnel term (F0 = 0.02,
//! at each pixel's ray) over the reflection — which equals the frame of a camera at the eye's
//! mirror image under the water, pitched up as much as the eye looks down, turned upside down,
//! drawn without culling in the same room without its water. A golden image of the keep's
//! flooded cellar.

use glam::Vec3;
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::level::Level;
use lanthorn::render::settings::FrameSettings;
use lanthorn::vis::CullMode;

use crate::golden::check_golden;
use crate::support::gpu;
use crate::terrain::pixel_direction;

const SIZE: (u32, u32) = (320, 180);
/// The water's plane.
const WATER: f32 = 256.0;

/// A room with walls of three colours, flooded to `WATER` when `flooded`; lit from above the
/// water (liquids do not stop light, so the walls above it are lit alike either way).
fn pool(flooded: bool) -> Level {
    let water = if flooded {
        r#"(brush: Box(min: (0, 0, 0), max: (1024, 1024, 256)), medium: Water, only: Some([Air]), material: Some("*water")),"#
    } else {
        ""
    };
    let source = format!(
        r#"Scene(
    materials: [
        (name: "grey", source: Color((0.5, 0.5, 0.5))),
        (name: "red", source: Color((0.8, 0.2, 0.15))),
        (name: "green", source: Color((0.2, 0.7, 0.25))),
        (name: "blue", source: Color((0.2, 0.3, 0.8))),
        (name: "*water", source: Color((0.1, 0.3, 0.4))),
    ],
    ops: [
        (brush: Box(min: (0, 0, 0), max: (1024, 1024, 640)), medium: Air, material: Some("grey")),
        (brush: Box(min: (0, 0, 0), max: (16, 1024, 640)), medium: Solid, material: Some("red")),
        (brush: Box(min: (1008, 0, 0), max: (1024, 1024, 640)), medium: Solid, material: Some("green")),
        (brush: Box(min: (0, 1008, 0), max: (1024, 1024, 640)), medium: Solid, material: Some("blue")),
        {water}
    ],
    entities: [
        [("classname", "worldspawn"), ("light", "96")],
        [("classname", "light"), ("origin", "512 512 560"), ("light", "500")],
    ],
)"#
    );
    let scene = lanthorn::compile::scene::parse(&source).unwrap();
    lanthorn::compile::scene::compile_scene(&scene, &Default::default())
        .unwrap()
        .0
}

fn frame(level: &Level, spec: CameraSpec, cull: CullMode, reflections: bool) -> image::RgbaImage {
    let settings = FrameSettings {
        reflections,
        surface_cache: false,
        ..Default::default()
    };
    crate::support::capture(level, spec, SIZE, cull, &settings)
}

#[test]
fn the_pool_shows_the_mirrored_cameras_frame_blended_by_fresnel() {
    let Some(_) = gpu() else { return };
    let eye = CameraSpec {
        position: Vec3::new(512.0, 60.0, 330.0),
        yaw: 90.0,
        pitch: -20.0,
    };
    let mirrored = CameraSpec {
        position: Vec3::new(512.0, 60.0, 2.0 * WATER - 330.0),
        pitch: 20.0,
        ..eye
    };
    let flooded = pool(true);
    let plain = frame(&flooded, eye, CullMode::Portal, false);
    let reflecting = frame(&flooded, eye, CullMode::Portal, true);
    let oracle = frame(&pool(false), mirrored, CullMode::None, false);
    let cam = Camera::new(eye, SIZE.0 as f32 / SIZE.1 as f32);
    let (mut checked, mut off, mut worst, mut moved) = (0, 0, 0.0f32, 0.0f32);
    for y in 0..SIZE.1 {
        for x in 0..SIZE.0 {
            // Where the pixel's ray meets the water, away from the walls' water line.
            let d = pixel_direction(&cam, SIZE, x, y);
            if d.z >= -0.05 {
                continue;
            }
            let p = eye.position + d * ((WATER - eye.position.z) / d.z);
            if !(48.0..976.0).contains(&p.x) || !(0.0..976.0).contains(&p.y) {
                continue;
            }
            let fresnel = 0.02 + 0.98 * (1.0 - (-d.z)).powi(5);
            let water = plain.get_pixel(x, y);
            let mirror = oracle.get_pixel(x, SIZE.1 - 1 - y);
            let got = reflecting.get_pixel(x, y);
            checked += 1;
            for i in 0..3 {
                let expected = water[i] as f32 * (1.0 - fresnel) + mirror[i] as f32 * fresnel;
                let error = (got[i] as f32 - expected).abs();
                worst = worst.max(error);
                off += (error > 2.0) as usize;
                moved = moved.max((got[i] as f32 - water[i] as f32).abs());
            }
        }
    }
    eprintln!("pool: {checked} water pixels, {off} channels over 2 steps, worst {worst:.1}, reflection moved a channel by up to {moved}");
    assert!(checked > 15_000, "only {checked} water pixels");
    assert!(
        moved > 20.0,
        "the reflection changed the water by at most {moved}"
    );
    assert!(off * 200 < checked * 3, "{off} channels over 2 steps");
    assert!(worst <= 12.0, "a channel {worst} steps from the oracle");
}

/// The keep's flooded cellar with reflections on (its golden without them is `keep_cellar`).
#[test]
fn the_keeps_cellar_reflects_matches_golden() {
    let Some(_) = gpu() else { return };
    let spec = CameraSpec {
        position: Vec3::new(1660.0, 280.0, -110.0),
        yaw: -40.0,
        pitch: -12.0,
    };
    let world = crate::support::keep_world(spec);
    let img = frame(&world.level, spec, CullMode::Portal, true);
    check_golden("keep_cellar_reflections", &img);
}
