//! GPU pass timers switched per frame (`Renderer::gpu_timers`): off, a frame draws the same
//! pixels and times nothing; on again, it times its passes as before.

use lanthorn::geom::Camera;
use lanthorn::render::settings::FrameSettings;
use lanthorn::render::Renderer;
use lanthorn::vis::{CullMode, Culler, VisibleSet};

use crate::golden::BUILTIN_CAMERA;
use crate::support::gpu;

#[test]
fn frames_without_gpu_timers_draw_the_same_and_time_nothing() {
    let Some(gpu) = gpu() else { return };
    if !gpu.features.timestamp_query {
        eprintln!("adapter lacks timestamp queries: nothing is timed either way");
        return;
    }
    let level = lanthorn::scenes::builtin::scene();
    let size = (320u32, 180u32);
    let mut r = Renderer::new(gpu, &level, size);
    let camera = Camera::new(BUILTIN_CAMERA, size.0 as f32 / size.1 as f32);
    let mut visible = VisibleSet::default();
    Culler::new(&level, CullMode::Portal).cull(&level, &camera, &mut visible);
    let settings = FrameSettings::default();
    let mut frame = |timers: bool| {
        r.gpu_timers = timers;
        let stats = r.render(gpu, &camera, &visible, &settings);
        let passes: Vec<&str> = stats.gpu_ms.iter().map(|(name, _)| *name).collect();
        (passes, r.read_color(gpu))
    };
    // The first frame bakes the surface cache (passes of its own): the next ones do not.
    frame(true);
    let (timed, timed_img) = frame(true);
    let (untimed, untimed_img) = frame(false);
    let (again, _) = frame(true);
    assert!(timed.contains(&"world"), "timed frame's passes: {timed:?}");
    assert!(untimed.is_empty(), "untimed frame's passes: {untimed:?}");
    assert_eq!(again, timed, "timed again");
    // The same device, inputs and time: the same pixels.
    assert!(timed_img == untimed_img, "the untimed frame differs");
}
