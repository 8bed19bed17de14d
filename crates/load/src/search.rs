//! Quake's search path, as Quake and quakespasm build it from `-basedir` and `-game`: the mod's
//! folder before `id1`, and inside each folder its archives, the highest-numbered first
//! (`pak1.pak` before `pak0.pak`, numbered from 0 until one is missing), before its loose
//! files. The first place that holds a name wins: a mod's files override id1's, a later pak
//! overrides an earlier one, and — Quake's own rule — a pak overrides a loose file beside it.

use std::path::{Path, PathBuf};

use lanthorn_import::pak::{Pak, PakError};

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
}

/// One place of the search path.
#[derive(Debug)]
enum Place {
    Pak(Pak),
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
    /// `basedir/id1`, and `basedir/GAME` in front of it.
    pub fn new(basedir: &Path, game: Option<&str>) -> Result<SearchPath, SearchError> {
        let mut places = Vec::new();
        for folder in game.into_iter().chain(["id1"]).map(|g| basedir.join(g)) {
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

    /// The places in lookup order, for messages.
    pub fn describe(&self) -> String {
        let names: Vec<String> = self
            .places
            .iter()
            .map(|p| match p {
                Place::Pak(pak) => pak.path.display().to_string(),
                Place::Folder(f) => format!("{}/", f.display()),
            })
            .collect();
        names.join(", ")
    }
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
