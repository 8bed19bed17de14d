//! `lanthorn vis-check`: its arguments and their checks.

use std::path::PathBuf;

use clap::Args;

use super::args::{self, GpuArgs, SpawnArgs};
use crate::app;

#[derive(Args)]
pub struct VisCheckArgs {
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
    #[arg(long, value_parser = args::parse_size, default_value = "640x360")]
    size: (u32, u32),
    /// Compare pixels with hardware clip distances (a software rasterizer cracks at octagon edges);
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
    #[arg(long, value_name = "SECONDS", value_parser = args::parse_time, default_value_t = 0.0)]
    time: f32,
    #[command(flatten)]
    gpu: GpuArgs,
    #[command(flatten)]
    spawn: SpawnArgs,
}

/// Checks the arguments, picks the views and runs the check.
pub(super) fn run(a: VisCheckArgs) -> anyhow::Result<()> {
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
    let (level, _) = app::load_level(Some(&a.level), &a.spawn.game()?)?;
    let gpu = args::headless(&a.gpu)?;
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
