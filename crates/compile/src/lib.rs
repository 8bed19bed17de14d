//! The level compilers. Two front ends — Quake `.map` sources (`map`) and ordered-CSG scenes
//! (`scene`) — each run a short list of named stages that emit the same `Draft` (cells,
//! portals, surface polygons with their specs, objects, entities); one back half (`finish`)
//! triangulates, bakes the light and packs the lightmaps. One error type, one stage timer.

#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub mod scenes;

mod draft;
mod error;
mod finish;
mod grid;
#[cfg(test)]
mod huge_tests;
mod map;
mod polyhedron;
pub mod scene;
mod stats;
mod surfaces;
mod texture;

use std::path::{Path, PathBuf};

use lanthorn_level::Level;

/// Largest coordinate accepted in a source (`.map` or scene) (Quake's world is ±4096 with generous headroom).
pub(crate) const MAX_COORD: f64 = 65536.0;

pub use error::CompileError;
pub use lanthorn_light::parallel::Progress;
pub use map::compile_map_text;
pub use map::map_file::MapError;
pub use scene::SceneError;
pub use stats::{outdoor_cells, CompileStats};

/// A sealed two-room test map as `.map` text (`skip_wall`: leave one wall out, so it leaks).
#[cfg(any(test, feature = "test-hooks"))]
pub use map::test_maps::room_map;

/// How a source is compiled: cell size, lightmap resolution, wads, leaks, light.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// Open cells longer than this along an axis are split by axial planes (units).
    pub max_cell_size: f64,
    /// Lightmap luxel spacing in texels.
    pub luxel_size: f64,
    /// Folders searched for `.wad` files (texture sizes); the real-data wads are searched last.
    pub wad_dirs: Vec<PathBuf>,
    /// Where a leak writes its point file (`None`: nowhere; `compile_to_file` puts it beside
    /// the output, extension `.pts`).
    pub leak_file: Option<PathBuf>,
    /// Write the level even when it leaks: the outside is kept (not flooded away) and the
    /// leak path is stored in the level (`Level::leak`).
    pub allow_leak: bool,
    /// Bake direct light from the level's light entities (`light::bake`); off, or with no
    /// lights in the level, every surface stays at full light.
    pub light: bool,
    /// Light samples per luxel along each axis (`light::bake::bake`): 1 (the default, what
    /// loading a `.map` and the tests use) lights each luxel's centre as Quake's `light` does;
    /// `lanthorn compile` uses 4 (ericw-tools' `-extra4`) unless `--fast-light`.
    pub light_samples: u32,
    /// Diffuse bounces of the steady light (`light::bounce`); `None`: the worldspawn's
    /// `_bounce` (0 without it).
    pub bounces: Option<u32>,
    /// Told how far the light bake is (`light::parallel::Progress`; silent by default).
    pub progress: Progress,
}

impl Default for CompileOptions {
    fn default() -> Self {
        Self {
            max_cell_size: 512.0,
            luxel_size: 16.0,
            wad_dirs: Vec::new(),
            leak_file: None,
            allow_leak: false,
            light: true,
            light_samples: 1,
            bounces: None,
            progress: Progress::silent(),
        }
    }
}

/// Every file compiling `path` reads: the source itself, a map's wads and palette, a scene's
/// textures (what `demo --watch` polls). Any other level is its one file.
pub fn source_files(path: &Path, options: &CompileOptions) -> Vec<std::path::PathBuf> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    let mut files = vec![path.to_path_buf()];
    match ext.as_deref() {
        Some("map") => files.extend(map::sources::read_files(path, options)),
        Some("ron") => files.extend(scene::named_files(path)),
        _ => {}
    }
    files
}

/// Compiles a `.map` or `.ron` source.
pub fn compile(
    path: &Path,
    options: &CompileOptions,
) -> Result<(Level, CompileStats), CompileError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("map") => map::compile_map_file(path, options),
        Some("ron") => scene::compile_scene_file(path, options),
        _ => Err(CompileError::Unsupported { path: path.into() }),
    }
}

/// Compiles `input` and saves the level to `output` (atomically). When the compile fails,
/// nothing is written and an `output` left by an earlier compile is removed (it no longer
/// matches the source); a leak writes its point file beside `output`, and a compile without
/// a leak removes a stale one.
pub fn compile_to_file(
    input: &Path,
    output: &Path,
    options: &CompileOptions,
) -> Result<CompileStats, CompileError> {
    let same = |a: &Path, b: &Path| {
        std::fs::canonicalize(a).is_ok_and(|a| std::fs::canonicalize(b).is_ok_and(|b| a == b))
    };
    if same(input, output) {
        return Err(CompileError::OutputIsInput { path: input.into() });
    }
    let mut options = options.clone();
    if options.leak_file.is_none() {
        options.leak_file = Some(output.with_extension("pts"));
    }
    let (level, stats) = match compile(input, &options) {
        Ok(done) => done,
        Err(e) => {
            remove_stale(output)?;
            return Err(e);
        }
    };
    if !stats.leak {
        if let Some(pts) = &options.leak_file {
            remove_stale(pts)?;
        }
    }
    lanthorn_level::save(&level, output)?;
    Ok(stats)
}

/// Removes a file an earlier run left, if there is one.
fn remove_stale(path: &Path) -> Result<(), CompileError> {
    match std::fs::remove_file(path) {
        Ok(()) => {
            log::info!("removed the stale {}", path.display());
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(CompileError::Io {
            path: path.into(),
            error,
        }),
    }
}
