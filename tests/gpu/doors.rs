//! Doors close their portals. Shut, no surface behind a door reaches the frame — the id image
//! with portal culling shows the door and the corridor and nothing of the doorway or the room,
//! exactly as the unculled truth does (the door really is in the doorway) — and open, the room
//! shows, again as in the truth.

use glam::Vec3;
use lanthorn::geom::{Camera, CameraSpec};
use lanthorn::level::Level;
use lanthorn::render::settings::FrameSettings;
use lanthorn::vis::{CullMode, Culler, VisibleSet};

use crate::support::gpu_fallbacks;

/// A corridor, a doorway, a room, a door (3 s shut, 2 s up, 3 s open, 2 s down), a lantern.
const SCENE: &str = include_str!("../scenes/door.ron");

const SIZE: (u32, u32) = (320, 180);

/// The solid id image at `time` with `cull`'s culling.
fn ids(level: &Level, time: f32, cull: CullMode) -> Vec<u32> {
    let gpu = gpu_fallbacks().expect("checked by the caller");
    let camera = Camera::new(
        CameraSpec {
            position: Vec3::new(100.0, 64.0, 56.0),
            yaw: 28.6,
            pitch: 0.0,
        },
        SIZE.0 as f32 / SIZE.1 as f32,
    );
    let settings = FrameSettings {
        time,
        surface_tests: lanthorn::app::surface_tests(cull),
        ..Default::default()
    };
    let mut culler = Culler::new(level, cull);
    lanthorn::app::animate(level, &mut culler, &settings);
    let mut visible = VisibleSet::default();
    culler.cull(level, &camera, &mut visible);
    crate::support::solid_ids(gpu, level, &camera, &visible, &settings, SIZE)
}

/// How many pixels show a surface of `surfaces` (ids are surface + 1).
fn showing(image: &[u32], surfaces: &[u32]) -> usize {
    image
        .iter()
        .filter(|&&id| id > 0 && surfaces.contains(&(id - 1)))
        .count()
}

#[test]
fn a_shut_door_hides_the_room_and_an_open_one_shows_it() {
    if gpu_fallbacks().is_none() {
        return;
    }
    let scene = lanthorn::compile::scene::parse(SCENE).unwrap();
    let (level, _) = lanthorn::compile::scene::compile_scene(&scene, &Default::default()).unwrap();
    let door = &level.objects[0];
    let beyond: Vec<u32> = [Vec3::new(232.0, 136.0, 40.0), Vec3::new(232.0, 300.0, 60.0)]
        .iter()
        .flat_map(|&p| {
            level.cells[level.locate(p).unwrap() as usize]
                .surfaces
                .clone()
        })
        .collect();
    for (time, shut) in [(0.0, true), (2.5, true), (5.0, false)] {
        let culled = ids(&level, time, CullMode::Portal);
        let truth = ids(&level, time, CullMode::None);
        let differing = culled.iter().zip(&truth).filter(|(a, b)| a != b).count();
        assert!(
            differing <= 4,
            "t = {time}: {differing} pixels differ from the truth"
        );
        let room = showing(&culled, &beyond);
        let door_pixels = showing(&culled, &door.surfaces);
        eprintln!("t = {time}: room {room} px, door {door_pixels} px");
        if shut {
            assert_eq!(room, 0, "t = {time}: the room shows through a shut door");
            assert!(
                door_pixels > 500,
                "t = {time}: the door covers {door_pixels} px"
            );
        } else {
            assert!(
                room > 500,
                "t = {time}: the open doorway shows {room} px of the room"
            );
        }
    }
}
