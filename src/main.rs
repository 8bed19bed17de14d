//! The `lanthorn` command line: it parses the arguments and hands each command to `app`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use lanthorn::app;
use lanthorn::geom::CameraSpec;
use lanthorn::render::{Gpu, GpuOptions, OptionalFeature};
use lanthorn::vis::CullMode;

#[derive(Parser)]
#[command(
    name = "lanthorn",
    version,
    about = "Portal-culling renderer for brush-built worlds, on wgpu"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Args, Clone, Default)]
struct CullArgs {
    /// Culling method: portal (default), pvs (GLQuake's, levels that carry one), pvs-cells, frustum, none.
    #[arg(long, default_value = "portal")]
    cull: CullMode,
    /// Texture magnification: nearest (Quake's look, default) or linear.
    #[arg(long, default_value = "nearest", value_parser = ["nearest", "linear"])]
    filter: String,
    /// Light styles: animated (Quake's strings at 10 Hz, default) or normal (every style "m").
    #[arg(long, default_value = "animated", value_parser = ["animated", "normal"])]
    styles: String,
    /// Hold the clock at SECONDS (light styles, sky scroll, liquid warp); capture draws at 0
    /// without it, bench and the demo run the clock.
    #[arg(long, value_name = "SECONDS", value_parser = parse_time)]
    time: Option<f32>,
    /// Surface cache: on (default; the camera draws baked texture × light with one fetch) or
    /// off (every surface shaded from its material and lightmap each frame).
    #[arg(long, default_value = "on", value_parser = ["on", "off"])]
    surface_cache: String,
}

impl CullArgs {
    fn settings(&self) -> lanthorn::render::frame::FrameSettings {
        use lanthorn::level::styles::StyleMode;
        lanthorn::render::frame::FrameSettings {
            linear_filtering: self.filter == "linear",
            light_styles: if self.styles == "normal" {
                StyleMode::Normal
            } else {
                StyleMode::Animated
            },
            time: self.time.unwrap_or(0.0),
            surface_cache: self.surface_cache != "off",
            ..Default::default()
        }
    }
}

/// The game a Quake level is shown as: which brush entities spawn (Quake's `spawnflags`).
#[derive(Args, Clone, Copy, Default)]
struct SpawnArgs {
    /// Skill 0 (easy), 1 (normal, the default, as quakespasm), 2 (hard) or 3 (nightmare):
    /// brush entities flagged "not in" this skill are left out.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=3))]
    skill: u8,
    /// Leave out the brush entities flagged "not in deathmatch".
    #[arg(long)]
    deathmatch: bool,
}

impl SpawnArgs {
    fn rules(&self) -> lanthorn::level::spawn::SpawnRules {
        lanthorn::level::spawn::SpawnRules {
            skill: self.skill,
            deathmatch: self.deathmatch,
        }
    }
}

fn parse_time(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err(format!("expected seconds ≥ 0, e.g. 2.5, got {s:?}")),
    }
}

#[derive(Args, Clone, Default)]
struct OverlayArgs {
    /// Culling debug overlays (comma-separated): portals, octagons, cells, depth,
    /// culled-surfaces, frozen, overdraw, wireframe, leak (on by default in a level compiled
    /// with --allow-leak).
    #[arg(long, value_name = "NAMES")]
    overlay: Option<lanthorn::render::overlay::OverlaySet>,
    /// Freeze culling at this camera (X,Y,Z,YAW,PITCH) while drawing from --camera.
    #[arg(long, allow_hyphen_values = true, value_name = "X,Y,Z,YAW,PITCH")]
    cull_camera: Option<CameraSpec>,
    /// The overdraw overlay's octagon clipping: clip-distances (default), discard or off.
    #[arg(long, default_value = "clip-distances", value_parser = ["clip-distances", "discard", "off"])]
    overdraw_octagons: String,
}

impl OverlayArgs {
    fn overlays(&self) -> app::overlays::Overlays {
        use lanthorn::render::world::OctagonClip;
        let mut set = self.overlay.unwrap_or_default();
        set.frozen |= self.cull_camera.is_some();
        app::overlays::Overlays {
            set,
            cull_camera: self.cull_camera,
            overdraw_clip: match self.overdraw_octagons.as_str() {
                "discard" => OctagonClip::Discard,
                "off" => OctagonClip::Off,
                _ => OctagonClip::ClipDistances,
            },
        }
    }
}

#[derive(Args, Clone, Default)]
struct GpuArgs {
    /// Switch optional GPU features off on purpose (comma-separated): clip-distances,
    /// indirect-first-instance, timestamp-query, polygon-mode-line, pipeline-statistics. Also
    /// LANTHORN_DISABLE.
    #[arg(long, value_name = "FEATURES", global = true)]
    disable: Option<String>,
}

impl GpuArgs {
    fn options(&self) -> anyhow::Result<GpuOptions> {
        let disable = match &self.disable {
            Some(s) => {
                OptionalFeature::parse_list(s).map_err(|e| anyhow::anyhow!("--disable: {e}"))?
            }
            None => Vec::new(),
        };
        Ok(GpuOptions { disable })
    }
}

#[derive(Args, Clone, Default)]
struct TerrainArgs {
    /// Clipmap terrain: a 16-bit grayscale PNG with a JSON sidecar, or procedural:SIZE[:SEED].
    /// Without a LEVEL only the terrain is drawn.
    #[arg(long, value_name = "HEIGHTMAP")]
    terrain: Option<lanthorn::terrain::HeightmapSpec>,
    /// World units between heightmap samples (default: 64 for PNG, 32 for procedural).
    #[arg(long, value_name = "UNITS")]
    terrain_spacing: Option<f64>,
    /// World units per heightmap height unit (PNG: per metre, default 0.1; procedural: 1).
    #[arg(long, value_name = "SCALE")]
    terrain_vscale: Option<f32>,
    /// Clipmap levels (1..=24, default 10).
    #[arg(long, value_name = "L")]
    terrain_levels: Option<u32>,
    /// Clipmap vertices per level side, 2^k − 1 (default 255; 127 is 4× fewer triangles).
    #[arg(long, value_name = "N")]
    terrain_grid: Option<u32>,
}

impl TerrainArgs {
    fn options(&self) -> Option<app::terrain::TerrainOptions> {
        Some(app::terrain::TerrainOptions {
            heightmap: self.terrain.clone()?,
            spacing: self.terrain_spacing,
            vertical_scale: self.terrain_vscale,
            levels: self.terrain_levels,
            grid: self.terrain_grid,
        })
    }
}

/// An image file to write: only PNG is written, so any other extension is refused rather
/// than filled with PNG bytes.
fn png_path(s: &str) -> Result<PathBuf, String> {
    let p = PathBuf::from(s);
    match p.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("png") => Ok(p),
        _ => Err(format!(
            "{s}: only PNG images are written; name the file FILE.png"
        )),
    }
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WxH, e.g. 1280x720, got {s:?}"))?;
    let w: u32 = w.parse().map_err(|_| format!("bad width in {s:?}"))?;
    let h: u32 = h.parse().map_err(|_| format!("bad height in {s:?}"))?;
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(format!("size {s:?} must be between 1x1 and 16384x16384"));
    }
    Ok((w, h))
}

#[derive(Subcommand)]
enum Command {
    /// Open the demo window (the default when no command is given).
    Demo(DemoArgs),
    /// Render one frame headless to a PNG.
    Capture(CaptureArgs),
    /// Fly a fixed camera path headless and report frame times and draw counts.
    Bench(BenchArgs),
    /// Compile a Quake .map or an ordered-CSG .ron scene into a .lvl level.
    Compile(CompileArgs),
    /// Check the culling methods against an unculled ground-truth id render from random views.
    VisCheck(VisCheckArgs),
    /// Describe the GPU adapter, or a level file.
    Info(InfoArgs),
    /// Compare two renders of one view (scripts/compare-quakespasm.sh): one JSON line with the
    /// mean absolute error in linear light, greyscale SSIM and each image's pure-black share.
    #[command(hide = true)]
    CompareImage(CompareImageArgs),
}

#[derive(Args)]
struct CompareImageArgs {
    a: PathBuf,
    b: PathBuf,
    /// Also write A and B side by side (A left) to this PNG.
    #[arg(long, value_name = "OUT.png")]
    side_by_side: Option<PathBuf>,
}

#[derive(Parser)]
struct DemoArgs {
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
    #[arg(long, value_parser = png_path)]
    screenshot: Option<PathBuf>,
    /// Window size.
    #[arg(long, value_parser = parse_size, default_value = "1280x720")]
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

#[derive(Args)]
struct CaptureArgs {
    level: Option<PathBuf>,
    #[arg(long, allow_hyphen_values = true)]
    camera: Option<CameraSpec>,
    #[arg(long, value_parser = parse_size, default_value = "1280x720")]
    size: (u32, u32),
    /// Output PNG.
    #[arg(short, long, value_parser = png_path)]
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

#[derive(Args)]
struct BenchArgs {
    level: Option<PathBuf>,
    #[arg(long, allow_hyphen_values = true)]
    camera: Option<CameraSpec>,
    /// Frames to render, at least 1 (default 200; with --path, the path's length ÷ its speed).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    frames: Option<u32>,
    #[arg(long, default_value_t = 10)]
    warmup: u32,
    /// Replay a camera path: {"speed": 8, "keys": [{"pos": [x, y, z], "yaw": 90, "pitch": 0}, …]}
    /// (linear between keys, yaw the short way round; one key holds the camera still).
    #[arg(long, value_name = "FILE.json")]
    path: Option<PathBuf>,
    /// Accept path keys in solid (in no cell of the level).
    #[arg(long)]
    allow_solid: bool,
    /// With --json: per-frame arrays (frame ms, triangles, surfaces, sub-draws, cells, culling
    /// µs, eye outside, camera) under "per_frame".
    #[arg(long)]
    per_frame: bool,
    /// Skip counting the world pass's fragments after each frame (`overdraw_mean`).
    #[arg(long)]
    no_overdraw: bool,
    /// Draw frame time and triangles along the path (one line per method) as an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Write every frame's CPU stages and GPU passes as a Chrome trace.
    #[arg(long, value_name = "FILE.json")]
    trace: Option<PathBuf>,
    /// Render the same path once per culling method (comma-separated, the first is the base
    /// of the ratios), e.g. portal,pvs,frustum,none.
    #[arg(long, value_name = "METHODS", value_delimiter = ',')]
    compare: Option<Vec<lanthorn::vis::CullMode>>,
    #[arg(long, value_parser = parse_size, default_value = "1280x720")]
    size: (u32, u32),
    /// Print one JSON object on the last line of stdout.
    #[arg(long)]
    json: bool,
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

#[derive(Args)]
struct CompileArgs {
    input: PathBuf,
    #[arg(short, long)]
    output: PathBuf,
    /// Open cells longer than this (units) are split by axial planes.
    #[arg(long, default_value_t = 512.0)]
    max_cell_size: f64,
    /// Print one JSON object on the last line of stdout.
    #[arg(long)]
    json: bool,
    /// Leave every surface at full light instead of baking the light entities.
    #[arg(long)]
    no_light: bool,
    /// Write the level even when it leaks (the outside kept, the leak path stored in it).
    #[arg(long)]
    allow_leak: bool,
}

#[derive(Args)]
struct VisCheckArgs {
    level: PathBuf,
    /// Which views: `random` (eyes kept 8 units from every cell plane, so never in a doorway),
    /// `near-portals` (eyes 0-8 units either side of a portal's plane, over its interior, edges
    /// and corners), `walk` (the bench walk, which crosses portals), `portals` (half near-portal,
    /// half walk); or a number N, short for `random --count N`.
    #[arg(long, default_value = "random", value_name = "KIND|N")]
    views: String,
    /// How many views to sample (views in solid are skipped with a count).
    #[arg(long, default_value_t = 200)]
    count: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, value_parser = parse_size, default_value = "640x360")]
    size: (u32, u32),
    /// Compare pixels with hardware clip distances (lavapipe cracks at octagon edges);
    /// by default the exact fragment test is used.
    #[arg(long)]
    clip_distances: bool,
    #[arg(long)]
    json: bool,
    /// Write the views this check uses (a camera-path file) before checking.
    #[arg(long, value_name = "FILE.json")]
    write_views: Option<PathBuf>,
    /// With --write-views: write the views and stop, checking nothing.
    #[arg(long, requires = "write_views")]
    no_check: bool,
    /// Check these views (a camera-path file, e.g. from --write-views) instead of random ones.
    #[arg(long, value_name = "FILE.json")]
    views_file: Option<PathBuf>,
    /// Write the evidence of the worst views (id images in false colour, the missed surfaces
    /// and their cells) into this folder.
    #[arg(long, value_name = "DIR")]
    dump: Option<PathBuf>,
    /// Differing pixels per 300 views the portal method may leave on an imported level.
    #[arg(long, default_value_t = 2)]
    max_missed_pixels: u64,
    /// Skip the fragment counts behind `overdraw` (up to four renders a view fewer).
    #[arg(long)]
    no_overdraw: bool,
    /// Check the level as it is at SECONDS: where its moving objects are, which doors are
    /// shut (the keep: all three shut at 24, all open at 6.5).
    #[arg(long, value_name = "SECONDS", value_parser = parse_time, default_value_t = 0.0)]
    time: f32,
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    spawn: SpawnArgs,
}

#[derive(Args)]
struct InfoArgs {
    level: Option<PathBuf>,
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    gpu: GpuArgs,
    /// Describes the heightmap (samples, spacing, clipmap levels) instead; needs no GPU.
    #[command(flatten)]
    terrain: TerrainArgs,
}

/// winit and the Vulkan/EGL window-system probes complain without a runtime directory
/// (headless machines, CI): give them a private one.
fn ensure_runtime_dir() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return;
    }
    let dir = std::env::temp_dir().join("lanthorn-xdg-runtime");
    if std::fs::create_dir_all(&dir).is_ok() {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        }
        std::env::set_var("XDG_RUNTIME_DIR", &dir);
    }
}

fn main() {
    app::started();
    ensure_runtime_dir();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    if let Err(e) = run(Cli::parse()) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli
        .command
        .unwrap_or_else(|| Command::Demo(DemoArgs::default()))
    {
        Command::Demo(a) => demo(a),
        Command::Capture(a) => {
            let world = app::load_world(
                a.level.as_deref(),
                a.camera,
                a.terrain.options().as_ref(),
                a.spawn.rules(),
            )?;
            app::check_cull(&world, a.cull.cull)?;
            if let Some(t) = &a.trace {
                app::trace::check_path(t)?;
            }
            let renderdoc = match a.renderdoc_frame {
                Some(0) => Some(
                    lanthorn::render::renderdoc::RenderDoc::attached()
                        .map_err(|e| anyhow::anyhow!("--renderdoc-frame: {e}"))?,
                ),
                Some(n) => anyhow::bail!(
                    "--renderdoc-frame {n}: capture renders one frame, frame 0 (use demo --frames for more)"
                ),
                None => None,
            };
            let gpu = headless(&a.gpu)?;
            if a.lose_device {
                // The device-loss self-test: wgpu reports the loss at the next poll.
                gpu.device.destroy();
                let _ = gpu.device.poll(wgpu::PollType::Poll);
            }
            let mut overlays = a.overlays.overlays();
            overlays.set.leak |= world.level.leak.is_some();
            app::capture::run(
                &gpu,
                world,
                a.size,
                a.cull.cull,
                &a.cull.settings(),
                &overlays,
                &a.output,
                a.trace.as_deref(),
                renderdoc,
            )
        }
        Command::Bench(a) => {
            let world = app::load_world(
                a.level.as_deref(),
                a.camera,
                a.terrain.options().as_ref(),
                a.spawn.rules(),
            )?;
            app::check_cull(&world, a.cull.cull)?;
            let path = a
                .path
                .as_deref()
                .map(|p| app::path::CameraPath::load(p, Some(&world.level), a.allow_solid))
                .transpose()?;
            let frames = a
                .frames
                .or(path.as_ref().map(|p| p.frames()))
                .unwrap_or(200)
                .max(1);
            if let Some(plot) = &a.plot {
                app::plot::check_path(plot)?;
            }
            if let Some(t) = &a.trace {
                app::trace::check_path(t)?;
            }
            let out = app::bench::BenchOutput {
                json: a.json,
                per_frame: a.per_frame,
                plot: a.plot.clone(),
                trace: a.trace.clone(),
            };
            let gpu = headless(&a.gpu)?;
            let opts = app::bench::BenchOptions {
                frames,
                warmup: a.warmup,
                size: a.size,
                cull: a.cull.cull,
                settings: a.cull.settings(),
                fixed_time: a.cull.time,
                path: path.map(|p| p.cameras(frames)),
                overdraw: !a.no_overdraw,
                trace: a.trace.is_some(),
                overlays: a.overlays.overlays(),
            };
            match &a.compare {
                Some(methods) => {
                    if world.terrain.is_some() {
                        eprintln!("bench --compare: the level is drawn without its terrain");
                    }
                    for &m in methods {
                        app::check_cull(&world, m)?;
                    }
                    app::bench::run_compare(&gpu, &world, &opts, methods, &out)
                }
                None => app::bench::run_command(&gpu, world, &opts, &out),
            }
        }
        Command::Compile(a) => {
            let opts = lanthorn::compile::CompileOptions {
                max_cell_size: a.max_cell_size,
                light: !a.no_light,
                allow_leak: a.allow_leak,
                ..Default::default()
            };
            app::compile::run(&a.input, &a.output, &opts, a.json)
        }
        Command::VisCheck(a) => vis_check(a),
        Command::Info(a) if a.level.is_none() && a.terrain.terrain.is_some() => {
            let terrain = a.terrain.options().expect("a heightmap was given");
            app::info::terrain_command(&terrain, a.json)
        }
        Command::CompareImage(a) => {
            app::compare::run_command(&a.a, &a.b, a.side_by_side.as_deref())
        }
        Command::Info(a) => app::info::run_command(
            a.level.as_deref(),
            || Ok(Gpu::headless(&a.gpu.options()?)?),
            a.json,
        ),
    }
}

fn demo(a: DemoArgs) -> anyhow::Result<()> {
    if a.screenshot.is_some() && a.frames.is_none() {
        anyhow::bail!("--screenshot needs --frames N (the frame to save)");
    }
    let world = app::load_world(
        a.level.as_deref(),
        a.camera,
        a.terrain.options().as_ref(),
        a.spawn.rules(),
    )?;
    log::info!(
        "{}: level ready {:.3} s after the start",
        world.name.display(),
        app::started().elapsed().as_secs_f64()
    );
    app::check_cull(&world, a.cull.cull)?;
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
    let renderdoc = lanthorn::render::renderdoc::RenderDoc::attached().ok();
    if let Some(n) = a.renderdoc_frame {
        if renderdoc.is_none() {
            anyhow::bail!(
                "--renderdoc-frame: {}",
                lanthorn::render::renderdoc::NOT_ATTACHED
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
    let world_has_leak = world.level.leak.is_some();
    app::demo::run(app::demo::DemoOptions {
        level: world.level,
        terrain: world.terrain,
        level_name: world.name.display().to_string(),
        camera: world.camera,
        gpu: a.gpu.options()?,
        frames: a.frames,
        screenshot: a.screenshot,
        size: a.size,
        stress_surface: a.stress_surface,
        cull: a.cull.cull,
        settings: a.cull.settings(),
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
    })
}

/// The headless GPU of a command: a lost device or a GPU error is one message and exit 1.
fn headless(gpu: &GpuArgs) -> anyhow::Result<Gpu> {
    let gpu = Gpu::headless(&gpu.options()?)?;
    gpu.exit_on_device_loss();
    Ok(gpu)
}

fn vis_check(a: VisCheckArgs) -> anyhow::Result<()> {
    let (sampler, count) = match a.views.parse::<u32>() {
        Ok(n) => (app::views::ViewSampler::Random, n),
        Err(_) => (
            a.views
                .parse()
                .map_err(|e: String| anyhow::anyhow!("--views: {e}"))?,
            a.count,
        ),
    };
    if count == 0 {
        anyhow::bail!("--views/--count 0: a check needs at least one view");
    }
    let level = lanthorn::load::load_with(&a.level, a.spawn.rules())?;
    let gpu = headless(&a.gpu)?;
    let mut check = app::vis_check::VisCheckOptions {
        views: count,
        seed: a.seed,
        size: a.size,
        clip_distances: a.clip_distances,
        overdraw: !a.no_overdraw,
        time: a.time,
        ..Default::default()
    };
    let views = match &a.views_file {
        Some(f) => app::vis_check::views_in_cells(f, &level)?,
        None => app::vis_check::sample_views(&level, sampler, &check)?,
    };
    if let Some(f) = &a.write_views {
        app::vis_check::write_views(f, &views)?;
        if a.no_check {
            eprintln!("vis-check: wrote {} views to {}", views.len(), f.display());
            return Ok(());
        }
    }
    check.views_list = Some(views);
    check.dump = a.dump.clone();
    let limits = app::vis_check::VisCheckLimits {
        max_missed_pixels: a.max_missed_pixels,
    };
    app::vis_check::run_command(&gpu, &level, &check, a.json, limits)
}
