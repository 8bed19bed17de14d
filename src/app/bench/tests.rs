use super::*;
use glam::Vec3;

#[test]
fn quantiles_by_nearest_rank() {
    let v: Vec<f64> = (1..=100).map(|i| i as f64).collect();
    assert_eq!(quantile(&v, 0.5), 50.0);
    assert_eq!(quantile(&v, 0.95), 95.0);
    assert_eq!(quantile(&[3.0], 0.95), 3.0);
    assert_eq!(quantile(&[], 0.5), 0.0);
}

/// On real levels the walk's every frame is in a cell (its waypoints used to be cell box
/// centres, which lie in solid for slanted leaves: most frames were the eye-outside
/// fallback).
#[test]
fn the_walk_stays_in_cells_of_real_levels() {
    let q = crate::realdata_dir().join("quake");
    if !q.join("bsp/e1m1.bsp").exists() {
        lanthorn_testdata::missing_realdata(&q);
        return;
    }
    let committed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/paths/e1m1.json");
    for path in ["bsp/e1m1.bsp", "maps/e1m1.map", "bsp/dm3.bsp"] {
        let level = crate::load::load(&q.join(path)).unwrap();
        if path.contains("e1m1") {
            // The committed path, as `bench --path` replays it.
            let p = crate::app::path::CameraPath::load(&committed, Some(&level), false).unwrap();
            let frames = p.cameras(p.frames());
            let outside = frames
                .iter()
                .filter(|c| level.locate(c.position).is_none())
                .count();
            assert_eq!(
                outside, 0,
                "{path}: tests/paths/e1m1.json has frames in solid"
            );
        }
        let start = crate::app::start_camera(&level, None);
        let walk = level_path(&level, start, 600);
        let outside: Vec<usize> = (0..walk.len())
            .filter(|&i| level.locate(walk[i].position).is_none())
            .collect();
        assert!(outside.is_empty(), "{path}: frames {outside:?} in solid");
        let cells: std::collections::HashSet<u32> = walk
            .iter()
            .filter_map(|c| level.locate(c.position))
            .collect();
        assert!(
            cells.len() > 20,
            "{path}: the walk visits only {} cells",
            cells.len()
        );
    }
}

#[test]
fn level_path_stays_in_open_cells() {
    let level = crate::scenes::synthetic::maze(&crate::scenes::synthetic::MazeSpec::default());
    let start = level.player_start().unwrap();
    let path = level_path(&level, start, 300);
    assert_eq!(path.len(), 300);
    for c in &path {
        assert!(level.locate(c.position).is_some(), "{c:?} is in solid");
    }
    // It really travels: from room to room.
    let rooms: std::collections::HashSet<u32> = path
        .iter()
        .filter_map(|c| level.locate(c.position))
        .collect();
    assert!(rooms.len() > 5);
    // The built-in yard (its start near a corner, no portal out of it): the whole path
    // stays in the yard's open cells, and it still moves.
    let yard = crate::scenes::builtin::scene();
    let start = yard.player_start().unwrap();
    let path = level_path(&yard, start, 120);
    let yard_box = crate::geom::Aabb::new(crate::scenes::builtin::MIN, crate::scenes::builtin::MAX);
    for c in &path {
        assert!(yard.locate(c.position).is_some(), "{c:?} is in solid");
        assert!(yard_box.contains(c.position), "{c:?} left the yard");
    }
    assert!(path
        .iter()
        .any(|c| (c.position - start.position).length() > 10.0));
}

#[test]
fn camera_path_is_deterministic_and_closed() {
    let s = CameraSpec {
        position: Vec3::new(10.0, 20.0, 30.0),
        yaw: 45.0,
        pitch: 0.0,
    };
    let a = camera_path(s, 100);
    assert_eq!(a, camera_path(s, 100));
    assert!((a[0].position - s.position).length() < 1e-4);
    // Never further than the circle's diameter from the start.
    assert!(a
        .iter()
        .all(|c| (c.position - s.position).length() <= 192.01));
}
