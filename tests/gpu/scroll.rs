//! Quake 3's scrolling pictures (`tcMod scroll`, `Material::scroll`): a quad whose picture is
//! white on its left half and black on its right, scrolling half a repeat a second along u,
//! seen square on. The oracle is the picture moved by hand: at 1 s each half shows what the
//! other showed at 0 s, at 2 s it is back where it started, and a still copy never moves.

use glam::Vec3;

use crate::support::{capture, gpu, in_one_cell, LOOKING_ALONG_X};
use lanthorn::level::{Level, Material, Surface, Vertex};

/// A quad at x = 100 over y −60..60, z −40..40, u 0..1 from left (+y) to right, fullbright,
/// with a 2 × 1 picture (white, black) scrolling at `scroll`.
fn scrolling_quad(scroll: [f32; 2]) -> Level {
    let mut level = Level::default();
    level.materials.push(Material {
        name: "stripes".into(),
        width: 2,
        height: 1,
        texels: Some(vec![255, 255, 255, 255, 0, 0, 0, 255]),
        color: [0.5; 3],
        scroll,
        ..Default::default()
    });
    let corner = |y: f32, z: f32| Vertex {
        position: Vec3::new(100.0, y, z),
        uv: glam::Vec2::new((60.0 - y) / 120.0, 0.5),
        ..Default::default()
    };
    level.surfaces.push(Surface {
        vertices: vec![
            corner(60.0, -40.0),
            corner(-60.0, -40.0),
            corner(-60.0, 40.0),
            corner(60.0, 40.0),
        ],
        indices: vec![0, 1, 2, 0, 2, 3, 0, 2, 1, 0, 3, 2],
        ..Default::default()
    });
    in_one_cell(level)
}

#[test]
fn a_scrolling_picture_moves_by_its_speed_times_the_time() {
    let Some(_) = gpu() else { return };
    let size = (160u32, 90u32);
    let spec = LOOKING_ALONG_X;
    let frame = |level: &Level, time: f32| {
        let settings = lanthorn::render::settings::FrameSettings {
            time,
            ..Default::default()
        };
        capture(level, spec, size, lanthorn::vis::CullMode::None, &settings)
    };
    // A quarter of the quad in from either side, on the middle row.
    let (left, right) = ((50u32, 45u32), (110u32, 45u32));
    // The white half, lit as a surface without a lightmap is, shows well over the black one.
    let white_left = |img: &image::RgbaImage| {
        let (l, r) = (
            img.get_pixel(left.0, left.1).0[0],
            img.get_pixel(right.0, right.1).0[0],
        );
        assert!(
            l.abs_diff(r) > 80,
            "one half white, the other black: {l} {r}"
        );
        l > r
    };
    let (scrolling, still) = (scrolling_quad([0.5, 0.0]), scrolling_quad([0.0; 2]));
    assert!(
        white_left(&frame(&scrolling, 0.0)),
        "white on the left at the start"
    );
    assert!(
        !white_left(&frame(&scrolling, 1.0)),
        "half a repeat on at 1 s"
    );
    assert!(
        white_left(&frame(&scrolling, 2.0)),
        "a whole repeat on at 2 s"
    );
    assert!(white_left(&frame(&still, 1.0)), "a still picture stays");
}
