//! The `lanthorn` commands: each one's arguments (clap), their checks and its start, one
//! module per command; `args` holds the groups several share. `main.rs` only parses and
//! calls [`run`].

pub mod args;
pub mod bench;
pub mod capture;
pub mod compile;
pub mod demo;
pub mod generate;
pub mod info;
pub mod vis_check;

use clap::Subcommand;

#[derive(Subcommand)]
pub enum Command {
    /// Open the demo window (the default when no command is given).
    Demo(demo::DemoArgs),
    /// Render one frame headless to a PNG.
    Capture(capture::CaptureArgs),
    /// Fly a fixed camera path headless and report frame times and draw counts.
    Bench(bench::BenchArgs),
    /// Compile a Quake .map or an ordered-CSG .ron scene into a .lvl level.
    Compile(compile::CompileArgs),
    /// Check the culling methods against an unculled ground-truth id render from random views.
    VisCheck(vis_check::VisCheckArgs),
    /// Write a seeded Quake-style .map level (rooms on storeys, stairs, lifts, pits, liquids).
    Generate(generate::GenerateArgs),
    /// Describe the GPU adapter, or a level file.
    Info(info::InfoArgs),
    /// Compare two renders of one view (scripts/compare-quakespasm.sh): one JSON line with the
    /// mean absolute error in linear light, greyscale SSIM and each image's pure-black share.
    #[command(hide = true)]
    CompareImage(info::CompareImageArgs),
}

/// Runs a command; none is the demo with every argument at its default.
pub fn run(command: Option<Command>) -> anyhow::Result<()> {
    match command.unwrap_or_else(|| Command::Demo(demo::DemoArgs::default())) {
        Command::Demo(a) => demo::run(a),
        Command::Capture(a) => capture::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Compile(a) => compile::run(a),
        Command::VisCheck(a) => vis_check::run(a),
        Command::Generate(a) => generate::run(a),
        Command::Info(a) => info::run(a),
        Command::CompareImage(a) => info::compare_image(a),
    }
}
