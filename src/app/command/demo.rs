//! `lanthorn demo` (and `lanthorn` alone): its arguments and their checks.

use std::path::PathBuf;

use clap::Parser;

use super::args::{self, CullArgs, GpuArgs, OverlayArgs, SpawnArgs, TerrainArgs};
use crate::app;
use crate::geom::CameraSpec;

#[derive(Parser)]
pub struct DemoArgs {
    /// Level file (.lvl, .map, .ron, .bsp), "keep" (the default: the keep built into the
    /// program) or "builtin".
    level: Option<PathBuf>,
    /// Start camera: X,Y,Z,YAW,PITCH (Quake units, Z up, degrees).
    #[arg(long, allow_hyphen_values = true)]
    camera: Option<CameraSpec>,
    /// Exit after N frames (at least 1).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    frames: Option<u64>,
    /// Save the last frame as PNG (with --frames).
    #[arg(long, value_parser = args::png_path)]
    screenshot: Option<PathBuf>,
    /// Window size.
    #[arg(long, value_parser = args::parse_size, default_value = "1280x720")]
    size: (u32, u32),
    /// Self-test: resize to 0x0, minimize, lose the surface during the first frames.
    #[arg(long, hide = true)]
    stress_surface: bool,
    /// Where F12 saves frames (lanthorn-YYYYMMDD-HHMMSS.png; default: the current folder).
    #[arg(long, value_name = "DIR")]
    screenshot_dir: Option<PathBuf>,
    /// Capture frame N through RenderDoc's in-app API (run under RenderDoc:
    /// `renderdoccmd capture -w lanthorn demo …`); F11 captures the next frame.
    #[arg(long, value_name = "N")]
    renderdoc_frame: Option<u64>,
    /// Write every frame's CPU stages and GPU passes as a Chrome trace on exit.
    #[arg(long, value_name = "FILE.json")]
    trace: Option<PathBuf>,
    /// Timed key presses applied as if typed, one a line: FRAME KEY [FRAMES] (the windowed
    /// test's input; CI has no xdotool).
    #[arg(long, hide = true, value_name = "FILE")]
    input_script: Option<PathBuf>,
    /// Load the level again when its file (or a map's wads, a scene's textures) changes on
    /// disk; the camera, overlays and settings stay.
    #[arg(long)]
    watch: bool,
    /// With --watch: exit a few frames after the Nth reload (the windowed test's end).
    #[arg(long, hide = true, value_name = "N", requires = "watch")]
    exit_after_reloads: Option<u64>,
    #[command(flatten)]
    terrain: TerrainArgs,
    #[command(flatten)]
    cull: CullArgs,
    #[command(flatten)]
    overlays: OverlayArgs,
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    spawn: SpawnArgs,
}

/// `lanthorn` with no command: the demo with every argument at its default, the defaults
/// being the ones the argument parser declares.
impl Default for DemoArgs {
    fn default() -> Self {
        DemoArgs::parse_from(["demo"])
    }
}

/// Checks the arguments, loads the world and opens the window.
pub(super) fn run(a: DemoArgs) -> anyhow::Result<()> {
    if a.screenshot.is_some() && a.frames.is_none() {
        anyhow::bail!("--screenshot needs --frames N (the frame to save)");
    }
    let world = args::load_world(a.level.as_deref(), a.camera, &a.terrain, &a.spawn, &a.cull)?;
    log::info!(
        "{}: level ready {:.3} s after the start",
        world.name.display(),
        app::started().elapsed().as_secs_f64()
    );
    let input_script = match &a.input_script {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| {
                anyhow::anyhow!("{}: cannot read the input script: {e}", p.display())
            })?;
            app::keys::parse_script(p, &text)?
        }
        None => Vec::new(),
    };
    if let Some(t) = &a.trace {
        app::trace::check_path(t)?;
    }
    let renderdoc = crate::render::renderdoc::RenderDoc::attached().ok();
    if let Some(n) = a.renderdoc_frame {
        if renderdoc.is_none() {
            anyhow::bail!(
                "--renderdoc-frame: {}",
                crate::render::renderdoc::NOT_ATTACHED
            );
        }
        if a.frames.is_some_and(|f| n >= f) {
            anyhow::bail!(
                "--renderdoc-frame {n} is beyond --frames {} (frames count from 0)",
                a.frames.unwrap_or(0)
            );
        }
    }
    if let Some(d) = a.screenshot_dir.as_ref().filter(|d| !d.is_dir()) {
        anyhow::bail!("--screenshot-dir {}: no such folder", d.display());
    }
    let watch = a.watch.then(|| start_watch(&a)).transpose()?;
    let settings = a.cull.settings_for(&world.level)?;
    let world_has_leak = world.level.leak.is_some();
    // A leaky level starts on its leak line (`[` / `]` walk it), unless told otherwise.
    let camera = match (a.camera, &world.level.leak) {
        (None, Some(leak)) => {
            app::leak_walk::camera_at(&app::leak_walk::corners(leak), 0).unwrap_or(world.camera)
        }
        _ => world.camera,
    };
    app::demo::run(app::demo::DemoOptions {
        level: world.level,
        terrain: world.terrain,
        level_name: world.name.display().to_string(),
        camera,
        gpu: a.gpu.options()?,
        frames: a.frames,
        screenshot: a.screenshot,
        size: a.size,
        stress_surface: a.stress_surface,
        cull: a.cull.cull,
        settings,
        overlays: {
            let mut overlays = a.overlays.overlays();
            overlays.set.leak |= world_has_leak;
            overlays
        },
        screenshot_dir: a.screenshot_dir,
        input_script,
        renderdoc,
        renderdoc_frame: a.renderdoc_frame,
        trace: a.trace,
        fixed_time: a.cull.time,
        watch,
        exit_after_reloads: a.exit_after_reloads,
    })
}

/// `--watch`: the level's source files polled, the world loaded again as at the start.
fn start_watch(a: &DemoArgs) -> anyhow::Result<app::watch::Watch> {
    let level = a.level.clone().unwrap_or_else(|| app::DEFAULT_LEVEL.into());
    if !level.is_file() {
        let hint = if crate::load::is_builtin(&level) {
            " (the keep's source is assets/levels/keep.ron: watch that)"
        } else {
            " (a level found on the game's search path is not watched: give its file)"
        };
        anyhow::bail!("--watch: {} is no file to watch{hint}", level.display());
    }
    let options = crate::compile::CompileOptions::default();
    let files = crate::compile::source_files(&level, &options);
    let (terrain, spawn, cull) = (a.terrain.clone(), a.spawn.clone(), a.cull.clone());
    let listed = level.clone();
    let watch = app::watch::Watch::start(
        files,
        move || crate::compile::source_files(&listed, &options),
        move || args::load_world(Some(&level), None, &terrain, &spawn, &cull),
    )
    .map_err(|e| anyhow::anyhow!("--watch: cannot start the watching thread: {e}"))?;
    println!(
        "watching {} files: {}",
        watch.files.len(),
        watch
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(watch)
}
