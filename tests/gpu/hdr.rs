//! HDR against its CPU twins: the float scene is the LDR frame's light where the LDR frame did
//! not clip (and past white where it did), the frame is `render::tonemap::neutral_shoulder` of the
//! scene, and with bloom the scene plus `render::bloom::reference` of it, tone-mapped.

use glam::Vec3;
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::render::bloom::{reference, BloomParams};
use lanthorn::render::settings::FrameSettings;
use lanthorn::render::tonemap::{neutral_shoulder, START_COMPRESSION};
use lanthorn::vis::CullMode;

use crate::bloom::encode;
use crate::golden::check_golden;
use crate::support::gpu;

/// A pale room with a strong light near its floor: the lightmap saturates under it, where
/// Quake's ×2 overbright takes the floor past white, and falls off around it. (Quake's own
/// levels rarely go past white: their textures are dark, and e1m1's torches clip no pixel.)
const BRIGHT_ROOM: &str = r#"Scene(
    materials: [(name: "pale", source: Color((0.8, 0.75, 0.7)))],
    ops: [
        (brush: Box(min: (0, 0, 0), max: (1024, 1024, 512)), medium: Air, material: Some("pale")),
    ],
    entities: [
        [("classname", "worldspawn"), ("light", "24")],
        [("classname", "light"), ("origin", "512 560 48"), ("light", "600")],
    ],
)"#;

const CAMERA: CameraSpec = CameraSpec {
    position: Vec3::new(512.0, 60.0, 300.0),
    yaw: 90.0,
    pitch: -30.0,
};

fn bright_room() -> lanthorn::level::Level {
    let scene = lanthorn::compile::scene::parse(BRIGHT_ROOM).unwrap();
    lanthorn::compile::scene::compile_scene(&scene, &Default::default())
        .unwrap()
        .0
}
const SIZE: (u32, u32) = (320, 180);

/// The frame, and the HDR scene under it when HDR is on. The surface cache is off: it holds
/// 8-bit colour, which HDR frames never draw from, so both frames shade every surface.
fn frame(
    level: &lanthorn::level::Level,
    size: (u32, u32),
    settings: FrameSettings,
) -> (image::RgbaImage, Option<Vec<[f32; 3]>>) {
    let gpu = gpu().expect("checked by the caller");
    let settings = FrameSettings {
        surface_cache: false,
        ..settings
    };
    let mut session =
        lanthorn::app::session::Session::new(gpu, level, None, size, CullMode::Portal)
            .with(settings, Default::default());
    let cam = Camera::new(CAMERA, size.0 as f32 / size.1 as f32);
    session.settle(gpu, &cam, 0.0);
    session.frame(gpu, &cam, 0.0);
    (
        session.read_color(gpu),
        session.renderer.target.read_hdr(gpu),
    )
}

/// Channels of `frame` more than `tolerance` steps from `expected` (8-bit steps), and the worst.
fn off_by(frame: &image::RgbaImage, expected: &[[f32; 3]], tolerance: f32) -> (usize, f32) {
    let (mut off, mut worst) = (0, 0.0f32);
    for (p, e) in frame.pixels().zip(expected) {
        for i in 0..3 {
            let error = (p[i] as f32 - encode(e[i])).abs();
            worst = worst.max(error);
            off += (error > tolerance) as usize;
        }
    }
    (off, worst)
}

/// The world writes the same light into the float scene that it writes, clamped and in
/// gamma, into the LDR frame; past white it keeps what the LDR frame clipped (the lightmap's
/// ×2 overbright under the light); and the frame is the operator's CPU twin of the scene.
#[test]
fn the_hdr_scene_is_the_ldr_light_unclipped_and_the_frame_its_tone_map() {
    let Some(_) = gpu() else { return };
    let level = bright_room();
    let (ldr, none) = frame(&level, SIZE, FrameSettings::default());
    assert!(none.is_none(), "an LDR frame has no HDR scene");
    let hdr_settings = FrameSettings {
        hdr: true,
        ..Default::default()
    };
    let (tone_mapped, scene) = frame(&level, SIZE, hdr_settings);
    let scene = scene.expect("an HDR frame has its scene");
    let (mut unclipped, mut differ, mut clipped, mut past_white) = (0, 0, 0, 0);
    for (p, s) in ldr.pixels().zip(&scene) {
        if p.0[..3].contains(&255) {
            clipped += 1;
            past_white += (s.iter().cloned().fold(0.0, f32::max) > 1.02) as usize;
            continue;
        }
        unclipped += 1;
        // The LDR byte is the gamma value rounded; the scene holds its linear light in halves.
        differ += (0..3).any(|i| (encode(s[i]) - p[i] as f32).abs() > 1.0) as usize;
    }
    eprintln!("hdr scene: {unclipped} unclipped pixels ({differ} off by more than a step), {clipped} clipped ({past_white} past white)");
    assert!(unclipped > 10_000 && clipped > 200, "the view holds both");
    assert!(
        differ * 1000 < unclipped,
        "{differ} unclipped pixels differ"
    );
    assert!(
        past_white * 10 > clipped * 9,
        "{past_white} of {clipped} past white"
    );
    // Below the shoulder the tone map changes nothing: the HDR frame is the LDR frame.
    let knee = encode(START_COMPRESSION - 0.01);
    let (mut below, mut moved) = (0, 0);
    for (p, q) in ldr.pixels().zip(tone_mapped.pixels()) {
        if p.0[..3].iter().all(|&v| (v as f32) < knee) {
            below += 1;
            moved += (0..3).any(|i| p[i].abs_diff(q[i]) > 1) as usize;
        }
    }
    eprintln!("below the shoulder: {below} pixels, {moved} moved by more than a step");
    assert!(
        below > 10_000 && moved * 1000 < below,
        "{moved} of {below} moved"
    );
    let expected: Vec<[f32; 3]> = scene.iter().map(|&c| neutral_shoulder(c)).collect();
    let (off, worst) = off_by(&tone_mapped, &expected, 1.0);
    eprintln!("tone map vs twin: worst {worst:.2} steps, {off} channels over a step");
    assert!(
        worst <= 2.0 && off * 1000 < tone_mapped.len() * 3,
        "{off} channels off, worst {worst}"
    );
}

/// With bloom the frame is the tone map of the scene plus the CPU reference's bloom of the
/// scene (HDR threshold: past white), and the light past white glows.
#[test]
fn hdr_bloom_adds_the_references_bloom_before_the_tone_map() {
    let Some(_) = gpu() else { return };
    let level = bright_room();
    let settings = FrameSettings {
        hdr: true,
        bloom: true,
        ..Default::default()
    };
    let (bloomed, scene) = frame(&level, SIZE, settings);
    let scene = scene.expect("an HDR frame has its scene");
    let added = reference(&scene, SIZE, BloomParams::HDR);
    let expected: Vec<[f32; 3]> = (scene.iter().zip(&added))
        .map(|(s, a)| neutral_shoulder(std::array::from_fn(|i| s[i] + a[i])))
        .collect();
    let (off, worst) = off_by(&bloomed, &expected, 1.5);
    let glowing = (scene.iter().zip(&added))
        .filter(|(s, a)| {
            encode(neutral_shoulder(std::array::from_fn(|i| s[i] + a[i]))[0])
                - encode(neutral_shoulder(**s)[0])
                >= 4.0
        })
        .count();
    eprintln!("hdr bloom vs reference: worst {worst:.2} steps, {off} channels over 1.5, {glowing} pixels glow");
    assert!(
        worst <= 2.5 && off * 1000 < bloomed.len() * 3,
        "{off} channels off, worst {worst}"
    );
    assert!(glowing > 200, "only {glowing} pixels glow");
}

#[test]
fn hdr_bloom_in_the_bright_room_matches_golden() {
    let Some(_) = gpu() else { return };
    let level = bright_room();
    let settings = FrameSettings {
        hdr: true,
        bloom: true,
        ..Default::default()
    };
    check_golden(
        "hdr_bloom_bright_room",
        &frame(&level, (480, 270), settings).0,
    );
}

/// The demo's panel switches HDR while it runs: the keep from outside (the world under the
/// terrain's fog, the terrain with shadows and bloom) drawn LDR, HDR, then LDR again in one
/// session — once the cache has baked again the last frame is the first, bit for bit, and the
/// HDR one is not.
#[test]
fn switching_hdr_on_and_off_again_gives_the_same_ldr_frame() {
    let Some(gpu) = gpu() else { return };
    let spec = crate::support::KEEP_OUTSIDE;
    let world = crate::support::keep_world(spec);
    let settings = FrameSettings {
        shadows: true,
        bloom: true,
        ..Default::default()
    };
    let mut session = lanthorn::app::session::Session::new(
        gpu,
        &world.level,
        world.terrain,
        SIZE,
        CullMode::Portal,
    )
    .with(settings, Default::default());
    let cam = Camera::new(spec, SIZE.0 as f32 / SIZE.1 as f32);
    session.settle(gpu, &cam, 0.0);
    let mut frame_with = |hdr: bool| {
        session.settings.hdr = hdr;
        session.frame(gpu, &cam, 0.0);
        session.read_color(gpu)
    };
    let first = frame_with(false);
    let hdr = frame_with(true);
    // The surface cache baked for HDR's range is dropped: the frames after the switch bake
    // again, and then draw what they drew before.
    let again = (0..4).map(|_| frame_with(false)).last().unwrap();
    let differ = first
        .pixels()
        .zip(hdr.pixels())
        .filter(|(a, b)| a != b)
        .count();
    assert!(differ > 1000, "HDR changed only {differ} pixels");
    assert!(first == again, "the LDR frame changed after HDR was on");
}

/// With HDR on the camera still draws from the surface cache (which then bakes at half range,
/// so the overbright keeps to ×2): after a frame that bakes, e1m1's first view drawn from the
/// cache matches it shaded directly, as the LDR frames do (`surface_cache.rs`'s thresholds).
#[test]
fn hdr_frames_draw_from_the_surface_cache_like_direct_shading() {
    let Some(gpu) = gpu() else { return };
    let Some(level) = crate::golden::quake_level("e1m1") else {
        return;
    };
    let size = (640, 360);
    let spec = CameraSpec {
        position: Vec3::new(480.0, -352.0, 110.0),
        yaw: 90.0,
        pitch: 0.0,
    };
    let cam = Camera::new(spec, size.0 as f32 / size.1 as f32);
    let run = |cache: bool, frames: usize| {
        let settings = FrameSettings {
            hdr: true,
            surface_cache: cache,
            ..Default::default()
        };
        let mut session =
            lanthorn::app::session::Session::new(gpu, &level, None, size, CullMode::Portal)
                .with(settings, Default::default());
        let mut stats = Default::default();
        for _ in 0..frames {
            stats = session.frame(gpu, &cam, 0.0).world;
        }
        (session.read_color(gpu), stats)
    };
    let (direct, _) = run(false, 1);
    let (cached, stats) = run(true, 3);
    assert!(
        stats.cached as f64 >= 0.75 * stats.surfaces as f64 && stats.baking == 0,
        "{} of {} surfaces from the cache, {} baking",
        stats.cached,
        stats.surfaces,
        stats.baking
    );
    let (d, _) = crate::golden::diff(&direct, &cached);
    eprintln!("hdr cache vs direct: {d:?}");
    assert!(d.mean <= 1.0 && d.bad_fraction <= 0.003, "{d:?}");
}

/// `--exposure` scales the scene's light by 2^stops before the tone map: the frame is the
/// operator's CPU twin of the read-back scene times 2^1.5 (and a darker one at −1).
#[test]
fn exposure_scales_the_light_before_the_tone_map() {
    let Some(_) = gpu() else { return };
    let level = bright_room();
    for stops in [1.5f32, -1.0] {
        let settings = FrameSettings {
            hdr: true,
            exposure: stops,
            ..Default::default()
        };
        let (img, scene) = frame(&level, SIZE, settings);
        let scale = stops.exp2();
        let expected: Vec<[f32; 3]> = (scene.unwrap().iter())
            .map(|c| neutral_shoulder(c.map(|v| v * scale)))
            .collect();
        let (off, worst) = off_by(&img, &expected, 1.0);
        eprintln!("exposure {stops}: worst {worst:.2} steps, {off} channels over a step");
        assert!(
            worst <= 2.0 && off * 1000 < img.len() * 3,
            "{stops}: {off} off, worst {worst}"
        );
    }
}
