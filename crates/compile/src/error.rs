//! The one error type of the compilers. Each message names the file (and the line, operation
//! or entity) and what to do, and says its cause's text itself: no variant also hands that
//! cause out as `source()`, so a printed chain says every text once.

use std::path::PathBuf;

use super::stats::CompileStats;
use super::{MapError, SceneError};
use lanthorn_level::LvlError;

fn pointfile_text(pointfile: Option<&std::path::Path>) -> String {
    match pointfile {
        Some(f) => format!(
            "the path from it to the void is in {} (a point every 2 units)",
            f.display()
        ),
        None => "no point file was written".into(),
    }
}

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
    #[error("{path}: the output is the source itself; give the level another name (-o LEVEL.lvl)")]
    OutputIsInput { path: PathBuf },
    #[error("{path}: unsupported source type (expected .map or .ron)")]
    Unsupported { path: PathBuf },
    /// An entity reaches the void (`line`: the entity's in the `.map`, for the editor's
    /// select-by-line).
    #[error(
        "{path}:{line}: leak: entity {entity} {classname} at ({:.0} {:.0} {:.0}) can reach the void, \
         so no level was written; {}; {crossings}. Seal the gap the path runs through (or compile \
         with --allow-leak to write the level anyway)",
        position[0], position[1], position[2], pointfile_text(pointfile.as_deref())
    )]
    Leak {
        path: PathBuf,
        line: u32,
        entity: u32,
        classname: String,
        position: [f32; 3],
        pointfile: Option<PathBuf>,
        /// The brushes on the path that do not seal, and why (or that none does).
        crossings: Box<str>,
        stats: Box<CompileStats>,
    },
    /// Writing the level.
    #[error(transparent)]
    Save(#[from] LvlError),
    /// Writing the point file.
    #[error(transparent)]
    Write(#[from] lanthorn_level::files::WriteError),
}
