//! `lanthorn bench`: its arguments and their checks.

use std::path::PathBuf;

use clap::Args;

use super::args::{self, CullArgs, GpuArgs, OverlayArgs, SpawnArgs, TerrainArgs};
use crate::app;
use crate::geom::CameraSpec;

#[derive(Args)]
pub struct BenchArgs {
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
    compare: Option<Vec<crate::vis::CullMode>>,
    #[arg(long, value_parser = args::parse_size, default_value = "1280x720")]
    size: (u32, u32),
    /// Rectangles of opaque UI over every frame, X,Y,W,H in pixels from the top left (several
    /// separated by `;`): the world and the terrain skip what lies under them, as under the
    /// demo's panels.
    #[arg(long, value_name = "X,Y,W,H", value_parser = parse_rects)]
    ui_cover: Option<UiCover>,
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

/// Checks the arguments (path, plot and trace files, methods), loads the world and flies it.
pub(super) fn run(a: BenchArgs) -> anyhow::Result<()> {
    let world = args::load_world(a.level.as_deref(), a.camera, &a.terrain, &a.spawn, &a.cull)?;
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
    let gpu = args::headless(&a.gpu)?;
    let opts = app::bench::BenchOptions {
        frames,
        warmup: a.warmup,
        size: a.size,
        cull: a.cull.cull,
        settings: a.cull.settings_for(&world.level)?,
        fixed_time: a.cull.time,
        path: path.map(|p| p.cameras(frames)),
        overdraw: !a.no_overdraw,
        trace: a.trace.is_some(),
        overlays: a.overlays.overlays(),
        ui_cover: a.ui_cover.map(|c| c.0).unwrap_or_default(),
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

/// `--ui-cover`'s rectangles (one argument holding them all).
#[derive(Clone, Debug, PartialEq)]
struct UiCover(Vec<[f32; 4]>);

/// `X,Y,W,H[;X,Y,W,H…]`: rectangles in pixels with a positive size.
fn parse_rects(s: &str) -> Result<UiCover, String> {
    s.split(';')
        .map(|r| {
            let v: Vec<f32> = r
                .split(',')
                .map(|x| x.trim().parse::<f32>().map_err(|e| format!("{r:?}: {e}")))
                .collect::<Result<_, _>>()?;
            match v[..] {
                [x, y, w, h] if w > 0.0 && h > 0.0 && v.iter().all(|c| c.is_finite()) => {
                    Ok([x, y, w, h])
                }
                _ => Err(format!(
                    "{r:?}: give X,Y,W,H in pixels with a positive width and height"
                )),
            }
        })
        .collect::<Result<_, _>>()
        .map(UiCover)
}

#[cfg(test)]
mod tests {
    /// Rectangles parse one or several; a wrong count, a zero size or a non-number is an
    /// error naming the rectangle.
    #[test]
    fn ui_cover_rectangles_parse_or_say_what_is_wrong() {
        assert_eq!(
            super::parse_rects("8,8,472,508;932,8,340,276"),
            Ok(super::UiCover(vec![
                [8.0, 8.0, 472.0, 508.0],
                [932.0, 8.0, 340.0, 276.0]
            ]))
        );
        for bad in ["1,2,3", "1,2,0,4", "a,2,3,4", "1,2,3,inf"] {
            let e = super::parse_rects(bad).unwrap_err();
            assert!(e.contains(bad), "{bad}: {e}");
        }
    }
}
