//! Where a scene's files are read from: a folder on disk (a `.ron` file's own folder), or a
//! table of files compiled into the program (the built-in levels and their textures), so the
//! binary runs from any folder. Names are relative to the scene file, `/`-separated, as the
//! scene writes them (`../textures/brick.png`).

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};

/// One embedded file: its path under `assets/` (`levels/builtin.ron`) and its bytes.
pub type EmbeddedFile = (&'static str, &'static [u8]);

/// The files a scene may name.
#[derive(Clone, Debug)]
pub enum SceneFiles {
    /// The scene file's folder on disk.
    Dir(PathBuf),
    /// Files compiled into the program (`include_bytes!`), by path under `assets/`; `dir` is
    /// the scene file's folder in that table (`levels`).
    Embedded {
        /// The table.
        files: &'static [EmbeddedFile],
        /// The scene file's folder in it.
        dir: &'static str,
    },
}

impl SceneFiles {
    /// The folder of the scene file at `path`.
    pub fn beside(path: &Path) -> SceneFiles {
        SceneFiles::Dir(path.parent().map_or_else(PathBuf::new, Path::to_path_buf))
    }

    /// Where `name` (relative to the scene file) is, as an error message shows it.
    pub fn path(&self, name: &str) -> PathBuf {
        match self {
            SceneFiles::Dir(dir) => dir.join(name),
            SceneFiles::Embedded { dir, .. } => {
                PathBuf::from(format!("<built-in>/{}", embedded_key(dir, name)))
            }
        }
    }

    /// The bytes of `name`; a missing file is `NotFound`, as on disk.
    pub fn read(&self, name: &str) -> std::io::Result<Cow<'static, [u8]>> {
        match self {
            SceneFiles::Dir(dir) => std::fs::read(dir.join(name)).map(Cow::Owned),
            SceneFiles::Embedded { files, dir } => {
                let key = embedded_key(dir, name);
                files
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, bytes)| Cow::Borrowed(*bytes))
                    .ok_or_else(|| {
                        std::io::Error::new(
                            std::io::ErrorKind::NotFound,
                            "not among the files built into the program",
                        )
                    })
            }
        }
    }
}

/// `name` relative to the table folder `dir`, with `.` and `..` resolved (`levels` +
/// `../textures/a.png` → `textures/a.png`).
fn embedded_key(dir: &str, name: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in Path::new(dir).join(name).components() {
        match c {
            Component::ParentDir => {
                parts.pop();
            }
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    static TABLE: &[EmbeddedFile] = &[("levels/a.ron", b"scene"), ("textures/brick.png", b"png")];

    #[test]
    fn embedded_names_resolve_relative_to_the_scene_folder() {
        let files = SceneFiles::Embedded {
            files: TABLE,
            dir: "levels",
        };
        assert_eq!(&*files.read("a.ron").unwrap(), b"scene");
        assert_eq!(&*files.read("../textures/brick.png").unwrap(), b"png");
        assert_eq!(&*files.read("./../textures/brick.png").unwrap(), b"png");
        let e = files.read("../textures/stone.png").unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
        assert_eq!(
            files.path("../textures/stone.png"),
            PathBuf::from("<built-in>/textures/stone.png")
        );
    }

    #[test]
    fn a_folder_reads_from_disk() {
        let dir = std::env::temp_dir().join(format!("lanthorn-files-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("levels")).unwrap();
        std::fs::write(dir.join("t.png"), b"bytes").unwrap();
        let files = SceneFiles::beside(&dir.join("levels/x.ron"));
        assert_eq!(&*files.read("../t.png").unwrap(), b"bytes");
        assert_eq!(
            files.read("nope.png").unwrap_err().kind(),
            std::io::ErrorKind::NotFound
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
