use std::path::{Path, PathBuf};

use crate::level::Level;

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(
        "{path}: unknown level type (expected .lvl, .map, .ron, .bsp, or builtin / builtin:maze / builtin:portals)"
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
        Some("builtin") => return Ok(crate::scenes::builtin::scene()),
        Some("builtin:portals") => return Ok(crate::scenes::builtin::portals_scene()),
        Some("builtin:maze") => {
            return Ok(crate::scenes::synthetic::maze(
                &crate::scenes::synthetic::MazeSpec {
                    nx: 16,
                    ny: 16,
                    ..Default::default()
                },
            ))
        }
        _ => {}
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("lvl") => crate::level::file::load_lvl(path)
            .map_err(|e| LoadError::Other(format!("{}: {e}", path.display()))),
        Some("map") | Some("ron") => compile_cached(path),
        Some("bsp") => crate::import::q1::load(path).map_err(|e| LoadError::Other(e.to_string())),
        _ => Err(LoadError::UnknownType { path: path.into() }),
    }
}

/// Compiles a `.map` or `.ron` source with the default options, keeping the result in a cache
/// (the system temp folder, keyed by path, size, modification time, file version and the
/// program's own timestamp) so a second load of an
/// unchanged source is a plain `.lvl` read.
fn compile_cached(path: &Path) -> Result<Level, LoadError> {
    use std::hash::{Hash, Hasher};
    let meta = std::fs::metadata(path).map_err(|source| LoadError::Io {
        path: path.into(),
        source,
    })?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.into())
        .hash(&mut h);
    meta.len().hash(&mut h);
    meta.modified().ok().hash(&mut h);
    crate::level::file::VERSION.hash(&mut h);
    // A rebuilt program may compile differently: its own timestamp is part of the key.
    std::env::current_exe()
        .and_then(std::fs::metadata)
        .and_then(|m| m.modified())
        .ok()
        .hash(&mut h);
    let dir = std::env::temp_dir().join("lanthorn-cache");
    let cached = dir.join(format!("{:016x}.lvl", h.finish()));
    if let Ok(level) = crate::level::file::load_lvl(&cached) {
        return Ok(level);
    }
    let (level, stats) = crate::compile::compile(path, &Default::default())
        .map_err(|e| LoadError::Other(e.to_string()))?;
    log::info!(
        "compiled {}: {} cells, {} portals in {:.2} s",
        path.display(),
        stats.cells,
        stats.portals,
        stats.seconds
    );
    if std::fs::create_dir_all(&dir).is_ok() {
        if let Err(e) = crate::level::file::save(&level, &cached) {
            log::warn!("could not cache the compiled level: {e}");
        }
    }
    Ok(level)
}
