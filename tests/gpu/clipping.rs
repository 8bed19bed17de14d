//! The per-draw octagon clips what a record draws, by hardware clip distances and by the
//! fragment-discard fallback alike.

use lanthorn::geom::{Camera, Octagon};
use lanthorn::render::settings::FrameSettings;
use lanthorn::render::{Gpu, Renderer};
use lanthorn::vis::{VisibleCell, VisibleSet};

use crate::golden::BUILTIN_CAMERA;
use crate::support::{gpu, gpu_fallbacks};

/// Renders the built-in scene (all its cells) with the octagon `x <= 0` (left half) and checks
/// that nothing is drawn right of the centre line while the left half shows the scene.
fn half_screen(gpu: &Gpu) {
    let level = lanthorn::scenes::builtin::scene();
    let size = (320u32, 180u32);
    let mut r = Renderer::new(gpu, &level, size);
    let cam = Camera::new(BUILTIN_CAMERA, size.0 as f32 / size.1 as f32);
    let mut left = Octagon::FULL;
    left.max[0] = 0.0;
    let mut visible = VisibleSet {
        cells: vec![],
        objects: vec![],
        views: vec![],
        flow_depth: Vec::new(),
        eye_outside: false,
        nothing_under_liquids: false,
    };
    // The oracle for "nothing drawn": the same frame with nothing visible (the clear colour as
    // the sRGB target reads it back).
    r.render(gpu, &cam, &visible, &FrameSettings::default());
    let empty = r.read_color(gpu);
    // Every cell of the yard (it is several), each with the left-half octagon.
    visible.cells = (0..level.cells.len() as u32)
        .map(|cell| VisibleCell {
            cell,
            octagon: left,
            view: 0,
        })
        .collect();
    let stats = r.render(gpu, &cam, &visible, &FrameSettings::default());
    assert!(stats.world.sub_draws >= 1);
    let img = r.read_color(gpu);
    let is_drawn = |x: u32, y: u32| {
        let (p, q) = (img.get_pixel(x, y), empty.get_pixel(x, y));
        (0..3).map(|k| p[k].abs_diff(q[k]) as u32).sum::<u32>() > 12
    };
    let mut right_drawn = 0;
    let mut left_drawn = 0;
    for y in 0..size.1 {
        for x in 0..size.0 {
            if x >= size.0 / 2 + 1 && is_drawn(x, y) {
                right_drawn += 1;
            }
            if x < size.0 / 2 - 1 && is_drawn(x, y) {
                left_drawn += 1;
            }
        }
    }
    assert_eq!(
        right_drawn,
        0,
        "pixels drawn outside the octagon ({})",
        gpu.describe()
    );
    assert!(
        left_drawn > (size.0 * size.1 / 4) as usize,
        "left half mostly empty: {left_drawn}"
    );
}

#[test]
fn octagon_clips_with_clip_distances() {
    let Some(gpu) = gpu() else { return };
    if !gpu.features.clip_distances {
        eprintln!("adapter lacks CLIP_DISTANCES: the discard test covers it");
        return;
    }
    half_screen(gpu);
}

#[test]
fn octagon_clips_with_discard_fallback_and_direct_draws() {
    let Some(gpu) = gpu_fallbacks() else { return };
    assert!(!gpu.features.clip_distances && !gpu.features.indirect_first_instance);
    half_screen(gpu);
}

#[test]
fn fallbacks_render_the_same_picture() {
    let (Some(a), Some(b)) = (gpu(), gpu_fallbacks()) else {
        return;
    };
    let level = lanthorn::scenes::builtin::scene();
    let (ia, sa) = lanthorn::app::capture::capture(
        a,
        &level,
        BUILTIN_CAMERA,
        (320, 180),
        lanthorn::vis::CullMode::Portal,
    );
    let (ib, sb) = lanthorn::app::capture::capture(
        b,
        &level,
        BUILTIN_CAMERA,
        (320, 180),
        lanthorn::vis::CullMode::Portal,
    );
    let (d, _) = crate::golden::diff(&ia, &ib);
    assert!(crate::golden::passes(&d), "{d:?}");
    // Multi-draw: one command per non-empty pipeline of the camera's view (a surface kind each,
    // and the cached batches), fewer than its sub-draws; direct: one per sub-draw.
    if a.features.indirect_first_instance {
        use lanthorn::render::world::{CACHED_BATCHES, KINDS};
        let pipelines = (KINDS + CACHED_BATCHES.len()) as u32;
        assert!(sa.world.draw_calls <= pipelines, "{:?}", sa.world);
        assert!(sa.world.draw_calls < sa.world.sub_draws, "{:?}", sa.world);
    }
    assert_eq!(sb.world.draw_calls, sb.world.sub_draws);
}
