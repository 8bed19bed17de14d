//! `lanthorn generate`: its arguments.

use std::path::PathBuf;

use clap::Args;

use crate::scenes::generated::{generate, GenOptions, WADS};

#[derive(Args)]
pub struct GenerateArgs {
    /// The level's seed: the same seed (and options) gives the same text.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the map to this file (written whole or not at all); without it, to stdout.
    #[arg(short, long, value_name = "FILE.map")]
    output: Option<PathBuf>,
    /// About how many rooms (a room split in two by a wall counts twice).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(2..=64))]
    rooms: u32,
    /// Storeys at most.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=4))]
    storeys: u32,
}

/// Generates the level and writes it.
pub(super) fn run(a: GenerateArgs) -> anyhow::Result<()> {
    let options = GenOptions {
        rooms: a.rooms,
        storeys: a.storeys,
    };
    let text = generate(a.seed, &options);
    match &a.output {
        Some(path) => {
            crate::files::write_atomically(path, text.as_bytes())?;
            eprintln!(
                "wrote {} (seed {}); it names gfx/{} and gfx/{}: ericw-tools reads them from gfx/ \
                 beside the map, Lanthorn from beside the map or --wad-dir",
                path.display(),
                a.seed,
                WADS[0],
                WADS[1]
            );
        }
        None => print!("{text}"),
    }
    Ok(())
}
