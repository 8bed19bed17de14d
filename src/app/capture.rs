//! `lanthorn capture`: one frame, headless, to a PNG.

use std::path::Path;

use crate::geom::{Camera, CameraSpec};
use crate::level::Level;
use crate::render::settings::FrameSettings;
use crate::render::{FrameStats, Gpu, Renderer};
use crate::terrain::ClipmapTerrain;
use crate::vis::{CullMode, Culler, VisibleSet};

use super::overlays::Overlays;

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
    let request = Request {
        camera,
        size,
        cull,
        settings,
        overlays,
        renderdoc: None,
    };
    render_frame(gpu, level, terrain, &request)
}

/// How to render one headless frame.
struct Request<'a> {
    camera: CameraSpec,
    size: (u32, u32),
    cull: CullMode,
    settings: &'a FrameSettings,
    overlays: &'a Overlays,
    /// Under RenderDoc with `--renderdoc-frame 0`: the frame is captured.
    renderdoc: Option<&'a crate::render::renderdoc::RenderDoc>,
}

fn render_frame(
    gpu: &Gpu,
    level: &Level,
    terrain: Option<ClipmapTerrain>,
    r: &Request<'_>,
) -> (image::RgbaImage, FrameStats) {
    let mut renderer = Renderer::new(gpu, level, r.size);
    if let Some(t) = terrain {
        renderer.set_terrain(gpu, t);
    }
    let cam = Camera::new(r.camera, r.size.0 as f32 / r.size.1 as f32);
    let mut visible = VisibleSet::default();
    let mut settings = FrameSettings {
        surface_tests: super::surface_tests(r.cull),
        ..*r.settings
    };
    let mut culler = Culler::new(level, r.cull);
    super::overlays::cull_frame(
        level,
        &mut culler,
        &mut renderer,
        &cam,
        r.overlays,
        &mut visible,
        &mut settings,
    );
    // The surface cache bakes what a frame drew directly for the frames after it: capture the
    // frame a user sees once it holds the view (a few frames at most).
    for _ in 0..16 {
        let warm = renderer.render(gpu, &cam, &visible, &settings);
        if warm.world.baking == 0 {
            break;
        }
    }
    if let Some(rd) = r.renderdoc {
        rd.start_frame();
    }
    let stats = renderer.render(gpu, &cam, &visible, &settings);
    if let Some(rd) = r.renderdoc {
        let written = rd.end_frame();
        eprintln!(
            "RenderDoc: frame 0 {} ({} captures)",
            if written { "captured" } else { "not captured" },
            rd.captures()
        );
    }
    (renderer.read_color(gpu), stats)
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
    let mut tracer = trace.map(|_| super::trace::Trace::new());
    let request = Request {
        camera: world.camera,
        size,
        cull,
        settings,
        overlays,
        renderdoc: renderdoc.as_ref(),
    };
    let (img, stats) = render_frame(gpu, &world.level, world.terrain, &request);
    save_png(&img, output)?;
    if let (Some(tracer), Some(path)) = (&mut tracer, trace) {
        tracer.frame(0, &stats);
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
