//! What users run: the demo window, headless capture and bench, level info.

pub mod bench;
pub mod capture;
pub mod command;
pub mod compare;
pub mod compile;
pub mod demo;
pub mod fly;
pub mod info;
pub mod keys;
pub mod leak_walk;
pub mod overlays;
pub mod path;
pub mod plot;
pub mod progress;
pub mod session;
pub mod terrain;
pub mod trace;
pub mod views;
pub mod vis_check;
pub mod watch;
mod world;

pub use world::{animate, cull_view, load_world, World};

use std::path::{Path, PathBuf};

use crate::geom::CameraSpec;
use crate::level::Level;

/// The level a command opens when none is named: the embedded keep.
pub const DEFAULT_LEVEL: &str = "keep";

/// When the program started: `main` calls this first thing (else the first call is the start).
pub fn started() -> std::time::Instant {
    static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    *STARTED.get_or_init(std::time::Instant::now)
}

/// The Quake game a command shows levels as: where a level name that is no file is looked up
/// (`--basedir`, `--game`; none: only files and built-in levels) and the spawn rules.
#[derive(Debug, Default)]
pub struct Game {
    pub rules: crate::level::spawn::SpawnRules,
    pub search: Option<crate::load::search::SearchPath>,
    /// `--palette`: the palette a Quake map's textures are decoded with, before any found.
    pub palette: Option<[u8; 768]>,
}

/// Loads the level named on the command line (the keep when none): a file, a built-in level,
/// or a name on the game's search path (`e1m1`). Returns it with the name it goes by.
pub fn load_level(path: Option<&Path>, game: &Game) -> anyhow::Result<(Level, PathBuf)> {
    let path = path
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_LEVEL));
    if let (Some(search), Some(name)) = (&game.search, path.to_str()) {
        if !path.exists() && !crate::load::is_builtin(&path) {
            let (level, origin) =
                crate::load::load_from_game(name, search, game.rules, game.palette.as_ref())?;
            return Ok((level, PathBuf::from(origin)));
        }
    }
    let progress = progress::terminal();
    let level =
        crate::load::load_with_palette(&path, game.rules, game.palette.as_ref(), &progress)?;
    Ok((level, path))
}

/// `--cull pvs` and `pvs-cells` need the level's precomputed PVS (imported BSPs carry one).
pub fn check_cull(world: &World, cull: crate::vis::CullMode) -> anyhow::Result<()> {
    use crate::vis::CullMode;
    if matches!(cull, CullMode::Pvs | CullMode::PvsCells) && world.level.pvs.is_none() {
        anyhow::bail!(
            "{}: --cull {} needs a precomputed PVS, and this level has none (Quake .bsp files carry one); use --cull portal or frustum",
            world.name.display(),
            cull.name()
        );
    }
    Ok(())
}

/// The surface tests a culling method draws with: per-surface culling for the portal flow and
/// the frustum; GLQuake's for `pvs`; whole cells for `pvs-cells` and `none`.
pub fn surface_tests(cull: crate::vis::CullMode) -> crate::render::world::SurfaceTests {
    use crate::render::world::SurfaceTests;
    use crate::vis::CullMode;
    match cull {
        CullMode::Portal | CullMode::Frustum => SurfaceTests::ALL,
        CullMode::Pvs => SurfaceTests::GLQUAKE,
        CullMode::PvsCells | CullMode::None => SurfaceTests::NONE,
    }
}

/// The camera to start from: `--camera`, else the level's player start, else its centre.
pub fn start_camera(level: &Level, camera: Option<CameraSpec>) -> CameraSpec {
    camera.or_else(|| level.player_start()).unwrap_or_else(|| {
        let b = level.bounds();
        let c = if b.is_empty() {
            glam::Vec3::ZERO
        } else {
            b.center()
        };
        CameraSpec {
            position: c,
            yaw: 0.0,
            pitch: 0.0,
        }
    })
}

/// Refuses, before any rendering, an output file of `flag` not named `*.ext` or whose folder
/// does not exist.
pub fn check_output_path(path: &std::path::Path, ext: &str, flag: &str) -> anyhow::Result<()> {
    if path.extension().and_then(|e| e.to_str()) != Some(ext) {
        anyhow::bail!(
            "{}: {flag} writes .{ext}; name the file FILE.{ext}",
            path.display()
        );
    }
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(folder) = folder.filter(|f| !f.is_dir()) {
        anyhow::bail!(
            "{}: cannot write {flag}: the folder {} does not exist",
            path.display(),
            folder.display()
        );
    }
    Ok(())
}
