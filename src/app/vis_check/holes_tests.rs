//! The crack test against geometry whose answer is known: a room split by two blocks that
//! touch along one edge, so the line through that edge is open for no width at all.

use glam::Vec3;

use super::{HoleView, Holes};
use crate::geom::{Camera, CameraSpec};

/// A sealed room (x, z ±256, y ±64) with block A filling x < 0, z < 0 and block B filling
/// x > 0, z > 0: the open quarters (x < 0, z > 0) and (x > 0, z < 0) meet only along the
/// edge x = z = 0. A post stands in the first quarter at x −200…−150, z 0…40.
fn split_room() -> crate::level::Level {
    use lanthorn_testdata::box_brush;
    let mut map = String::from("{\n\"classname\" \"worldspawn\"\n");
    let shell: [([i32; 3], [i32; 3]); 6] = [
        ([-272, -80, -272], [-256, 80, 272]),
        ([256, -80, -272], [272, 80, 272]),
        ([-256, -80, -272], [256, -64, 272]),
        ([-256, 64, -272], [256, 80, 272]),
        ([-256, -64, -272], [256, 64, -256]),
        ([-256, -64, 256], [256, 64, 272]),
    ];
    let blocks = [
        ([-256, -64, -256], [0, 64, 0]),
        ([0, -64, 0], [256, 64, 256]),
        ([-200, -64, 0], [-150, 64, 40]),
    ];
    for (a, b) in shell.iter().chain(&blocks) {
        map += &box_brush(*a, *b, "wall");
    }
    map += "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"-64 0 64\"\n}\n";
    let options = crate::compile::CompileOptions {
        light: false,
        ..Default::default()
    };
    crate::compile::compile_map_text(&map, &options).unwrap().0
}

/// A camera at `eye` looking at `at`, and the middle pixel of a 101 × 101 view, whose ray
/// runs through `at` exactly.
fn looking(eye: Vec3, at: Vec3) -> (Camera, usize) {
    let d = at - eye;
    let spec = CameraSpec {
        position: eye,
        yaw: d.y.atan2(d.x).to_degrees(),
        pitch: d.z.atan2(d.truncate().length()).to_degrees(),
    };
    (Camera::new(spec, 1.0), 50 * 101 + 50)
}

#[test]
fn a_sight_along_the_edge_two_blocks_touch_on_is_a_crack_and_one_past_a_single_edge_is_not() {
    let level = split_room();
    let holes = Holes::new(&level);
    assert!(holes.on, "the compiled room has a tree and no outside");
    let eye = Vec3::new(-64.0, 0.0, 64.0);
    // Through the shared edge into the far quarter: the far wall x = 256 is 320 units on.
    let (camera, i) = looking(eye, Vec3::ZERO);
    let view = HoleView::new(&camera, (101, 101), &[]);
    assert!(!level.segment_crosses_solid(eye, Vec3::new(255.0, 0.0, -255.0), 0.0));
    assert!(holes.crack(&level, &view, i, 400.0), "along the edge");
    // Past the post's top corner on its open side: the far wall x = −256 is open above it.
    let corner = Vec3::new(-200.0, 0.0, 40.0);
    let (camera, i) = looking(eye, corner);
    let view = HoleView::new(&camera, (101, 101), &[]);
    let far = eye.distance(corner) * (256.0 - 64.0) / (200.0 - 64.0);
    assert!(!holes.crack(&level, &view, i, far), "past one edge");
    // Straight across the open quarter.
    let (camera, i) = looking(eye, Vec3::new(-256.0, 0.0, 200.0));
    let view = HoleView::new(&camera, (101, 101), &[]);
    assert!(!holes.crack(&level, &view, i, 200.0), "through open space");
}
