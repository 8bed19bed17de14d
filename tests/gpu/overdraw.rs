//! The two fragment counters against analytic answers, with N full-screen walls.
//!
//! `OverdrawCounter` (the `overdraw` figure): back to front every wall passes the depth test,
//! N a pixel; front to back only the first, 1 a pixel. With the cell's octagon covering the
//! left half: clip distances count the left half only; a fragment discard shades the whole
//! triangles (the right half, where no depth is ever written, N times); no octagon clipping
//! draws everything.
//!
//! `FragmentCounter` (pipeline statistics): N walls back to front run the fragment shader N
//! times as often as one wall; front to back never more. On lavapipe the count does not see
//! the early depth test (front to back counts as much as back to front) and counts about 1.34
//! invocations a pixel for one full-screen wall at 64×36, which is why it is not the overdraw.

use glam::{Vec2, Vec3};
use lanthorn::geom::Octagon;
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::level::{Cell, Level, Surface, Vertex};
use lanthorn::render::overdraw::{FragmentCounter, OverdrawCounter};
use lanthorn::render::pass::{FrameInputs, Pass};
use lanthorn::render::settings::FrameSettings;
use lanthorn::render::target::{FrameTarget, GAMMA_COLOR_FORMAT};
use lanthorn::render::world::{OctagonClip, SurfaceTests, WorldPass};
use lanthorn::vis::VisibleSet;

use crate::support::{gpu, unavailable};

/// A wall across the view at x = `x`, facing the eye at the origin (−X), far wider than it sees.
fn wall(x: f32) -> Surface {
    let v = |y: f32, z: f32| Vertex {
        position: Vec3::new(x, y, z),
        uv: Vec2::ZERO,
        lightmap_uv: Vec2::ZERO,
    };
    Surface {
        // Counter-clockwise seen from the eye (+Y is to its left).
        vertices: vec![v(-1e4, -1e4), v(-1e4, 1e4), v(1e4, 1e4), v(1e4, -1e4)],
        indices: vec![0, 1, 2, 0, 2, 3],
        normal: -Vec3::X,
        ..Default::default()
    }
}

const SIZE: (u32, u32) = (64, 36);

/// A world pass over walls at `order` (drawn in that order, a cell each), prepared from the
/// origin looking down +X with every cell's octagon `octagon`.
fn stacked_walls(order: &[f32], octagon: Octagon) -> Option<WorldPass> {
    let gpu = gpu()?;
    let level = Level {
        surfaces: order.iter().map(|&x| wall(x)).collect(),
        // A cell a wall: one sub-draw each, as the discard count needs (see
        // `WorldPass::record_fragment_count`).
        cells: (0..order.len() as u32)
            .map(|s| Cell {
                surfaces: vec![s],
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let size = SIZE;
    let mut world = WorldPass::create(gpu, &level, GAMMA_COLOR_FORMAT);
    let camera = Camera::new(
        CameraSpec {
            position: Vec3::ZERO,
            yaw: 0.0,
            pitch: 0.0,
        },
        size.0 as f32 / size.1 as f32,
    );
    let mut visible = VisibleSet::everything(&level);
    for c in &mut visible.cells {
        c.octagon = octagon;
    }
    let settings = FrameSettings {
        surface_tests: SurfaceTests::NONE, // the cell's order as listed
        ..Default::default()
    };
    let inputs = FrameInputs::view((&camera, size), &visible, &settings);
    world.prepare(gpu, &inputs);
    Some(world)
}

fn invocations_per_pixel(order: &[f32]) -> Option<f64> {
    let gpu = gpu()?;
    let Some(counter) = FragmentCounter::create(gpu) else {
        return unavailable("pipeline statistics", "the adapter does not grant them");
    };
    let world = stacked_walls(order, Octagon::FULL)?;
    let target = FrameTarget::create(gpu, SIZE);
    let n = counter.count(gpu, &world, &target);
    Some(n as f64 / (SIZE.0 * SIZE.1) as f64)
}

/// Per pixel fragment counts: (left half, right half), each the same over its half.
fn depth_tested_counts(order: &[f32], octagon: Octagon, clip: OctagonClip) -> Option<(u8, u8)> {
    let gpu = gpu()?;
    let world = stacked_walls(order, octagon)?;
    let counter = OverdrawCounter::create(gpu, SIZE);
    let Some(pixels) = counter.per_pixel(gpu, &world, clip) else {
        return unavailable("clip distances", "the adapter has none");
    };
    let half = |left: bool| {
        let mut values: Vec<u8> = pixels
            .iter()
            .enumerate()
            .filter(|(i, _)| ((*i as u32 % SIZE.0) < SIZE.0 / 2) == left)
            .map(|(_, &n)| n)
            .collect();
        values.dedup();
        assert_eq!(
            values.len(),
            1,
            "{clip:?} {order:?}: one count over each half: {values:?}"
        );
        values[0]
    };
    Some((half(true), half(false)))
}

/// The left half of the screen (x ≤ 0 in NDC).
const LEFT_HALF: Octagon = Octagon {
    min: [-1.0, -1.0, -2.0, -2.0],
    max: [0.0, 1.0, 1.0, 1.0],
};

#[test]
fn depth_tested_count_is_n_back_to_front_and_one_front_to_back_in_each_octagon_mode() {
    let back_to_front = [40.0, 30.0, 20.0, 10.0];
    let front_to_back = [10.0, 20.0, 30.0, 40.0];
    let Some(full) = depth_tested_counts(&back_to_front, Octagon::FULL, OctagonClip::Off) else {
        return;
    };
    assert_eq!(full, (4, 4));
    let cases = [
        (back_to_front, OctagonClip::ClipDistances, (4, 0)),
        (front_to_back, OctagonClip::ClipDistances, (1, 0)),
        (back_to_front, OctagonClip::Discard, (4, 4)),
        (front_to_back, OctagonClip::Discard, (1, 4)),
        (back_to_front, OctagonClip::Off, (4, 4)),
        (front_to_back, OctagonClip::Off, (1, 1)),
    ];
    for (order, clip, expected) in cases {
        let Some(counts) = depth_tested_counts(&order, LEFT_HALF, clip) else {
            continue;
        };
        assert_eq!(counts, expected, "{clip:?}, walls at {order:?}");
    }
}

#[test]
fn stacked_walls_count_n_times_one_back_to_front_and_never_more_front_to_back() {
    let Some(back_to_front) = invocations_per_pixel(&[40.0, 30.0, 20.0, 10.0]) else {
        return;
    };
    let front_to_back = invocations_per_pixel(&[10.0, 20.0, 30.0, 40.0]).unwrap();
    let one = invocations_per_pixel(&[10.0]).unwrap();
    assert!(one >= 1.0, "one wall covers every pixel: {one} per pixel");
    assert!(
        (back_to_front / one - 4.0).abs() < 0.01,
        "four walls back to front: {back_to_front}, one: {one}"
    );
    assert!(
        front_to_back <= back_to_front + 1e-9,
        "front to back {front_to_back}"
    );
}
