use std::path::{Path, PathBuf};

use super::Level;

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(
        "{path}: unknown level type (expected .lvl, .map, .ron, .bsp or the name \"builtin\")"
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
    if path.as_os_str() == "builtin" {
        return Ok(super::builtin::scene());
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("lvl") => super::file::load_lvl(path)
            .map_err(|e| LoadError::Other(format!("{}: {e}", path.display()))),
        Some("map") => Err(LoadError::NotYet {
            path: path.into(),
            kind: ".map",
        }),
        Some("ron") => Err(LoadError::NotYet {
            path: path.into(),
            kind: ".ron",
        }),
        Some("bsp") => Err(LoadError::NotYet {
            path: path.into(),
            kind: ".bsp",
        }),
        _ => Err(LoadError::UnknownType { path: path.into() }),
    }
}
