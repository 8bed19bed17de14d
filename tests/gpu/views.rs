//! What the views through mirrors and teleporters show in the id frames (the vis-check truth):
//! only where their portal is the nearest thing, and with the objects in front of the mirror.

use glam::{Mat4, Vec2, Vec3};
use lanthorn::geom::{Camera, CameraSpec, Octagon};
use lanthorn::level::Level;
use lanthorn::render::settings::FrameSettings;
use lanthorn::vis::{CullMode, Culler, VisibleSet};

use crate::support::gpu;

const SIZE: (u32, u32) = (320, 180);

fn camera(spec: CameraSpec) -> Camera {
    Camera::new(spec, SIZE.0 as f32 / SIZE.1 as f32)
}

/// What `cull` keeps at `spec` (the level as it is at 0 s).
fn visible(level: &Level, spec: CameraSpec, cull: CullMode) -> VisibleSet {
    let mut culler = Culler::new(level, cull);
    let settings = FrameSettings::default();
    lanthorn::app::animate(level, &mut culler, &settings);
    let mut out = VisibleSet::default();
    culler.cull(level, &camera(spec), &mut out);
    out
}

/// The solid id image of `visible` seen from `spec` (ids are surface + 1).
fn ids(level: &Level, spec: CameraSpec, visible: &VisibleSet, cull: CullMode) -> Vec<u32> {
    let gpu = gpu().expect("checked by the caller");
    let settings = FrameSettings {
        surface_tests: lanthorn::app::surface_tests(cull),
        ..Default::default()
    };
    crate::support::solid_ids(gpu, level, &camera(spec), visible, &settings, SIZE)
}

/// Above the keep's roofs, looking down at the hall: its mirror faces the eye and is on screen
/// but under the roof. The unculled truth opens its view (`none` cannot know it is hidden);
/// the reflected hall reaches out past the keep's walls towards the eye, and before views were
/// masked to their portal it showed over the outer wall. Oracle: the same truth with the
/// views taken out — a view whose portal is hidden adds nothing — and the portal flow, which
/// never reaches the mirror from up here.
#[test]
fn a_view_whose_portal_is_hidden_adds_nothing() {
    if gpu().is_none() {
        return;
    }
    let options = lanthorn::compile::CompileOptions {
        light: false,
        ..Default::default()
    };
    let (level, _) = lanthorn::scenes::embedded::compile("keep.ron", &options).unwrap();
    let spec = CameraSpec {
        position: Vec3::new(1485.6, 1027.1, 761.8),
        yaw: 260.9,
        pitch: -16.8,
    };
    let truth = visible(&level, spec, CullMode::None);
    assert!(
        !truth.views.is_empty(),
        "the mirror faces the eye: none opens its view"
    );
    assert!(visible(&level, spec, CullMode::Portal).views.is_empty());
    let mut no_views = truth.clone();
    no_views.views.clear();
    no_views.cells.retain(|c| c.view == 0);
    no_views.objects.retain(|o| o.view == 0);
    let with = ids(&level, spec, &truth, CullMode::None);
    let without = ids(&level, spec, &no_views, CullMode::None);
    let differ = with.iter().zip(&without).filter(|(a, b)| a != b).count();
    assert_eq!(
        differ, 0,
        "the hidden mirror's view shows in {differ} pixels"
    );
}

/// The portal yard with a crate-textured block standing behind the camera, in front of the
/// mirror: it shows in the mirror. Oracle: the block's pixels in the reflected camera's own
/// unculled id image (flipped left–right) inside the mirror's screen rectangle.
#[test]
fn a_mirror_shows_the_objects_in_front_of_it() {
    if gpu().is_none() {
        return;
    }
    let scene = include_str!("../../assets/levels/portals.ron").replace(
        "    sky: Some(",
        "    objects: [(name: \"block\", brushes: [(brush: Box(min: (20, 140, 60), max: (60, \
         200, 140)), material: Some(\"crate\"))])],\n    sky: Some(",
    );
    let scene = lanthorn::compile::scene::parse(&scene).unwrap();
    let (mut level, _) =
        lanthorn::compile::scene::compile_scene(&scene, &Default::default()).unwrap();
    // The teleporter closed, so the mirror alone opens a view.
    for p in level.portals.iter_mut() {
        let m = p.transform.map(|m| Mat4::from_cols_array(&m));
        if m.is_some_and(|m| m.determinant() > 0.0) {
            p.flags |= lanthorn::level::portal_flags::CLOSED;
        }
    }
    let block = &level.objects[0].surfaces;
    let spec = CameraSpec {
        position: Vec3::new(100.0, 30.0, 100.0),
        yaw: 5.0,
        pitch: 0.0,
    };
    let mirror = level
        .portals
        .iter()
        .find(|p| p.transform.is_some())
        .unwrap();
    let reflect = Mat4::from_cols_array(&mirror.transform.unwrap());
    let inside = mirror_pixels(&level, spec);
    let count = |image: &[u32], flip: bool| {
        let pixel = |x: u32, y: u32| {
            let x = if flip { SIZE.0 - 1 - x } else { x };
            image[(y * SIZE.0 + x) as usize]
        };
        inside
            .iter()
            .filter(|&&(x, y)| {
                let id = pixel(x, y);
                id > 0 && block.contains(&(id - 1))
            })
            .count()
    };
    let reflected = CameraSpec {
        position: reflect.transform_point3(spec.position),
        yaw: 180.0 - spec.yaw,
        pitch: 0.0,
    };
    let oracle_set = visible(&level, reflected, CullMode::None);
    let oracle = count(&ids(&level, reflected, &oracle_set, CullMode::None), true);
    assert!(
        oracle > 50,
        "the block should fill part of the mirror ({oracle} px)"
    );
    for cull in [CullMode::Portal, CullMode::None] {
        let set = visible(&level, spec, cull);
        assert!(
            set.objects.iter().any(|o| o.object == 0 && o.view > 0),
            "{cull:?}: the block is in the mirror's view"
        );
        let shown = count(&ids(&level, spec, &set, cull), false);
        assert!(
            shown.abs_diff(oracle) <= oracle / 50 + 4,
            "{cull:?}: the block covers {shown} px of the mirror, the reflected camera sees {oracle}"
        );
    }
}

/// The pixels inside the mirror's screen octagon, two pixels in from its edges.
fn mirror_pixels(level: &Level, spec: CameraSpec) -> Vec<(u32, u32)> {
    let cam = camera(spec);
    let corners: Vec<Vec2> = level
        .portals
        .iter()
        .filter(|p| {
            p.transform
                .is_some_and(|m| Mat4::from_cols_array(&m).determinant() < 0.0)
        })
        .flat_map(|p| p.polygon.iter())
        .map(|p| cam.world_to_ndc(*p).unwrap().truncate())
        .collect();
    let oct = Octagon::from_points(corners.iter().copied());
    let margin = 4.0 / SIZE.1 as f32;
    let mut out = Vec::new();
    for y in 0..SIZE.1 {
        for x in 0..SIZE.0 {
            let ndc = Vec2::new(
                (x as f32 + 0.5) / SIZE.0 as f32 * 2.0 - 1.0,
                1.0 - (y as f32 + 0.5) / SIZE.1 as f32 * 2.0,
            );
            let a = [ndc.x, ndc.y, ndc.x + ndc.y, ndc.x - ndc.y];
            if (0..4).all(|i| a[i] > oct.min[i] + margin && a[i] < oct.max[i] - margin) {
                out.push((x, y));
            }
        }
    }
    out
}
