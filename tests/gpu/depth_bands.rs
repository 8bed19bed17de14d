//! The frame's depth bands (`render::depth_bands`) against a frame cleared every frame: a
//! walk of cameras drawn with the depth cleared once every `BANDS` frames (and the colour
//! kept where the world covers the view) is, frame by frame, the walk drawn with both
//! cleared each frame. The walk turns and steps back and forth, so a depth a frame leaves is
//! often nearer than what the next frame shows there (were a band below the one before, those
//! pixels would keep the last frame's colour), and it leaves the level once mid-cycle (the
//! eye outside, nothing drawn: the colour must be cleared, not kept).

use glam::Vec3;
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::level::Level;
use lanthorn::render::depth_bands::BANDS;
use lanthorn::render::{settings::FrameSettings, Renderer};
use lanthorn::vis::{CullMode, Culler, VisibleSet};

use crate::golden::quake_level;
use crate::support::gpu;

const SIZE: (u32, u32) = (320, 180);

/// Two and a half cycles of cameras about e1m1's start: a turn of 100° a frame, stepping 96
/// units back and forth along the first view; one camera, mid-cycle, far outside the level.
fn walk() -> Vec<CameraSpec> {
    (0..BANDS * 5 / 2)
        .map(|i| match i == BANDS + 3 {
            // Outside, looking back at the level: part of the frame shows it, part nothing.
            true => CameraSpec {
                position: Vec3::new(6000.0, -352.0, 110.0),
                yaw: 180.0,
                pitch: 0.0,
            },
            false => CameraSpec {
                position: Vec3::new(480.0, -352.0 + 96.0 * (i % 3) as f32, 110.0),
                yaw: 90.0 + 100.0 * i as f32,
                pitch: if i % 2 == 0 { 0.0 } else { -20.0 },
            },
        })
        .collect()
}

/// Each frame of the walk, drawn by one renderer with the depth bands on or off.
fn frames(level: &Level, bands: bool) -> Vec<image::RgbaImage> {
    let gpu = gpu().expect("checked by the caller");
    let mut renderer = Renderer::new(gpu, level, SIZE);
    let mut culler = Culler::new(level, CullMode::Portal);
    let mut visible = VisibleSet::default();
    let settings = FrameSettings {
        depth_bands: bands,
        ..Default::default()
    };
    walk()
        .into_iter()
        .map(|spec| {
            let cam = Camera::new(spec, SIZE.0 as f32 / SIZE.1 as f32);
            culler.cull(level, &cam, &mut visible);
            renderer.render(gpu, &cam, &visible, &settings);
            renderer.read_color(gpu)
        })
        .collect()
}

#[test]
fn frames_in_depth_bands_match_frames_cleared_each_frame() {
    if gpu().is_none() {
        return;
    }
    let Some(level) = quake_level("e1m1") else {
        return;
    };
    let cleared = frames(&level, false);
    let banded = frames(&level, true);
    for (i, (want, got)) in cleared.iter().zip(&banded).enumerate() {
        let apart = want
            .pixels()
            .zip(got.pixels())
            .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 2))
            .count();
        // Depths equal to within a float step may order a tie the other way: a pixel or two.
        assert!(
            apart <= 4,
            "frame {i} ({:?}): {apart} pixels differ from the cleared frame's",
            walk()[i]
        );
    }
}
