//! `lanthorn info` and the hidden `compare-image`: their arguments.

use std::path::PathBuf;

use clap::Args;

use super::args::{GpuArgs, SpawnArgs, TerrainArgs};
use crate::app;
use crate::render::Gpu;

#[derive(Args)]
pub struct InfoArgs {
    level: Option<PathBuf>,
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    spawn: SpawnArgs,
    /// Describes the heightmap (samples, spacing, clipmap levels) instead; needs no GPU.
    #[command(flatten)]
    terrain: TerrainArgs,
}

/// A heightmap alone (no level, `--terrain` given) needs no GPU; otherwise the adapter or a level.
pub(super) fn run(a: InfoArgs) -> anyhow::Result<()> {
    if a.level.is_none() && a.terrain.terrain.is_some() {
        let terrain = a.terrain.options().expect("a heightmap was given");
        return app::info::terrain_command(&terrain, a.json);
    }
    app::info::run_command(
        (a.level.as_deref(), &a.spawn.game()?),
        || Ok(Gpu::headless(&a.gpu.options()?)?),
        a.json,
    )
}

#[derive(Args)]
pub struct CompareImageArgs {
    a: PathBuf,
    b: PathBuf,
    /// Also write A and B side by side (A left) to this PNG.
    #[arg(long, value_name = "OUT.png")]
    side_by_side: Option<PathBuf>,
}

/// Compares two images (one JSON line).
pub(super) fn compare_image(a: CompareImageArgs) -> anyhow::Result<()> {
    app::compare::run_command(&a.a, &a.b, a.side_by_side.as_deref())
}
