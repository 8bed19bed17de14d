//! What users run: the demo window, headless capture and bench, level info.

pub mod bench;
pub mod capture;
pub mod compile;
pub mod demo;
pub mod fly;
pub mod info;
pub mod path;
pub mod terrain;
pub mod vis_check;
mod world;

pub use world::{load_world, World};

use std::path::{Path, PathBuf};

use crate::geom::CameraSpec;
use crate::level::Level;

/// Loads the level named on the command line (`builtin` when none).
pub fn load_level(path: Option<&Path>) -> anyhow::Result<(Level, PathBuf)> {
    let path = path
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("builtin"));
    let level = crate::load::load(&path)?;
    Ok((level, path))
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
