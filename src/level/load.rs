use std::path::{Path, PathBuf};

use super::Level;

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(
        "{path}: unknown level type (expected .lvl, .map, .ron, .bsp, or builtin / builtin:maze)"
    )]
    UnknownType { path: PathBuf },
    #[error("{path}: loading {kind} levels is not implemented yet")]
    NotYet { path: PathBuf, kind: &'static str },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Other(String),
}

/// The one entry point that loads any level; dispatches on the file type. `builtin` (or no
/// path) is the built-in test scene.
pub fn load(path: &Path) -> Result<Level, LoadError> {
    match path.to_str() {
        Some("builtin") => return Ok(super::builtin::scene()),
        Some("builtin:maze") => {
            return Ok(super::synthetic::maze(&super::synthetic::MazeSpec {
                nx: 16,
                ny: 16,
                ..Default::default()
            }))
        }
        _ => {}
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("lvl") => Err(LoadError::NotYet {
            path: path.into(),
            kind: ".lvl",
        }),
        Some("map") => Err(LoadError::NotYet {
            path: path.into(),
            kind: ".map",
        }),
        Some("ron") => Err(LoadError::NotYet {
            path: path.into(),
            kind: ".ron",
        }),
        Some("bsp") => crate::import::q1::load(path).map_err(|e| LoadError::Other(e.to_string())),
        _ => Err(LoadError::UnknownType { path: path.into() }),
    }
}
