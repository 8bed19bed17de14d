//! Quake's PACK archives (`id1/pak0.pak`): a 12-byte header (`PACK`, the directory's offset and
//! length), the files' bytes, and a directory of 64-byte entries (a 56-byte NUL-padded name,
//! the file's offset and length, little-endian). Only the directory is read when an archive
//! is opened; a file's bytes are read when asked for. Every offset and length is checked
//! against the archive's size before anything is allocated or read.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 4] = b"PACK";
const HEADER: u64 = 12;
const ENTRY: u64 = 64;
const NAME: usize = 56;

/// Why an archive cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum PakError {
    /// The file could not be read.
    #[error("{path}: {error}")]
    Io {
        /// The archive.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The file is no PACK archive.
    #[error("{path}: not a Quake PACK archive (it does not start with \"PACK\")")]
    NotAPak {
        /// The file.
        path: PathBuf,
    },
    /// The header's directory lies outside the file or is not whole entries.
    #[error("{path}: the directory ({offset} + {length} bytes) {problem}")]
    Directory {
        /// The archive.
        path: PathBuf,
        /// Where the header says the directory starts.
        offset: i64,
        /// Its length the header gives.
        length: i64,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// The directory lists no file.
    #[error(
        "{path}: holds no files (an empty directory); a Quake game folder's paks hold its data"
    )]
    Empty {
        /// The archive.
        path: PathBuf,
    },
    /// A directory entry is broken.
    #[error("{path}: directory entry {index} ({name:?}) {problem}")]
    Entry {
        /// The archive.
        path: PathBuf,
        /// Which entry.
        index: usize,
        /// Its name as stored.
        name: String,
        /// What is wrong with it.
        problem: String,
    },
}

/// One file of an archive: where its bytes lie.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PakEntry {
    /// As stored, `/`-separated (Quake's names are lower case; lookups ignore case).
    pub name: String,
    /// Where its bytes start in the archive.
    pub offset: u64,
    /// How many bytes it has.
    pub length: u64,
}

/// An opened archive: its path and directory.
#[derive(Debug)]
pub struct Pak {
    /// The archive's file.
    pub path: PathBuf,
    /// Its files, in directory order.
    pub entries: Vec<PakEntry>,
}

impl Pak {
    /// Reads the directory of the archive at `path`.
    pub fn open(path: &Path) -> Result<Pak, PakError> {
        let io = |error| PakError::Io {
            path: path.into(),
            error,
        };
        let mut file = File::open(path).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        let mut header = [0u8; HEADER as usize];
        if size < HEADER {
            return Err(PakError::NotAPak { path: path.into() });
        }
        file.read_exact(&mut header).map_err(io)?;
        if &header[..4] != MAGIC {
            return Err(PakError::NotAPak { path: path.into() });
        }
        let word = |i: usize| i32::from_le_bytes(header[i..i + 4].try_into().unwrap()) as i64;
        let (offset, length) = (word(4), word(8));
        let directory = |problem| PakError::Directory {
            path: path.into(),
            offset,
            length,
            problem,
        };
        if offset < HEADER as i64 || length < 0 || (offset + length) as u64 > size {
            return Err(directory("lies outside the file"));
        }
        if length as u64 % ENTRY != 0 {
            return Err(directory("is not a whole number of 64-byte entries"));
        }
        if length == 0 {
            return Err(PakError::Empty { path: path.into() });
        }
        // Bounded by the file's size, checked above.
        let mut table = vec![0u8; length as usize];
        file.seek(SeekFrom::Start(offset as u64)).map_err(io)?;
        file.read_exact(&mut table).map_err(io)?;
        let entries = table
            .chunks_exact(ENTRY as usize)
            .enumerate()
            .map(|(index, e)| entry(path, index, e, size))
            .collect::<Result<_, _>>()?;
        Ok(Pak {
            path: path.into(),
            entries,
        })
    }

    /// The entry named `name` (case ignored); the last one when the directory names it twice,
    /// as Quake takes it.
    pub fn find(&self, name: &str) -> Option<&PakEntry> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.name.eq_ignore_ascii_case(name))
    }

    /// The bytes of `entry`.
    pub fn read(&self, entry: &PakEntry) -> Result<Vec<u8>, PakError> {
        let io = |error| PakError::Io {
            path: self.path.clone(),
            error,
        };
        let mut file = File::open(&self.path).map_err(io)?;
        file.seek(SeekFrom::Start(entry.offset)).map_err(io)?;
        // The length was checked against the file's size when the directory was read.
        let mut bytes = vec![0u8; entry.length as usize];
        file.read_exact(&mut bytes).map_err(io)?;
        Ok(bytes)
    }
}

/// One directory entry, checked: a NUL-terminated printable name, bytes inside the file.
fn entry(path: &Path, index: usize, e: &[u8], size: u64) -> Result<PakEntry, PakError> {
    let raw = &e[..NAME];
    let end = raw.iter().position(|&b| b == 0).unwrap_or(NAME);
    let name = String::from_utf8_lossy(&raw[..end]).into_owned();
    let problem = |problem: String| PakError::Entry {
        path: path.into(),
        index,
        name: name.clone(),
        problem,
    };
    if end == 0 || end == NAME || !raw[..end].iter().all(|b| b.is_ascii_graphic()) {
        return Err(problem(
            "has no name, an unterminated one, or one with spaces or control bytes".into(),
        ));
    }
    let word = |i: usize| i32::from_le_bytes(e[i..i + 4].try_into().unwrap()) as i64;
    let (offset, length) = (word(NAME), word(NAME + 4));
    if offset < 0 || length < 0 || (offset + length) as u64 > size {
        return Err(problem(format!(
            "points past the end of the file ({offset} + {length} bytes of {size})"
        )));
    }
    Ok(PakEntry {
        name,
        offset: offset as u64,
        length: length as u64,
    })
}

/// The bytes of an archive holding `files` (name, contents) in order: the writer the tests and
/// the tools use to build paks.
pub fn build(files: &[(&str, &[u8])]) -> Vec<u8> {
    let data: usize = files.iter().map(|(_, b)| b.len()).sum();
    let mut out = Vec::with_capacity(HEADER as usize + data + files.len() * ENTRY as usize);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&((HEADER as usize + data) as i32).to_le_bytes());
    out.extend_from_slice(&((files.len() as u64 * ENTRY) as i32).to_le_bytes());
    for (_, bytes) in files {
        out.extend_from_slice(bytes);
    }
    let mut offset = HEADER as usize;
    for (name, bytes) in files {
        assert!(
            name.len() < NAME,
            "pak entry names are under 56 bytes: {name}"
        );
        let mut field = [0u8; NAME];
        field[..name.len()].copy_from_slice(name.as_bytes());
        out.extend_from_slice(&field);
        out.extend_from_slice(&(offset as i32).to_le_bytes());
        out.extend_from_slice(&(bytes.len() as i32).to_le_bytes());
        offset += bytes.len();
    }
    out
}

#[cfg(test)]
#[path = "pak_tests.rs"]
mod tests;
