//! `lanthorn capture`: one frame, headless, to a PNG.

use std::path::Path;

use crate::geom::{Camera, CameraSpec};
use crate::level::Level;
use crate::render::settings::FrameSettings;
use crate::render::{FrameStats, Gpu};
use crate::terrain::ClipmapTerrain;
use crate::vis::CullMode;

use super::overlays::Overlays;
use super::session::Session;

/// Renders one frame of `level` from `camera` at `size`, culled with `cull`.
pub fn capture(
    gpu: &Gpu,
    level: &Level,
    camera: CameraSpec,
    size: (u32, u32),
    cull: CullMode,
) -> (image::RgbaImage, FrameStats) {
    capture_with_terrain(
        gpu,
        level,
        None,
        camera,
        size,
        cull,
        &FrameSettings::default(),
        &Overlays::default(),
    )
}

/// `capture` with explicit frame settings (filtering, fullbright, time).
pub fn capture_with(
    gpu: &Gpu,
    level: &Level,
    camera: CameraSpec,
    size: (u32, u32),
    cull: CullMode,
    settings: &FrameSettings,
) -> (image::RgbaImage, FrameStats) {
    capture_with_terrain(
        gpu,
        level,
        None,
        camera,
        size,
        cull,
        settings,
        &Overlays::default(),
    )
}

/// [`capture`] with an optional clipmap terrain drawn into the same frame, and overlays.
#[allow(clippy::too_many_arguments)]
pub fn capture_with_terrain(
    gpu: &Gpu,
    level: &Level,
    terrain: Option<ClipmapTerrain>,
    camera: CameraSpec,
    size: (u32, u32),
    cull: CullMode,
    settings: &FrameSettings,
    overlays: &Overlays,
) -> (image::RgbaImage, FrameStats) {
    let mut session = Session::new(gpu, level, terrain, size, cull).with(*settings, *overlays);
    let stats = render_frame(gpu, &mut session, camera);
    (session.read_color(gpu), stats)
}

/// The frame a user sees from `camera` once the view has settled (at the settings' time),
/// with `session`'s RenderDoc capturing it when attached (`--renderdoc-frame 0`).
fn render_frame(gpu: &Gpu, session: &mut Session<'_>, camera: CameraSpec) -> FrameStats {
    let size = session.renderer.target.size;
    let cam = Camera::new(camera, size.0 as f32 / size.1 as f32);
    let time = session.settings.time;
    session.settle(gpu, &cam, time);
    let capturing = session.begin_capture();
    let stats = session.frame(gpu, &cam, time);
    if let Some(message) = session.end_capture(0).filter(|_| capturing) {
        eprintln!("{message}");
    }
    stats
}

/// Writes a PNG whole or not at all (`files::replace_with`).
pub fn save_png(img: &image::RgbaImage, path: &Path) -> anyhow::Result<()> {
    crate::files::replace_with(path, |tmp| {
        img.save_with_format(tmp, image::ImageFormat::Png)
            .map_err(std::io::Error::other)
    })?;
    Ok(())
}

/// `lanthorn capture`: renders `world` once and writes `output`, then prints what was drawn.
pub fn run(
    gpu: &Gpu,
    world: super::World,
    size: (u32, u32),
    cull: CullMode,
    settings: &FrameSettings,
    overlays: &Overlays,
    output: &Path,
    trace: Option<&Path>,
    renderdoc: Option<crate::render::renderdoc::RenderDoc>,
) -> anyhow::Result<()> {
    let has_terrain = world.terrain.is_some();
    let mut session = Session::new(gpu, world.level, world.terrain, size, cull)
        .with(*settings, *overlays)
        .traced(trace.is_some());
    session.renderdoc = renderdoc;
    let stats = render_frame(gpu, &mut session, world.camera);
    save_png(&session.read_color(gpu), output)?;
    session.record(&stats);
    if let (Some(tracer), Some(path)) = (session.take_trace(), trace) {
        tracer.write(path)?;
    }
    println!(
        "wrote {} ({}x{}), {} draw calls, {} sub-draws, {} world surfaces, {} triangles",
        output.display(),
        size.0,
        size.1,
        stats.world.draw_calls,
        stats.world.sub_draws,
        stats.world.surfaces,
        stats.world.triangles
    );
    if has_terrain {
        let t = &stats.terrain;
        println!(
            "terrain: {} draw calls, {} instances, {} triangles, levels {}..{}, {} height bytes uploaded",
            t.draw_calls,
            t.instances,
            t.triangles,
            t.first_level,
            t.first_level + t.levels_drawn,
            t.upload_bytes
        );
    }
    Ok(())
}
