//! `lanthorn compile`: its arguments.

use std::path::PathBuf;

use clap::Args;

use crate::app;

#[derive(Args)]
pub struct CompileArgs {
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
    /// Light each luxel at its centre only (Quake's `light`) instead of the mean of 4×4
    /// samples over it (ericw-tools' `-extra4`, the default): about 16× faster, harder edges.
    #[arg(long)]
    fast_light: bool,
    /// Diffuse bounces of the steady light (default: the worldspawn's `_bounce`, else 0).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=8))]
    bounces: Option<u32>,
    /// Write the level even when it leaks (the outside kept, the leak path stored in it).
    #[arg(long)]
    allow_leak: bool,
    /// A folder of the WAD2 files (and palette.lmp) a `.map` names, searched before the map's
    /// own folder and `../wads`; give it more than once for several.
    #[arg(long, value_name = "DIR")]
    wad_dir: Vec<PathBuf>,
}

/// Compiles the input into a level file.
pub(super) fn run(a: CompileArgs) -> anyhow::Result<()> {
    let opts = crate::compile::CompileOptions {
        max_cell_size: a.max_cell_size,
        light: !a.no_light,
        light_samples: if a.fast_light { 1 } else { 4 },
        bounces: a.bounces,
        allow_leak: a.allow_leak,
        wad_dirs: a.wad_dir,
        progress: crate::app::progress::terminal(),
        ..Default::default()
    };
    app::compile::run(&a.input, &a.output, &opts, a.json)
}
