//! Quake 3's scrolling and animated pictures (`tcMod scroll`, `Material::scroll`; `animMap`,
//! `Material::animation`): a quad whose picture is white on its left half and black on its
//! right, seen square on. The oracle is the picture moved by hand: scrolling half a repeat a
//! second, at 1 s each half shows what the other showed at 0 s, at 2 s it is back where it
//! started, and a still copy never moves; animated through the picture and its mirror image
//! once a second, it shows them in turn.

use glam::Vec3;

use crate::support::{capture, gpu, in_one_cell, LOOKING_ALONG_X};
use lanthorn::level::{Level, Material, Surface, Vertex};

/// A 2 × 1 picture: white, black (or black, white when `mirrored`).
fn stripes(mirrored: bool) -> Material {
    let (a, b) = if mirrored { (0, 255) } else { (255, 0) };
    Material {
        name: "stripes".into(),
        width: 2,
        height: 1,
        texels: Some(vec![a, a, a, 255, b, b, b, 255]),
        color: [0.5; 3],
        ..Default::default()
    }
}

/// A quad at x = 100 over y −60..60, z −40..40, u 0..1 from left (+y) to right, fullbright,
/// showing `stripes` scrolling at `scroll`, or when `animated` the stripes and their mirror
/// image once a second each (materials 1 and 2).
fn scrolling_quad(scroll: [f32; 2], animated: bool) -> Level {
    let mut level = Level::default();
    level.materials.push(Material {
        scroll,
        animation: animated.then_some(lanthorn::level::Animation {
            first: 1,
            frames: 2,
            rate: 1.0,
        }),
        ..stripes(false)
    });
    level.materials.extend([stripes(false), stripes(true)]);
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
fn a_scrolling_picture_moves_and_an_animated_one_turns_by_the_time() {
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
    let (scrolling, still) = (
        scrolling_quad([0.5, 0.0], false),
        scrolling_quad([0.0; 2], false),
    );
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
    let animated = scrolling_quad([0.0; 2], true);
    lanthorn::level::validate::validate(&animated).unwrap();
    let shown: Vec<bool> = [0.0, 0.5, 1.0, 1.5, 2.0]
        .map(|t| white_left(&frame(&animated, t)))
        .into();
    assert_eq!(
        shown,
        [true, true, false, false, true],
        "the pictures in turn, a second each"
    );
}
