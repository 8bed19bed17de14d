//! The `lanthorn` command line: demo | capture | bench | info.

use std::path::PathBuf;

use anyhow::Context;
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
    /// Culling method: portal (default), pvs (levels that carry one), frustum, none.
    #[arg(long, default_value = "portal")]
    cull: CullMode,
    /// Texture magnification: nearest (Quake's look, default) or linear.
    #[arg(long, default_value = "nearest", value_parser = ["nearest", "linear"])]
    filter: String,
}

impl CullArgs {
    fn settings(&self) -> lanthorn::render::frame::FrameSettings {
        lanthorn::render::frame::FrameSettings {
            linear_filtering: self.filter == "linear",
            ..Default::default()
        }
    }
}

#[derive(Args, Clone, Default)]
struct GpuArgs {
    /// Switch optional GPU features off on purpose (comma-separated): clip-distances,
    /// indirect-first-instance, timestamp-query, polygon-mode-line. Also LANTHORN_DISABLE.
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
    fn load(&self) -> anyhow::Result<Option<lanthorn::terrain::ClipmapTerrain>> {
        let Some(spec) = &self.terrain else {
            return Ok(None);
        };
        app::terrain::load(&app::terrain::TerrainOptions {
            heightmap: spec.clone(),
            spacing: self.terrain_spacing,
            vertical_scale: self.terrain_vscale,
            levels: self.terrain_levels,
            grid: self.terrain_grid,
        })
        .map(Some)
    }
}

/// The level, start camera and terrain for a command: with `--terrain` and no LEVEL, an empty
/// world and the terrain's suggested camera; without `--terrain`, the level's own terrain.
fn scene(
    level: Option<&std::path::Path>,
    camera: Option<CameraSpec>,
    terrain: &TerrainArgs,
) -> anyhow::Result<(
    lanthorn::level::Level,
    PathBuf,
    CameraSpec,
    Option<lanthorn::terrain::ClipmapTerrain>,
)> {
    let terrain = terrain.load()?;
    if let (None, Some(t)) = (level, &terrain) {
        let camera = camera.unwrap_or_else(|| app::terrain::start_camera(t));
        let name = PathBuf::from(&t.heightmap.name);
        return Ok((lanthorn::level::Level::default(), name, camera, terrain));
    }
    let (level, path) = app::load_level(level)?;
    let camera = app::start_camera(&level, camera);
    let terrain = level_terrain(&level, &path, terrain)?;
    Ok((level, path, camera, terrain))
}

/// `--terrain` wins; otherwise the terrain the level places under itself (a scene's `terrain`).
/// A relative heightmap path in a level is relative to the level file's folder.
fn level_terrain(
    level: &lanthorn::level::Level,
    level_path: &std::path::Path,
    given: Option<lanthorn::terrain::ClipmapTerrain>,
) -> anyhow::Result<Option<lanthorn::terrain::ClipmapTerrain>> {
    if given.is_some() {
        return Ok(given);
    }
    let Some(t) = &level.terrain else {
        return Ok(None);
    };
    let context = |e: &dyn std::fmt::Display| {
        anyhow::anyhow!(
            "{}: the level's terrain {:?}: {e} (or pass --terrain to use another)",
            level_path.display(),
            t.heightmap
        )
    };
    let mut heightmap: lanthorn::terrain::HeightmapSpec =
        t.heightmap.parse().map_err(|e| context(&e))?;
    if let lanthorn::terrain::HeightmapSpec::Png(p) = &mut heightmap {
        if p.is_relative() {
            if let Some(dir) = level_path.parent() {
                *p = dir.join(&*p);
            }
        }
    }
    app::terrain::load(&app::terrain::TerrainOptions {
        heightmap,
        spacing: (t.horizontal_scale > 0.0).then_some(t.horizontal_scale as f64),
        vertical_scale: (t.vertical_scale > 0.0).then_some(t.vertical_scale),
        levels: None,
        grid: None,
    })
    .map(Some)
    .map_err(|e| context(&e))
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
    Demo {
        /// Level file (.lvl, .map, .ron, .bsp) or "builtin".
        level: Option<PathBuf>,
        /// Start camera: X,Y,Z,YAW,PITCH (Quake units, Z up, degrees).
        #[arg(long, allow_hyphen_values = true)]
        camera: Option<CameraSpec>,
        /// Exit after N frames.
        #[arg(long)]
        frames: Option<u64>,
        /// Save the last frame as PNG (with --frames).
        #[arg(long)]
        screenshot: Option<PathBuf>,
        /// Window size.
        #[arg(long, value_parser = parse_size, default_value = "1280x720")]
        size: (u32, u32),
        /// Self-test: resize to 0x0, minimize, lose the surface during the first frames.
        #[arg(long, hide = true)]
        stress_surface: bool,
        #[command(flatten)]
        terrain: TerrainArgs,
        #[command(flatten)]
        cull: CullArgs,
        #[command(flatten)]
        gpu: GpuArgs,
    },
    /// Render one frame headless to a PNG.
    Capture {
        level: Option<PathBuf>,
        #[arg(long, allow_hyphen_values = true)]
        camera: Option<CameraSpec>,
        #[arg(long, value_parser = parse_size, default_value = "1280x720")]
        size: (u32, u32),
        /// Output PNG.
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        terrain: TerrainArgs,
        #[command(flatten)]
        cull: CullArgs,
        #[command(flatten)]
        gpu: GpuArgs,
    },
    /// Fly a fixed camera path headless and report frame times and draw counts.
    Bench {
        level: Option<PathBuf>,
        #[arg(long, allow_hyphen_values = true)]
        camera: Option<CameraSpec>,
        #[arg(long, default_value_t = 200)]
        frames: u32,
        #[arg(long, default_value_t = 10)]
        warmup: u32,
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
        gpu: GpuArgs,
    },
    /// Compile a Quake .map or an ordered-CSG .ron scene into a .lvl level.
    Compile {
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
    },
    /// Check the culling methods against an unculled ground-truth id render from random views.
    VisCheck {
        level: PathBuf,
        #[arg(long, default_value_t = 200)]
        views: u32,
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
        #[command(flatten)]
        gpu: GpuArgs,
    },
    /// Describe the GPU adapter, or a level file.
    Info {
        level: Option<PathBuf>,
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        gpu: GpuArgs,
    },
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
    ensure_runtime_dir();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    if let Err(e) = run(Cli::parse()) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command.unwrap_or(Command::Demo {
        level: None,
        camera: None,
        frames: None,
        screenshot: None,
        size: (1280, 720),
        stress_surface: false,
        terrain: TerrainArgs::default(),
        cull: CullArgs::default(),
        gpu: GpuArgs::default(),
    }) {
        Command::Demo {
            level,
            camera,
            frames,
            screenshot,
            size,
            stress_surface,
            terrain,
            cull,
            gpu,
        } => {
            if screenshot.is_some() && frames.is_none() {
                anyhow::bail!("--screenshot needs --frames N (the frame to save)");
            }
            let (level, path, camera, terrain) = scene(level.as_deref(), camera, &terrain)?;
            app::demo::run(app::demo::DemoOptions {
                level,
                terrain,
                level_name: path.display().to_string(),
                camera,
                gpu: gpu.options()?,
                frames,
                screenshot,
                size,
                stress_surface,
                cull: cull.cull,
                settings: cull.settings(),
            })
        }
        Command::Capture {
            level,
            camera,
            size,
            output,
            terrain,
            cull,
            gpu,
        } => {
            let (level, _, camera, terrain) = scene(level.as_deref(), camera, &terrain)?;
            let has_terrain = terrain.is_some();
            let gpu = Gpu::headless(&gpu.options()?)?;
            let (img, stats) = app::capture::capture_with_terrain(
                &gpu,
                &level,
                terrain,
                camera,
                size,
                cull.cull,
                &cull.settings(),
            );
            app::capture::save_png(&img, &output)?;
            println!(
                "wrote {} ({}x{}), {} draw calls, {} sub-draws, {} triangles",
                output.display(),
                size.0,
                size.1,
                stats.world.draw_calls,
                stats.world.sub_draws,
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
        Command::Bench {
            level,
            camera,
            frames,
            warmup,
            size,
            json,
            terrain,
            cull,
            gpu,
        } => {
            let (level, _, camera, terrain) = scene(level.as_deref(), camera, &terrain)?;
            let gpu = Gpu::headless(&gpu.options()?)?;
            let opts = app::bench::BenchOptions {
                frames: frames.max(1),
                warmup,
                size,
                cull: cull.cull,
                settings: cull.settings(),
            };
            let report = app::bench::run_with_terrain(&gpu, &level, terrain, camera, &opts);
            report.print_table();
            if json {
                println!(
                    "{}",
                    serde_json::to_string(&report.to_json()).context("bench JSON")?
                );
            }
            Ok(())
        }
        Command::Compile {
            input,
            output,
            max_cell_size,
            json,
            no_light,
        } => {
            if !(max_cell_size > 0.0) {
                anyhow::bail!("--max-cell-size must be a positive number of units");
            }
            let opts = lanthorn::compile::CompileOptions {
                max_cell_size,
                light: !no_light,
                ..Default::default()
            };
            eprintln!("compiling {} …", input.display());
            let (stats, result) = match lanthorn::compile::compile_to_file(&input, &output, &opts) {
                Ok(stats) => (stats, Ok(())),
                Err(lanthorn::compile::CompileError::Leak {
                    stats,
                    classname,
                    position,
                    pointfile,
                    path,
                }) => {
                    let msg = format!(
                        "{}: leak: {classname} at ({:.0} {:.0} {:.0}) can reach the outside; \
                         the path is in {}; no level was written. Seal the level around it.",
                        path.display(),
                        position[0],
                        position[1],
                        position[2],
                        pointfile.display()
                    );
                    (*stats, Err(anyhow::anyhow!(msg)))
                }
                Err(e) => return Err(e.into()),
            };
            for (stage, secs) in &stats.stages {
                eprintln!("  {stage:<24} {:>8.1} ms", secs * 1e3);
            }
            for w in &stats.warnings {
                eprintln!("warning: {w}");
            }
            eprintln!(
                "{} brushes ({} failed), {} cells, {} portals, {} surfaces, {} triangles, {:.2} s{}",
                stats.brushes,
                stats.failed_brushes,
                stats.cells,
                stats.portals,
                stats.surfaces,
                stats.triangles,
                stats.seconds,
                if stats.leak { ", LEAK" } else { "" }
            );
            if json {
                println!("{}", serde_json::to_string(&stats.to_json())?);
            }
            if result.is_ok() {
                eprintln!("wrote {}", output.display());
            }
            result
        }
        Command::VisCheck {
            level,
            views,
            seed,
            size,
            clip_distances,
            json,
            gpu,
        } => {
            let level = lanthorn::load::load(&level)?;
            let mut opts = gpu.options()?;
            if !clip_distances {
                opts.disable.push(OptionalFeature::ClipDistances);
            }
            let gpu = Gpu::headless(&opts)?;
            let report = app::vis_check::run(
                &gpu,
                &level,
                &app::vis_check::VisCheckOptions {
                    views,
                    seed,
                    size,
                    ..Default::default()
                },
            )?;
            report.print_table();
            if json {
                println!("{}", serde_json::to_string(&report.to_json())?);
            }
            Ok(())
        }
        Command::Info { level, json, gpu } => {
            let v = match level {
                Some(path) => app::info::level_report(&lanthorn::load::load(&path)?),
                None => app::info::adapter_report(&Gpu::headless(&gpu.options()?)?),
            };
            if json {
                println!("{}", serde_json::to_string(&v)?);
            } else {
                app::info::print_table(&v);
            }
            Ok(())
        }
    }
}
