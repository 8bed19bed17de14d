//! Liquids cover what is under them, as Quake draws them at `r_wateralpha 1` (depth written):
//! the nearest liquid shows, whichever is drawn last, and a wall behind a liquid is neither
//! seen nor shaded. The oracle is each surface rendered alone, and the fragment count of one
//! surface a pixel.

use glam::Vec3;

use crate::support::{capture, coloured_in_one_cell, gpu, unavailable, LOOKING_ALONG_X};
use lanthorn::geom::Camera;
use lanthorn::level::{surface_flags, Level, Surface, Vertex};
use lanthorn::render::overdraw::OverdrawCounter;
use lanthorn::render::pass::{FrameInputs, Pass};
use lanthorn::render::settings::FrameSettings;
use lanthorn::render::target::GAMMA_COLOR_FORMAT;
use lanthorn::render::world::{OctagonClip, WorldPass};
use lanthorn::vis::{CullMode, VisibleSet};

const SIZE: (u32, u32) = (160, 90);

/// A quad facing the eye in the plane x = `x`, over y `y0..y1` and z −40..40.
fn quad(x: f32, (y0, y1): (f32, f32), material: u32, flags: u32) -> Surface {
    let corners = [(y0, -40.0), (y0, 40.0), (y1, 40.0), (y1, -40.0)];
    Surface {
        vertices: corners
            .iter()
            .map(|&(y, z)| Vertex {
                position: Vec3::new(x, y, z),
                ..Default::default()
            })
            .collect(),
        // Counter-clockwise seen from the eye (+Y is to its left).
        indices: vec![0, 1, 2, 0, 2, 3],
        normal: -Vec3::X,
        material,
        flags,
        ..Default::default()
    }
}

/// A wall across the view at x 150 (`wall`), a liquid over the middle at x 100 (`far`) and
/// one over its left half at x 50 (`near`), listed wall, near, far: the far liquid is drawn
/// after the near one.
fn level(wall: bool, near: bool, far: bool) -> Level {
    let materials = [
        ("wall", [0.4, 0.2, 0.1]),
        ("*near", [0.1, 0.2, 0.6]),
        ("*far", [0.1, 0.6, 0.2]),
    ];
    coloured_in_one_cell(
        &materials,
        [
            (wall, quad(150.0, (-90.0, 90.0), 0, 0)),
            (near, quad(50.0, (0.0, 30.0), 1, surface_flags::LIQUID)),
            (far, quad(100.0, (-40.0, 40.0), 2, surface_flags::LIQUID)),
        ],
    )
}

/// Fragments that pass the depth test when drawn, per pixel, in the frame's order.
fn fragment_counts(level: &Level) -> Option<Vec<u8>> {
    fragment_counts_of(level, VisibleSet::everything(level))
}

/// [`fragment_counts`] of the frame drawn for `visible`.
fn fragment_counts_of(level: &Level, visible: VisibleSet) -> Option<Vec<u8>> {
    let gpu = gpu()?;
    let mut world = WorldPass::create(gpu, level, GAMMA_COLOR_FORMAT);
    let camera = Camera::new(LOOKING_ALONG_X, SIZE.0 as f32 / SIZE.1 as f32);
    let settings = FrameSettings::default();
    world.prepare(
        gpu,
        &FrameInputs::view((&camera, SIZE), &visible, &settings),
    );
    let counter = OverdrawCounter::create(gpu, SIZE);
    match counter.per_pixel(gpu, &world, OctagonClip::Off) {
        Some(p) => Some(p),
        None => unavailable("a fragment count", "the adapter cannot count"),
    }
}

#[test]
fn the_nearest_liquid_shows_and_what_lies_behind_is_not_shaded() {
    let Some(_) = gpu() else { return };
    let settings = FrameSettings::default();
    let render = |l: Level| capture(&l, LOOKING_ALONG_X, SIZE, CullMode::None, &settings);
    let all = render(level(true, true, true));
    let (near, far, wall) = (
        render(level(false, true, false)),
        render(level(false, false, true)),
        render(level(true, false, false)),
    );
    // +Y is to the left: the near liquid covers y 0..30 (left of the middle), the far one
    // y −40..40 at twice the distance (the middle half of its width on screen).
    let (both, far_only, bare) = ((60u32, 45u32), (95u32, 45u32), (125u32, 45u32));
    let px = |img: &image::RgbaImage, at: (u32, u32)| img.get_pixel(at.0, at.1).0;
    // Each place with what should show there and what it hides (which must look different).
    for (at, alone, hidden, what) in [
        (both, &near, &far, "the near liquid over the far one"),
        (far_only, &far, &wall, "the far liquid over the wall"),
        (bare, &wall, &near, "the wall"),
    ] {
        let (got, want) = (px(&all, at), px(alone, at));
        assert_ne!(want, px(hidden, at), "{what}: the two look alike");
        for k in 0..3 {
            assert!(
                (got[k] as i32 - want[k] as i32).abs() <= 1,
                "{what} at {at:?}: {got:?}, alone {want:?}"
            );
        }
    }
    let Some(counts) = fragment_counts(&level(true, true, true)) else {
        return;
    };
    for at in [both, far_only, bare] {
        let n = counts[(at.1 * SIZE.0 + at.0) as usize];
        assert_eq!(n, 1, "fragments shaded at {at:?}");
    }
}

/// Where the culler says no cell drawn lies under a liquid (`nothing_under_liquids`: the
/// portal flow stopped at every liquid), the covering liquids go last, so a wall standing in
/// front of one is shaded and the liquid behind it is not; otherwise they go first, and
/// there both are. The liquid alone is one fragment either way.
#[test]
fn covering_liquids_go_last_where_nothing_lies_under_them() {
    let Some(_) = gpu() else { return };
    // A liquid across the middle at x 100 and a wall in front of its left part at x 40.
    let level = coloured_in_one_cell(
        &[("wall", [0.4, 0.2, 0.1]), ("*far", [0.1, 0.6, 0.2])],
        [
            (true, quad(100.0, (-40.0, 40.0), 1, surface_flags::LIQUID)),
            (true, quad(40.0, (0.0, 20.0), 0, 0)),
        ],
    );
    let (walled, open) = ((60u32, 45u32), (100u32, 45u32));
    let counts = |nothing_under_liquids: bool| {
        let visible = VisibleSet {
            nothing_under_liquids,
            ..VisibleSet::everything(&level)
        };
        fragment_counts_of(&level, visible)
    };
    let (Some(last), Some(first)) = (counts(true), counts(false)) else {
        return;
    };
    let at = |c: &[u8], p: (u32, u32)| c[(p.1 * SIZE.0 + p.0) as usize];
    assert_eq!(at(&last, walled), 1, "liquid last: the wall alone");
    assert_eq!(at(&first, walled), 2, "liquid first: it, then the wall");
    assert_eq!((at(&last, open), at(&first, open)), (1, 1));
}

/// The vis-check truth agrees with the frame about what a liquid hides: its solid id image
/// shows the liquid where the frame does, and not the wall behind it (the flow stops at the
/// portals such liquids cover). A glow in the level is added over what lies behind it, so
/// there the liquids go to the truth's second layer and hide nothing.
#[test]
fn the_truth_counts_a_liquid_as_hiding_what_the_frame_hides() {
    let Some(gpu) = gpu() else { return };
    let camera = Camera::new(LOOKING_ALONG_X, SIZE.0 as f32 / SIZE.1 as f32);
    let settings = FrameSettings::default();
    let solid = |level: &Level| {
        let visible = VisibleSet::everything(level);
        crate::support::solid_ids(gpu, level, &camera, &visible, &settings, SIZE)
    };
    let (far_only, bare) = ((95u32, 45u32), (125u32, 45u32));
    let at = |ids: &[u32], p: (u32, u32)| ids[(p.1 * SIZE.0 + p.0) as usize];
    // Surfaces: 0 the wall, 1 the far liquid (ids are surface + 1).
    let hides = level(true, false, true);
    let ids = solid(&hides);
    assert_eq!(at(&ids, far_only), 2, "the far liquid over the wall");
    assert_eq!(at(&ids, bare), 1, "the wall beside it");
    let mut glowing = hides.clone();
    glowing
        .surfaces
        .push(quad(140.0, (80.0, 90.0), 0, surface_flags::GLOW));
    glowing.cells[0].surfaces.push(2);
    let ids = solid(&glowing);
    assert_eq!(
        at(&ids, far_only),
        1,
        "with a glow, the wall under the liquid"
    );
}
