//! The one error type of the compilers. Each message names the file (and the line, operation
//! or entity) and what to do, and says its cause's text itself: no variant also hands that
//! cause out as `source()`, so a printed chain says every text once.

use std::path::PathBuf;

use super::stats::CompileStats;
use super::{MapError, SceneError};
use crate::level::LvlError;

#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path}:{}: {}", .error.line, .error.msg)]
    Map { path: PathBuf, error: MapError },
    #[error("{path}: {error}")]
    Scene { path: PathBuf, error: SceneError },
    /// A source with nothing to build: no entity, no world brush, or no open space enclosed.
    #[error("{path}: {why}, so no level was written")]
    Empty { path: PathBuf, why: &'static str },
    #[error("{path}: unsupported source type (expected .map or .ron)")]
    Unsupported { path: PathBuf },
    #[error(
        "{path}: leak: entity {classname} at ({:.0} {:.0} {:.0}) can reach the void, so no level \
         was written; the path from it to the void is in {} (seal the gap it runs through)",
        position[0], position[1], position[2], pointfile.display()
    )]
    Leak {
        path: PathBuf,
        classname: String,
        position: [f64; 3],
        pointfile: PathBuf,
        stats: Box<CompileStats>,
    },
    /// Writing the point file or the level.
    #[error(transparent)]
    Save(#[from] LvlError),
}
