//! The fragment counter behind `overdraw`, against an analytic answer: N full-screen walls
//! drawn back to front run the fragment shader N times as often as one wall; front to back,
//! never more (a GPU whose early depth test shows in the count runs it once a pixel). On
//! lavapipe the count does not see the early depth test (front to back counts as much as back
//! to front) and counts about 1.34 invocations a pixel for one full-screen wall at 64×36:
//! overdraw as the issue defines it cannot be validated there, so vis-check does not report it
//! yet.

use glam::{Vec2, Vec3};
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::level::{Cell, Level, Surface, Vertex};
use lanthorn::render::frame::FrameSettings;
use lanthorn::render::overdraw::FragmentCounter;
use lanthorn::render::pass::{FrameInputs, Pass};
use lanthorn::render::target::{FrameTarget, COLOR_FORMAT};
use lanthorn::render::world::{SurfaceTests, WorldPass};
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

fn invocations_per_pixel(order: &[f32]) -> Option<f64> {
    let gpu = gpu()?;
    let Some(counter) = FragmentCounter::create(gpu) else {
        return unavailable("pipeline statistics", "the adapter does not grant them");
    };
    let level = Level {
        surfaces: order.iter().map(|&x| wall(x)).collect(),
        cells: vec![Cell {
            surfaces: (0..order.len() as u32).collect(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let size = (64, 36);
    let mut world = WorldPass::create(gpu, &level, COLOR_FORMAT);
    let camera = Camera::new(
        CameraSpec {
            position: Vec3::ZERO,
            yaw: 0.0,
            pitch: 0.0,
        },
        size.0 as f32 / size.1 as f32,
    );
    let visible = VisibleSet::everything(&level);
    let settings = FrameSettings {
        surface_tests: SurfaceTests::NONE, // the cell's order as listed
        ..Default::default()
    };
    let inputs = FrameInputs {
        camera: &camera,
        visible: &visible,
        settings: &settings,
        terrain_octagon: None,
    };
    world.prepare(gpu, &inputs);
    let target = FrameTarget::create(gpu, size);
    let n = counter.count(gpu, &world, &target);
    Some(n as f64 / (size.0 * size.1) as f64)
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
