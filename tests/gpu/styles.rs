//! Light styles on an imported id map: dm1's pulsing light (style 2, world.qc's
//! "abcdefghijklmnopqrstuvwxyzyxw…", 10 letters a second) on the walls of a corridor whose faces
//! carry a style-0 map and a style-2 map.

use glam::Vec3;
use lanthorn::geom::CameraSpec;
use lanthorn::level::styles::{StyleMode, NO_STYLE};
use lanthorn::level::Level;
use lanthorn::render::settings::FrameSettings;
use lanthorn::vis::CullMode;

use crate::golden::{check_golden, diff, passes, quake_level};
use crate::support::gpu;

const CAMERA: CameraSpec = CameraSpec {
    position: Vec3::new(320.0, 1504.0, -80.0),
    yaw: 90.0,
    pitch: 0.0,
};
const SIZE: (u32, u32) = (480, 270);
/// Style frame 25 of style 2: "z", the brightest.
const BRIGHTEST: f32 = 2.55;
/// Style frame 0: "a", the pulse's light off.
const DARKEST: f32 = 0.05;
/// Style frame 12: "m", normal.
const NORMAL: f32 = 1.25;

fn render(level: &Level, time: f32, styles: StyleMode) -> image::RgbaImage {
    // The shader's style arithmetic, compared frame to frame: shaded directly (the surface
    // cache bakes light at texel centres; tests/gpu/surface_cache.rs checks it against this).
    let settings = FrameSettings {
        time,
        light_styles: styles,
        surface_cache: false,
        ..Default::default()
    };
    let gpu = gpu().expect("checked by the caller");
    lanthorn::app::capture::capture_with(gpu, level, CAMERA, SIZE, CullMode::Portal, &settings).0
}

/// The level with every style-2 slot dropped (its lightmap no longer adds).
fn without_style_2(level: &Level) -> Level {
    let mut l = level.clone();
    for s in &mut l.surfaces {
        let kept: Vec<u8> = s.styles.slots().filter(|&st| st != 2).collect();
        let mut styles = [NO_STYLE; 4];
        styles[..kept.len()].copy_from_slice(&kept);
        // Slot order is layer order: only trailing style-2 slots can be dropped in place.
        assert_eq!(
            &s.styles.0[..kept.len()],
            &styles[..kept.len()],
            "style 2 is not last"
        );
        s.styles.0 = styles;
    }
    l
}

/// The golden frame at "z"; and the oracles: at "a" the frame is the level without its style-2
/// maps, at "m" it is the `--styles normal` frame (every other style on dm1 is 0, always "m"),
/// and "z" is brighter than "a" beyond the golden tolerance (each pair at one time: the sky
/// and liquids move with it).
#[test]
fn dm1_pulsing_light_follows_style_2() {
    if gpu().is_none() {
        return;
    }
    let Some(level) = quake_level("dm1") else {
        return;
    };
    assert!(level
        .surfaces
        .iter()
        .any(|s| s.styles.slots().any(|st| st == 2)));
    assert!(level
        .surfaces
        .iter()
        .all(|s| s.styles.slots().all(|st| st == 0 || st == 2)));
    let bright = render(&level, BRIGHTEST, StyleMode::Animated);
    check_golden("dm1_style2_z", &bright);

    let dark = render(&level, DARKEST, StyleMode::Animated);
    let (d, _) = diff(
        &dark,
        &render(&without_style_2(&level), DARKEST, StyleMode::Animated),
    );
    assert!(
        d.mean < 0.05 && d.bad_fraction == 0.0,
        "\"a\" is not off: {d:?}"
    );

    let (d, _) = diff(
        &render(&level, NORMAL, StyleMode::Animated),
        &render(&level, NORMAL, StyleMode::Normal),
    );
    assert!(
        d.mean < 0.05 && d.bad_fraction == 0.0,
        "\"m\" is not normal: {d:?}"
    );

    let (d, _) = diff(&bright, &dark);
    assert!(!passes(&d), "the pulse does not show: {d:?}");
    let luma = crate::golden::luma;
    assert!(
        luma(&bright) > luma(&dark) * 11 / 10,
        "\"z\" is not brighter than \"a\""
    );
}

/// The command line reaches the same clock and style mode: `capture --time` at "a" and at "z"
/// differ, `--styles normal` at "a" equals `--time` at "m", and a negative time is one clear
/// error.
#[test]
fn capture_time_and_styles_flags_drive_the_light_styles() {
    if gpu().is_none() {
        return;
    }
    let bsp = lanthorn::realdata_dir().join("quake/bsp/dm1.bsp");
    if quake_level("dm1").is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("lanthorn-styles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shot = |name: &str, extra: &[&str]| {
        let png = dir.join(format!("{name}.png"));
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_lanthorn"))
            .arg("capture")
            .arg(&bsp)
            .args(["--camera=320,1504,-80,90,0", "--size", "240x135"])
            .args(["--surface-cache", "off", "-o"])
            .arg(&png)
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        image::open(&png).unwrap().to_rgba8()
    };
    let dark = shot("a", &["--time", "0.05"]);
    let bright = shot("z", &["--time", "2.55"]);
    assert!(!passes(&diff(&dark, &bright).0), "--time changes nothing");
    let (d, _) = diff(
        &shot("m", &["--time", "1.25"]),
        &shot("normal", &["--time", "1.25", "--styles", "normal"]),
    );
    assert!(d.mean < 0.05, "--styles normal is not \"m\": {d:?}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lanthorn"))
        .args(["capture", "--time=-1", "-o"])
        .arg(dir.join("bad.png"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("expected seconds ≥ 0"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// e1m1's computer room is lit by fluorescent style-10 lights ("mmamammmmammamamaaamammma"):
/// the map compiled by Lanthorn and the BSP id's tools made show the same frame at "m" (0.05 s)
/// and at "a" (0.25 s, the room dark but for its steady light), and the two times differ.
#[test]
fn compiled_e1m1_flickers_like_the_shipped_bsp() {
    let Some(_) = gpu() else { return };
    let Some(shipped) = quake_level("e1m1") else {
        return;
    };
    let map = lanthorn::realdata_dir().join("quake/maps/e1m1.map");
    let compiled = lanthorn::compile::compile(&map, &Default::default())
        .unwrap()
        .0;
    let camera = CameraSpec {
        position: Vec3::new(560.0, 192.0, 90.0),
        yaw: 0.0,
        pitch: 0.0,
    };
    let frame = |level: &Level, time: f32| {
        let settings = FrameSettings {
            time,
            surface_cache: false,
            ..Default::default()
        };
        let gpu = gpu().unwrap();
        lanthorn::app::capture::capture_with(gpu, level, camera, SIZE, CullMode::Portal, &settings)
            .0
    };
    let compare =
        |a: &image::RgbaImage, b: &image::RgbaImage| lanthorn::app::compare::compare(a, b).unwrap();
    let lit = frame(&compiled, 0.05);
    let dark = frame(&compiled, 0.25);
    for (time, ours) in [(0.05, &lit), (0.25, &dark)] {
        let c = compare(ours, &frame(&shipped, time));
        assert!(c.mae_linear < 0.005 && c.ssim > 0.98, "at {time} s: {c:?}");
    }
    let flicker = compare(&lit, &dark);
    assert!(
        flicker.mae_linear > 0.02 && flicker.black_b > flicker.black_a + 0.2,
        "the room does not go dark: {flicker:?}"
    );
}

/// A closed room lit by a white steady light and a red and a blue light, each of the coloured
/// ones under `styles` (0: steady).
fn coloured_room(styles: [u8; 2]) -> Level {
    let mut text = crate::overlays::leaky_room_map().replace("clip", "wall");
    let light = |origin: &str, value: &str, colour: &str, style: u8| {
        format!(
            "{{\n\"classname\" \"light\"\n\"origin\" \"{origin}\"\n\"light\" \"{value}\"\n\
             \"_color\" \"{colour}\"\n\"style\" \"{style}\"\n}}\n"
        )
    };
    text += &light("256 128 100", "160", "255 255 255", 0);
    text += &light("120 60 60", "240", "255 40 20", styles[0]);
    text += &light("400 200 60", "240", "30 60 255", styles[1]);
    let options = lanthorn::compile::CompileOptions::default();
    lanthorn::compile::compile_map_text(&text, &options)
        .unwrap()
        .0
}

/// Coloured lights under animated styles keep their colour: the room with its red and blue
/// lights under styles 5 and 6 (walls with two styles: slot 1 grey plus its tint; walls with
/// three: every slot grey plus tints) draws as the room with both lights steady (every slot in
/// RGB) when `--styles normal` holds every style at one brightness — directly and through the
/// surface cache. Without the tints the red and blue would turn grey: the lights' own share of
/// the frame is far above the tolerance.
#[test]
fn coloured_styled_lights_keep_their_colour() {
    if gpu().is_none() {
        return;
    }
    let styled = coloured_room([5, 6]);
    let steady = coloured_room([0, 0]);
    let count = |n: usize| {
        styled
            .surfaces
            .iter()
            .filter(|s| s.lightmap.is_some() && s.styles.count() == n)
            .count()
    };
    assert!(
        count(2) > 0 && count(3) > 0,
        "2-style {} 3-style {}",
        count(2),
        count(3)
    );
    let gpu = gpu().unwrap();
    let camera = CameraSpec {
        position: Vec3::new(480.0, 250.0, 110.0),
        yaw: 200.0,
        pitch: -25.0,
    };
    for surface_cache in [false, true] {
        let settings = FrameSettings {
            light_styles: StyleMode::Normal,
            surface_cache,
            ..Default::default()
        };
        let shot = |level: &Level| {
            lanthorn::app::capture::capture_with(
                gpu,
                level,
                camera,
                SIZE,
                CullMode::Portal,
                &settings,
            )
            .0
        };
        let (d, _) = diff(&shot(&styled), &shot(&steady));
        eprintln!("cache {surface_cache}: styled vs steady {d:?}");
        assert!(
            d.mean < 1.0 && d.bad_fraction == 0.0,
            "cache {surface_cache}: styled differs from steady: {d:?}"
        );
        // Layer 0 alone: the white light and the minimum.
        let mut unlit = styled.clone();
        let layer = (unlit.lightmaps.width * unlit.lightmaps.height * 3) as usize;
        unlit.lightmaps.texels.truncate(layer);
        for s in &mut unlit.surfaces {
            s.styles.0 = [0, NO_STYLE, NO_STYLE, NO_STYLE];
        }
        let (d, _) = diff(&shot(&unlit), &shot(&steady));
        eprintln!("cache {surface_cache}: the coloured lights' share {d:?}");
        assert!(
            d.mean > 10.0,
            "cache {surface_cache}: the coloured lights hardly show: {d:?}"
        );
    }
}
