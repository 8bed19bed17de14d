//! Quake's search path, as Quake and quakespasm build it from `-basedir` and `-game`: the mod's
//! folder before `id1`, and inside each folder its archives, the highest-numbered first
//! (`pak1.pak` before `pak0.pak`, numbered from 0 until one is missing), before its loose
//! files. The first place that holds a name wins: a mod's files override id1's, a later pak
//! overrides an earlier one, and — Quake's own rule — a pak overrides a loose file beside it.
//!
//! Quake 3's `.pk3` archives join the same path as Quake 3 orders them: after a folder's paks,
//! every `*.pk3` in it, the last by name first (`pak6-patch085.pk3` overrides `pak0.pk3`). A
//! Quake 3 game folder has no `id1` beside it: with `--game baseoa` and no `id1`, the game's
//! folder is the whole path.

use std::path::{Path, PathBuf};

use lanthorn_import::pak::{Pak, PakError};
use lanthorn_import::pk3::{Pk3, Pk3Error};

/// Why a game's search path could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The game folder is not there.
    #[error("{folder}: no such game folder (--basedir names the folder that holds id1, Quake's install folder; --game a mod folder beside id1)")]
    NoFolder {
        /// The folder named.
        folder: PathBuf,
    },
    /// A pak file on the path is broken.
    #[error(transparent)]
    Pak(#[from] PakError),
    /// A pk3 file on the path is broken.
    #[error(transparent)]
    Pk3(#[from] Pk3Error),
}

/// One place of the search path.
#[derive(Debug)]
enum Place {
    Pak(Pak),
    Pk3(Pk3),
    Folder(PathBuf),
}

/// Where a name is looked up, in order.
#[derive(Debug)]
pub struct SearchPath {
    places: Vec<Place>,
}

/// A file found on the search path: its bytes and where they came from (`pak0.pak:NAME`).
pub struct Found {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Where they came from, for messages.
    pub origin: String,
}

impl SearchPath {
    /// `basedir/id1`, and `basedir/GAME` in front of it (without `id1`, a Quake 3 game's
    /// folder alone).
    pub fn new(basedir: &Path, game: Option<&str>) -> Result<SearchPath, SearchError> {
        let mut places = Vec::new();
        let id1 = basedir.join("id1");
        let quake3 = game.is_some() && !id1.is_dir();
        let folders = game.into_iter().map(|g| basedir.join(g));
        for folder in folders.chain((!quake3).then_some(id1)) {
            if !folder.is_dir() {
                return Err(SearchError::NoFolder { folder });
            }
            let mut paks = Vec::new();
            for n in 0.. {
                let path = folder.join(format!("pak{n}.pak"));
                if !path.is_file() {
                    break;
                }
                paks.push(Pak::open(&path)?);
            }
            places.extend(paks.into_iter().rev().map(Place::Pak));
            for path in pk3_files(&folder).into_iter().rev() {
                places.push(Place::Pk3(Pk3::open(&path)?));
            }
            places.push(Place::Folder(folder));
        }
        Ok(SearchPath { places })
    }

    /// `name` (`/`-separated, as Quake names files: `maps/e1m1.bsp`) from the first place that
    /// holds it; `None` when none does.
    pub fn read(&self, name: &str) -> Option<Result<Found, SearchError>> {
        self.places.iter().find_map(|place| match place {
            Place::Pak(pak) => pak.find(name).map(|e| {
                Ok(Found {
                    bytes: pak.read(e)?,
                    origin: format!("{}:{}", pak.path.display(), e.name),
                })
            }),
            Place::Pk3(pk3) => pk3.find(name).map(|e| {
                Ok(Found {
                    bytes: pk3.read(e)?,
                    origin: format!("{}:{}", pk3.path.display(), e.name),
                })
            }),
            Place::Folder(folder) => {
                let path = folder.join(name);
                path.is_file().then(|| {
                    std::fs::read(&path)
                        .map(|bytes| Found {
                            bytes,
                            origin: path.display().to_string(),
                        })
                        .map_err(|error| SearchError::Pak(PakError::Io { path, error }))
                })
            }
        })
    }

    /// The names of the files in `folder` whose names end in `ext` (`scripts`, `.shader`),
    /// from every place, each once, sorted.
    pub fn list(&self, folder: &str, ext: &str) -> Vec<String> {
        let prefix = format!("{}/", folder.trim_end_matches('/'));
        let wanted = |n: &str| {
            n.len() > prefix.len()
                && n[..prefix.len()].eq_ignore_ascii_case(&prefix)
                && n.to_ascii_lowercase().ends_with(&ext.to_ascii_lowercase())
        };
        let mut names: Vec<String> = Vec::new();
        for place in &self.places {
            match place {
                Place::Pak(pak) => names.extend(pak.entries.iter().map(|e| e.name.clone())),
                Place::Pk3(pk3) => names.extend(pk3.entries.iter().map(|e| e.name.clone())),
                Place::Folder(f) => {
                    let Ok(dir) = std::fs::read_dir(f.join(folder)) else {
                        continue;
                    };
                    let files = dir.flatten().filter(|e| e.path().is_file());
                    names.extend(
                        files.filter_map(|e| Some(format!("{prefix}{}", e.file_name().to_str()?))),
                    );
                }
            }
        }
        names.retain(|n| wanted(n));
        names.sort();
        names.dedup();
        names
    }

    /// The places in lookup order, for messages.
    pub fn describe(&self) -> String {
        let names: Vec<String> = self
            .places
            .iter()
            .map(|p| match p {
                Place::Pak(pak) => pak.path.display().to_string(),
                Place::Pk3(pk3) => pk3.path.display().to_string(),
                Place::Folder(f) => format!("{}/", f.display()),
            })
            .collect();
        names.join(", ")
    }
}

/// The `*.pk3` files of `folder` in Quake 3's order, by name ignoring case (none when it
/// cannot be listed).
fn pk3_files(folder: &Path) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = dir
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pk3")))
        .collect();
    files.sort_by_key(|p| p.file_name().map(|n| n.to_ascii_lowercase()));
    files
}

/// The file a level name means on the search path: `e1m1` is `maps/e1m1.bsp`; a name with a
/// folder or an extension is taken as it is.
pub fn map_file(name: &str) -> String {
    if name.contains('/') || name.contains('.') {
        name.to_string()
    } else {
        format!("maps/{name}.bsp")
    }
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;

/// Quake 3's importer reads textures and shader scripts through the search path; a file that
/// cannot be read counts as missing (the importer reports what it misses).
impl lanthorn_import::q3::GameFiles for SearchPath {
    fn read(&self, name: &str) -> Option<Vec<u8>> {
        SearchPath::read(self, name)?.ok().map(|f| f.bytes)
    }
    fn list(&self, folder: &str, ext: &str) -> Vec<String> {
        SearchPath::list(self, folder, ext)
    }
}
