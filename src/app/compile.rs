//! `lanthorn compile`: a source to a `.lvl`, with the compiler's stage times, warnings and
//! counts on stderr (and one JSON object on stdout with `--json`).

use std::path::Path;

use crate::compile::{compile_to_file, CompileError, CompileOptions, CompileStats};

/// Compiles `input` to `output`. A leak still prints the report of the stages that ran, then
/// fails with the compiler's own leak message.
pub fn run(
    input: &Path,
    output: &Path,
    options: &CompileOptions,
    json: bool,
) -> anyhow::Result<()> {
    if !(options.max_cell_size > 0.0) {
        anyhow::bail!("--max-cell-size must be a positive number of units");
    }
    eprintln!("compiling {} …", input.display());
    let (stats, result) = match compile_to_file(input, output, options) {
        Ok(stats) => (stats, Ok(())),
        Err(e) => {
            let CompileError::Leak { stats, .. } = &e else {
                return Err(e.into());
            };
            let stats = (**stats).clone();
            (stats, Err(e.into()))
        }
    };
    print_report(&stats);
    if json {
        println!("{}", serde_json::to_string(&stats.to_json())?);
    }
    if result.is_ok() {
        eprintln!("wrote {}", output.display());
    }
    result
}

fn print_report(stats: &CompileStats) {
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
}
