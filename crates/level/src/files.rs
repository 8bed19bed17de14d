//! Writing a file whole or not at all: the bytes go to a temporary sibling, are synced, and
//! the sibling is renamed over the target, so a failure never leaves half a file. Every
//! output of the program (levels, images, traces, paths, plots, point files) is written so.

use std::io::Write;
use std::path::{Path, PathBuf};

/// A file that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {error}", path.display())]
pub struct WriteError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub error: std::io::Error,
}

/// Writes `bytes` to `path` whole or not at all.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    replace_with(path, |tmp| {
        let mut f = std::fs::File::create(tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    })
}

/// Has `write` fill a temporary sibling of `path`, then renames it over `path`; on an error
/// the sibling is removed and `path` left as it was.
pub fn replace_with(
    path: &Path,
    write: impl FnOnce(&Path) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let result = write(&tmp).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(|error| WriteError {
        path: path.to_path_buf(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write that fails leaves the old file and no temporary behind; one that succeeds
    /// replaces it.
    #[test]
    fn a_failed_write_leaves_the_old_file() {
        let dir = std::env::temp_dir().join(format!("lanthorn-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.txt");
        write_atomically(&path, b"old").unwrap();
        let e = replace_with(&path, |tmp| {
            std::fs::write(tmp, b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(e.to_string().contains("out.txt") && e.to_string().contains("disk full"));
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "a temporary was left"
        );
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let missing = dir.join("no-such-folder").join("x.txt");
        assert!(write_atomically(&missing, b"x").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
