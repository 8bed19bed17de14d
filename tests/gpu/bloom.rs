//! Bloom against its CPU twin (`render::bloom::reference`): the frame drawn with bloom equals
//! the frame drawn without it plus the reference's bloom of that frame, and a golden image.

use glam::Vec3;
use lanthorn::geom::CameraSpec;
use lanthorn::render::bloom::{reference, BloomParams};
use lanthorn::render::settings::FrameSettings;
use lanthorn::vis::CullMode;

use crate::golden::{check_golden, quake_level};
use crate::support::gpu;

/// e1m1's first corridor: two torches (fullbright texels) beside the arch.
const TORCHES: CameraSpec = CameraSpec {
    position: Vec3::new(480.0, -352.0, 88.0),
    yaw: 90.0,
    pitch: 0.0,
};

fn capture(level: &lanthorn::level::Level, size: (u32, u32), bloom: bool) -> image::RgbaImage {
    let gpu = gpu().expect("checked by the caller");
    let settings = FrameSettings {
        bloom,
        ..Default::default()
    };
    lanthorn::app::capture::capture_with_terrain(
        gpu,
        level,
        None,
        TORCHES,
        size,
        CullMode::Portal,
        &settings,
        &Default::default(),
    )
    .0
}

fn decode(c: u8) -> f32 {
    let c = c as f32 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// A linear value as the sRGB frame stores it, in 8-bit steps.
pub(crate) fn encode(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    255.0
        * if c <= 0.0031308 {
            c * 12.92
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        }
}

/// The GPU's bloom is the CPU reference's, to within a step of 8 bits almost everywhere (half
/// floats between the steps, the driver's sRGB tables), and it is not nothing: the torches glow.
#[test]
fn bloom_adds_what_the_cpu_reference_adds() {
    let Some(_) = gpu() else { return };
    let Some(level) = quake_level("e1m1") else {
        return;
    };
    let size = (320, 180);
    let plain = capture(&level, size, false);
    let bloomed = capture(&level, size, true);
    let linear: Vec<[f32; 3]> = plain
        .pixels()
        .map(|p| [decode(p[0]), decode(p[1]), decode(p[2])])
        .collect();
    let added = reference(&linear, size, BloomParams::default());
    let (mut off_by_more, mut worst, mut glowing) = (0, 0.0f32, 0);
    for ((p, q), (base, add)) in plain
        .pixels()
        .zip(bloomed.pixels())
        .zip(linear.iter().zip(&added))
    {
        for i in 0..3 {
            let expected = encode(base[i] + add[i]);
            let error = (q[i] as f32 - expected).abs();
            worst = worst.max(error);
            off_by_more += (error > 1.5) as usize;
        }
        glowing += (q[0] as i32 - p[0] as i32 >= 4) as usize;
    }
    eprintln!("bloom vs reference: worst {worst:.2} steps, {off_by_more} channels over 1.5, {glowing} pixels glow");
    assert!(worst <= 2.0, "a channel {worst} steps from the reference");
    assert!(
        off_by_more * 1000 < plain.len(),
        "{off_by_more} channels over a step off"
    );
    assert!(glowing > 200, "only {glowing} pixels glow");
}

/// `cameras` drawn one after another in one session at `size`, bloom on or off.
fn session_frames(
    level: &lanthorn::level::Level,
    size: (u32, u32),
    bloom: bool,
    cameras: &[CameraSpec],
) -> Vec<image::RgbaImage> {
    let gpu = gpu().expect("checked by the caller");
    let settings = FrameSettings {
        bloom,
        ..Default::default()
    };
    let mut session =
        lanthorn::app::session::Session::new(gpu, level, None, size, CullMode::Portal)
            .with(settings, Default::default());
    let aspect = size.0 as f32 / size.1 as f32;
    cameras
        .iter()
        .map(|spec| {
            let cam = lanthorn::geom::Camera::new(*spec, aspect);
            session.settle(gpu, &cam, 0.0);
            session.frame(gpu, &cam, 0.0);
            session.read_color(gpu)
        })
        .collect()
}

/// The blurs and the composite draw only the tiles near light the bright pass marked this
/// frame: after a frame whose torches glow two tiles higher up, the frame looking level is
/// again the plain frame plus the reference's bloom of it — where the first frame glowed and
/// this one has no bloom at all (its tiles not drawn), nothing is left behind, and the rows
/// the vertical blur reads above its tiles hold no stale horizontal blur (without clearing
/// the horizontal blur's target a channel was 4 steps off).
#[test]
fn bloom_of_a_frame_leaves_nothing_in_the_next() {
    let Some(_) = gpu() else { return };
    let Some(level) = quake_level("e1m1") else {
        return;
    };
    let size = (640, 360);
    let turned = |yaw, pitch| CameraSpec {
        yaw,
        pitch,
        ..TORCHES
    };
    let cameras = [turned(60.0, -22.0), turned(60.0, 0.0)];
    let plain = session_frames(&level, size, false, &cameras);
    let bloomed = session_frames(&level, size, true, &cameras);
    let linear = |img: &image::RgbaImage| -> Vec<[f32; 3]> {
        img.pixels()
            .map(|p| [decode(p[0]), decode(p[1]), decode(p[2])])
            .collect()
    };
    let (first, second) = (linear(&plain[0]), linear(&plain[1]));
    let added_first = reference(&first, size, BloomParams::default());
    let added = reference(&second, size, BloomParams::default());
    // Where the first frame glowed visibly and the second has no bloom: the tiles skipped.
    let left_behind = added_first
        .iter()
        .zip(&added)
        .filter(|(a, b)| encode(a[0]) >= 4.0 && b.iter().all(|&c| c == 0.0))
        .count();
    let (mut worst, mut off_by_more) = (0.0f32, 0);
    for (q, (base, add)) in bloomed[1].pixels().zip(second.iter().zip(&added)) {
        for i in 0..3 {
            let error = (q[i] as f32 - encode(base[i] + add[i])).abs();
            worst = worst.max(error);
            off_by_more += (error > 1.5) as usize;
        }
    }
    let glowing = bloomed[1]
        .pixels()
        .zip(plain[1].pixels())
        .filter(|(q, p)| q[0] as i32 - p[0] as i32 >= 4)
        .count();
    eprintln!(
        "second frame vs reference: worst {worst:.2} steps, {off_by_more} channels over 1.5; \
         {left_behind} pixels glowed before and have no bloom now; {glowing} glow"
    );
    assert!(
        left_behind > 1_000,
        "only {left_behind} pixels to leave bloom behind in"
    );
    assert!(
        glowing > 200,
        "only {glowing} pixels glow in the second frame"
    );
    assert!(worst <= 2.0, "a channel {worst} steps from the reference");
    assert!(
        off_by_more * 1000 < plain[1].len(),
        "{off_by_more} channels over a step off"
    );
}

#[test]
fn bloom_on_e1m1_torches_matches_golden() {
    let Some(_) = gpu() else { return };
    let Some(level) = quake_level("e1m1") else {
        return;
    };
    check_golden("bloom_e1m1_torches", &capture(&level, (480, 270), true));
}
