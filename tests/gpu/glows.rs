//! Quake 3's glows (`blendFunc add` over nothing, `surface_flags::GLOW`): a glowing quad adds
//! its colour to the wall behind it and hides nothing, and a wall in front of it hides it. The
//! oracle is the renders apart: the wall alone, and the glow alone over the background (less
//! the background alone); where the glow lies over the wall, the frame is their sum.

use glam::Vec3;

use crate::support::{capture, coloured_in_one_cell, gpu, LOOKING_ALONG_X};
use lanthorn::level::{surface_flags, Level, Surface, Vertex};

/// A quad in the plane x = `x`, over y `y0..y1` and z −40..40, both windings, fullbright.
fn quad(x: f32, (y0, y1): (f32, f32), material: u32, flags: u32) -> Surface {
    let corners = [(y0, -40.0), (y1, -40.0), (y1, 40.0), (y0, 40.0)];
    Surface {
        vertices: corners
            .iter()
            .map(|&(y, z)| Vertex {
                position: Vec3::new(x, y, z),
                ..Default::default()
            })
            .collect(),
        indices: vec![0, 1, 2, 0, 2, 3, 0, 2, 1, 0, 3, 2],
        material,
        flags,
        ..Default::default()
    }
}

/// A wall across the view at x 100 over y −60..60 (`wall`), a glow over its left half at x 50
/// (`front`), and a glow behind it at x 150 over its right half (`behind`).
fn level(wall: bool, front: bool, behind: bool) -> Level {
    let materials = [("wall", [0.4, 0.2, 0.1]), ("glow", [0.1, 0.2, 0.5])];
    coloured_in_one_cell(
        &materials,
        [
            (wall, quad(100.0, (-60.0, 60.0), 0, 0)),
            (front, quad(50.0, (0.0, 30.0), 1, surface_flags::GLOW)),
            (behind, quad(150.0, (-90.0, 0.0), 1, surface_flags::GLOW)),
        ],
    )
}

#[test]
fn a_glow_adds_to_the_wall_behind_it_and_a_wall_in_front_hides_it() {
    let Some(_) = gpu() else { return };
    let size = (160u32, 90u32);
    let spec = LOOKING_ALONG_X;
    let settings = lanthorn::render::settings::FrameSettings::default();
    let render = |l: Level| capture(&l, spec, size, lanthorn::vis::CullMode::None, &settings);
    let (all, wall) = (
        render(level(true, true, true)),
        render(level(true, false, false)),
    );
    let (glow, background) = (
        render(level(false, true, false)),
        render(level(false, false, false)),
    );
    // +Y is to the left: the front glow covers y 0..30 at x 50, left of the middle.
    let (over, bare, right) = ((60u32, 45u32), (100u32, 45u32), (130u32, 45u32));
    let px = |img: &image::RgbaImage, (x, y): (u32, u32)| img.get_pixel(x, y).0;
    let added = |k: usize| px(&glow, over)[k] as i32 - px(&background, over)[k] as i32;
    assert!(added(2) > 40, "the glow alone shows: {:?}", px(&glow, over));
    for k in 0..3 {
        let sum = (px(&wall, over)[k] as i32 + added(k)).min(255);
        let got = px(&all, over)[k] as i32;
        assert!(
            (got - sum).abs() <= 3,
            "channel {k}: {got} where the sum is {sum}"
        );
        // Beside the front glow, and where only the hidden glow lies behind the wall: the wall.
        for at in [bare, right] {
            let (got, want) = (px(&all, at)[k] as i32, px(&wall, at)[k] as i32);
            assert!(
                (got - want).abs() <= 1,
                "channel {k} at {at:?}: {got}, the wall {want}"
            );
        }
    }
}
