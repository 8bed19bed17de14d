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

/// Why a source did not compile; each names the file and what to do.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// A file could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The `.map` file is wrong at a line.
    #[error("{path}:{}: {}", .error.line, .error.msg)]
    Map {
        /// The map.
        path: PathBuf,
        /// The line and what is wrong there.
        error: MapError,
    },
    /// The scene file is wrong.
    #[error("{path}: {error}")]
    Scene {
        /// The scene.
        path: PathBuf,
        /// Where and what.
        error: SceneError,
    },
    /// A source with nothing to build: no entity, no world brush, or no open space enclosed.
    #[error("{path}: {why}, so no level was written")]
    Empty {
        /// The source.
        path: PathBuf,
        /// What it lacks.
        why: &'static str,
    },
    /// The output would overwrite the source.
    #[error("{path}: the output is the source itself; give the level another name (-o LEVEL.lvl)")]
    OutputIsInput {
        /// The path given for both.
        path: PathBuf,
    },
    /// Not a source the compiler reads.
    #[error("{path}: unsupported source type (expected .map or .ron)")]
    Unsupported {
        /// The file.
        path: PathBuf,
    },
    /// An entity reaches the void (`line`: the entity's in the `.map`, for the editor's
    /// select-by-line).
    #[error(
        "{path}:{line}: leak: entity {entity} {classname} at ({:.0} {:.0} {:.0}) can reach the void, \
         so no level was written; {}; {crossings}. Seal the gap the path runs through (or compile \
         with --allow-leak to write the level anyway)",
        position[0], position[1], position[2], pointfile_text(pointfile.as_deref())
    )]
    Leak {
        /// The map.
        path: PathBuf,
        /// The entity's line in it.
        line: u32,
        /// The entity's index.
        entity: u32,
        /// Its classname.
        classname: String,
        /// Where it is.
        position: [f32; 3],
        /// The point file written for the editor, if any.
        pointfile: Option<PathBuf>,
        /// The brushes on the path that do not seal, and why (or that none does).
        crossings: Box<str>,
        /// What the compile did up to the leak.
        stats: Box<CompileStats>,
    },
    /// Writing the level.
    #[error(transparent)]
    Save(#[from] LvlError),
    /// Writing the point file.
    #[error(transparent)]
    Write(#[from] lanthorn_level::files::WriteError),
}
