//! `lanthorn capture`: its arguments and their checks.

use std::path::PathBuf;

use clap::Args;

use super::args::{self, CullArgs, GpuArgs, OverlayArgs, SpawnArgs, TerrainArgs};
use crate::app;
use crate::geom::CameraSpec;

#[derive(Args)]
pub struct CaptureArgs {
    level: Option<PathBuf>,
    #[arg(long, allow_hyphen_values = true)]
    camera: Option<CameraSpec>,
    #[arg(long, value_parser = args::parse_size, default_value = "1280x720")]
    size: (u32, u32),
    /// Output PNG.
    #[arg(short, long, value_parser = args::png_path)]
    output: PathBuf,
    #[command(flatten)]
    terrain: TerrainArgs,
    #[command(flatten)]
    cull: CullArgs,
    #[command(flatten)]
    overlays: OverlayArgs,
    /// Write the frame's CPU stages and GPU passes as a Chrome trace (Perfetto,
    /// chrome://tracing).
    #[arg(long, value_name = "FILE.json")]
    trace: Option<PathBuf>,
    /// Capture frame N (capture renders one: 0) through RenderDoc's in-app API; run under
    /// RenderDoc (`renderdoccmd capture -w lanthorn capture …`).
    #[arg(long, value_name = "N")]
    renderdoc_frame: Option<u64>,
    /// Self-test: destroy the GPU device before rendering (a lost device must end cleanly).
    #[arg(long, hide = true)]
    lose_device: bool,
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    spawn: SpawnArgs,
}

/// Checks the arguments (trace path, RenderDoc frame), loads the world and renders one frame.
pub(super) fn run(a: CaptureArgs) -> anyhow::Result<()> {
    let world = args::load_world(a.level.as_deref(), a.camera, &a.terrain, &a.spawn, &a.cull)?;
    if let Some(t) = &a.trace {
        app::trace::check_path(t)?;
    }
    let renderdoc = match a.renderdoc_frame {
        Some(0) => Some(
            crate::render::renderdoc::RenderDoc::attached()
                .map_err(|e| anyhow::anyhow!("--renderdoc-frame: {e}"))?,
        ),
        Some(n) => anyhow::bail!(
            "--renderdoc-frame {n}: capture renders one frame, frame 0 (use demo --frames for more)"
        ),
        None => None,
    };
    let gpu = args::headless(&a.gpu)?;
    if a.lose_device {
        // The device-loss self-test: wgpu reports the loss at the next poll.
        gpu.device.destroy();
        let _ = gpu.device.poll(wgpu::PollType::Poll);
    }
    let mut overlays = a.overlays.overlays();
    overlays.set.leak |= world.level.leak.is_some();
    let settings = a.cull.settings_for(&world.level)?;
    app::capture::run(
        &gpu,
        world,
        a.size,
        a.cull.cull,
        &settings,
        &overlays,
        &a.output,
        a.trace.as_deref(),
        renderdoc,
    )
}
