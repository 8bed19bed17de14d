//! The keep, the demo's level: golden images from fixed cameras (the corridor, the flooded
//! cellar, the courtyard with the terrain beyond its gate, the forge with its pulsing lava
//! light at a fixed time), and the demo opening it by default, compiled on the first start and
//! read from the cache on the second.

use std::path::Path;
use std::process::Command;

use glam::Vec3;
use lanthorn::geom::CameraSpec;
use lanthorn::render::settings::FrameSettings;

use crate::golden::check_golden;
use crate::support::gpu;

const SIZE: (u32, u32) = (480, 270);

/// The keep as the demo opens it (`load_world` with no level: the embedded keep and the
/// terrain it places under itself), drawn from `camera` at 0 s against its golden image.
fn keep_golden(name: &str, position: Vec3, yaw: f32, pitch: f32, terrain: bool) {
    let settings = FrameSettings::default();
    let Some(img) = keep_frame(name, position, yaw, pitch, terrain, &settings) else {
        return;
    };
    check_golden(name, &img);
}

/// The keep as the demo opens it, drawn from `camera` with `settings` (the light styles'
/// clock, the sky).
fn keep_frame(
    name: &str,
    position: Vec3,
    yaw: f32,
    pitch: f32,
    terrain: bool,
    settings: &FrameSettings,
) -> Option<image::RgbaImage> {
    let gpu = gpu()?;
    let camera = CameraSpec {
        position,
        yaw,
        pitch,
    };
    let world = lanthorn::app::load_world(
        None,
        Some(camera),
        (None, Default::default()),
        &Default::default(),
    )
    .unwrap();
    assert_eq!(world.name, Path::new("keep"));
    let (img, stats) = lanthorn::app::capture::capture_with_terrain(
        gpu,
        &world.level,
        world.terrain,
        camera,
        SIZE,
        lanthorn::vis::CullMode::Portal,
        settings,
        &Default::default(),
    );
    assert!(stats.world.triangles > 0);
    assert_eq!(
        stats.terrain.triangles > 0,
        terrain,
        "{name}: terrain drawn?"
    );
    Some(img)
}

#[test]
fn keep_corridor_matches_golden() {
    keep_golden(
        "keep_corridor",
        Vec3::new(120.0, 30.0, 60.0),
        12.0,
        0.0,
        false,
    );
}

#[test]
fn keep_cellar_matches_golden() {
    keep_golden(
        "keep_cellar",
        Vec3::new(1660.0, 280.0, -110.0),
        -40.0,
        -12.0,
        false,
    );
}

#[test]
fn keep_courtyard_matches_golden() {
    keep_golden(
        "keep_courtyard",
        Vec3::new(1856.0, 420.0, 150.0),
        90.0,
        4.0,
        true,
    );
}

/// The forge's lava light pulses (style 5, "jklm…z…j") and the corridor's torches flicker
/// (styles 1 and 6), baked with one bounce of the steady light: the golden frame is at 0.8 s
/// (style 5 at "r"); at 0 s ("j") the forge is darker, beyond the golden tolerance.
#[test]
fn keep_forge_pulses_and_matches_golden() {
    let forge = |time| {
        let settings = FrameSettings {
            time,
            ..Default::default()
        };
        let position = Vec3::new(720.0, -60.0, 80.0);
        keep_frame("keep_forge", position, 270.0, -30.0, false, &settings)
    };
    let Some(bright) = forge(0.8) else { return };
    check_golden("keep_forge", &bright);
    let dark = forge(0.0).unwrap();
    let (d, _) = crate::golden::diff(&bright, &dark);
    assert!(
        !crate::golden::passes(&d),
        "the lava light does not pulse: {d:?}"
    );
    let luma = crate::golden::luma;
    assert!(
        luma(&bright) > luma(&dark) * 11 / 10,
        "\"r\" is not brighter than \"j\""
    );
}

/// The keep from the hills under the daylight sky (`--sky scattering`): the sky and the
/// terrain's fog from the model for the keep's sun.
#[test]
fn keep_outside_under_the_scattering_sky_matches_golden() {
    let settings = FrameSettings {
        sky: lanthorn::render::settings::SkyMode::Scattering,
        ..Default::default()
    };
    let position = Vec3::new(3000.0, 2300.0, 560.0);
    let Some(img) = keep_frame(
        "keep_outside_scattering",
        position,
        232.0,
        -18.0,
        true,
        &settings,
    ) else {
        return;
    };
    check_golden("keep_outside_scattering", &img);
}

/// The keep's south face from the hills with the sun's shadow cascades (`--shadows`): the keep
/// shadows the terrain at its foot, which the frame without them leaves lit.
#[test]
fn keep_with_sun_shadows_matches_golden() {
    let shadows = FrameSettings {
        shadows: true,
        ..Default::default()
    };
    let position = Vec3::new(2600.0, -800.0, 300.0);
    let frame = |settings: &FrameSettings| {
        keep_frame("keep_shadows", position, 160.0, -25.0, true, settings)
    };
    let (Some(shaded), Some(lit)) = (frame(&shadows), frame(&FrameSettings::default())) else {
        return;
    };
    let darker = shaded
        .pixels()
        .zip(lit.pixels())
        .filter(|(a, b)| {
            a.0.iter().take(3).map(|&c| c as u32).sum::<u32>() + 24
                < b.0.iter().take(3).map(|&c| c as u32).sum::<u32>()
        })
        .count();
    let share = darker as f64 / (SIZE.0 * SIZE.1) as f64;
    println!("keep shadows: {:.1} % of the frame darker", share * 100.0);
    assert!(share > 0.05, "{share}");
    check_golden("keep_shadows", &shaded);
}

/// Night dims the keep's daylight (its sun and sky bake under `_sun_style` 12) and leaves its
/// torches: the sunlit courtyard keeps under 40 % of its (sRGB-encoded) light, the torch-lit corridor
/// (no daylight reaches it) all of it.
#[test]
fn night_dims_the_keeps_daylight_but_not_its_torches() {
    let night = FrameSettings {
        time_of_day: lanthorn::render::settings::TimeOfDay::Night,
        ..Default::default()
    };
    let day = FrameSettings::default();
    let luma = |img: &image::RgbaImage| crate::golden::luma(img) as f64;
    for (name, position, yaw, terrain, (lo, hi)) in [
        (
            "courtyard",
            Vec3::new(1856.0, 420.0, 150.0),
            90.0,
            true,
            (0.0, 0.4),
        ),
        (
            "corridor",
            Vec3::new(120.0, 30.0, 60.0),
            12.0,
            false,
            (0.999, 1.001),
        ),
    ] {
        let frame = |s: &FrameSettings| keep_frame(name, position, yaw, 0.0, terrain, s);
        let (Some(by_night), Some(by_day)) = (frame(&night), frame(&day)) else {
            return;
        };
        let ratio = luma(&by_night) / luma(&by_day);
        println!("{name}: night/day light {ratio:.3}");
        assert!((lo..hi).contains(&ratio), "{name}: {ratio}");
    }
}

/// The keep at night from the hills (`--time-of-day night --point-lights`): the terrain dark
/// but for the glow of the lamps at the drawbridge's end and the gate.
#[test]
fn keep_at_night_with_its_lamps_matches_golden() {
    let settings = FrameSettings {
        point_lights: true,
        time_of_day: lanthorn::render::settings::TimeOfDay::Night,
        ..Default::default()
    };
    let position = Vec3::new(2200.0, 2300.0, 420.0);
    let Some(img) = keep_frame("keep_night", position, 235.0, -20.0, true, &settings) else {
        return;
    };
    check_golden("keep_night", &img);
}

/// `lanthorn demo` with no level opens the keep: the first start compiles it into the cache
/// folder (`XDG_CACHE_HOME`), the second reads it from there; both log the time to the first
/// presented frame.
#[test]
fn the_demo_opens_the_keep_and_caches_it() {
    let Some(_) = gpu() else { return };
    if !crate::support::display() {
        return;
    }
    let cache = std::env::temp_dir().join(format!("lanthorn-keep-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let start = || {
        let out = Command::new(env!("CARGO_BIN_EXE_lanthorn"))
            .args(["demo", "--frames", "2", "--size", "320x180"])
            .env("XDG_CACHE_HOME", &cache)
            .env("RUST_LOG", "lanthorn=info")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{err}");
        assert!(err.contains("keep: level ready"), "{err}");
        assert!(err.contains("first frame presented"), "{err}");
        err
    };
    let first = start();
    assert!(
        first.contains("keep: not compiled yet; compiling"),
        "{first}"
    );
    let files: Vec<_> = std::fs::read_dir(cache.join("lanthorn"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        files.len() == 1 && files[0].starts_with("keep-") && files[0].ends_with(".lvl"),
        "{files:?}"
    );
    let second = start();
    assert!(second.contains("keep: read the compiled level"), "{second}");
    assert!(!second.contains("compiling"), "{second}");
    let _ = std::fs::remove_dir_all(&cache);
}
