//! Quake 3's `.pk3` archives (OpenArena's `baseoa/pak0.pk3`): zip files whose entries are stored
//! or deflated. Opening one reads its end record and central directory only; an entry's bytes
//! are read, inflated and checked against the directory's CRC-32 when asked for. Every offset
//! and size is checked against the archive's size before anything is allocated or read, and
//! inflating stops at the size the directory declares. ZIP64, encrypted entries and methods
//! other than store and deflate are refused with an error naming the archive and entry.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The end of central directory record: its signature and fixed size.
const END_SIGNATURE: u32 = 0x0605_4b50;
const END: u64 = 22;
/// Central directory headers and local headers: signatures and fixed sizes.
const CENTRAL_SIGNATURE: u32 = 0x0201_4b50;
const CENTRAL: usize = 46;
const LOCAL_SIGNATURE: u32 = 0x0403_4b50;
const LOCAL: usize = 30;
/// The longest comment an end record may carry, which bounds the search for it.
const MAX_COMMENT: u64 = 0xFFFF;
const STORED: u16 = 0;
const DEFLATED: u16 = 8;

/// Why a pk3 archive or one of its entries cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum Pk3Error {
    /// The file could not be read.
    #[error("{path}: {error}")]
    Io {
        /// The archive.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The archive as a whole is broken or of a kind not read.
    #[error("{path}: {problem}")]
    Archive {
        /// The archive.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// One entry is broken or of a kind not read.
    #[error("{path}: entry {index} ({name:?}) {problem}")]
    Entry {
        /// The archive.
        path: PathBuf,
        /// Which entry of the central directory.
        index: usize,
        /// Its name as stored.
        name: String,
        /// What is wrong with it.
        problem: String,
    },
}

/// One file of an archive, as the central directory lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pk3Entry {
    /// As stored, `/`-separated (lookups ignore case, as Quake 3's do).
    pub name: String,
    /// Its place in the central directory, for messages.
    pub index: usize,
    /// 0 stored, 8 deflated.
    method: u16,
    /// Bytes in the archive.
    compressed: u64,
    /// Bytes once inflated.
    pub size: u64,
    /// CRC-32 of the inflated bytes.
    crc: u32,
    /// Where its local header starts.
    local: u64,
}

/// An opened archive: its path, size and central directory.
#[derive(Debug)]
pub struct Pk3 {
    /// The archive's file.
    pub path: PathBuf,
    /// Its entries in directory order, folders left out.
    pub entries: Vec<Pk3Entry>,
    size: u64,
}

fn u16_at(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[i], b[i + 1]])
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

impl Pk3 {
    /// Reads the central directory of the archive at `path`.
    pub fn open(path: &Path) -> Result<Pk3, Pk3Error> {
        let io = |error| Pk3Error::Io {
            path: path.into(),
            error,
        };
        let archive = |problem: &str| Pk3Error::Archive {
            path: path.into(),
            problem: problem.into(),
        };
        let mut file = File::open(path).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        if size < END {
            return Err(archive("not a zip archive (too short for its end record)"));
        }
        // The end record and the comment after it: at most 22 + 65,535 bytes from the end.
        let tail_len = size.min(END + MAX_COMMENT);
        let mut tail = vec![0u8; tail_len as usize];
        file.seek(SeekFrom::Start(size - tail_len)).map_err(io)?;
        file.read_exact(&mut tail).map_err(io)?;
        let end = (0..=tail.len() - END as usize)
            .rev()
            .find(|&i| {
                u32_at(&tail, i) == END_SIGNATURE
                    && i + END as usize + u16_at(&tail, i + 20) as usize == tail.len()
            })
            .ok_or_else(|| archive("not a zip archive (no end of central directory record)"))?;
        let rec = &tail[end..];
        let (count, dir_size, dir_offset) =
            (u16_at(rec, 10), u32_at(rec, 12), u32_at(rec, 16) as u64);
        if count == 0xFFFF || dir_offset == 0xFFFF_FFFF || u32_at(rec, 12) == 0xFFFF_FFFF {
            return Err(archive(
                "is a ZIP64 archive, which is not read; repack it as a plain zip",
            ));
        }
        if u16_at(rec, 4) != 0 || u16_at(rec, 6) != 0 || u16_at(rec, 8) != count {
            return Err(archive("spans several disks, which is not read"));
        }
        let dir_end = dir_offset + dir_size as u64;
        if dir_end > size - tail_len + end as u64 {
            return Err(archive(&format!(
                "its central directory ({dir_offset} + {dir_size} bytes) lies past its end record"
            )));
        }
        // Bounded by the file's size, checked above.
        let mut dir = vec![0u8; dir_size as usize];
        file.seek(SeekFrom::Start(dir_offset)).map_err(io)?;
        file.read_exact(&mut dir).map_err(io)?;
        let entries = central_entries(path, &dir, count as usize, dir_offset)?;
        Ok(Pk3 {
            path: path.into(),
            entries,
            size,
        })
    }

    /// The entry named `name` (case ignored); the last one when the directory names it twice.
    pub fn find(&self, name: &str) -> Option<&Pk3Entry> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.name.eq_ignore_ascii_case(name))
    }

    /// The bytes of `entry`, inflated and checked against its CRC-32.
    pub fn read(&self, entry: &Pk3Entry) -> Result<Vec<u8>, Pk3Error> {
        let io = |error| Pk3Error::Io {
            path: self.path.clone(),
            error,
        };
        let problem = |problem: String| Pk3Error::Entry {
            path: self.path.clone(),
            index: entry.index,
            name: entry.name.clone(),
            problem,
        };
        let mut file = File::open(&self.path).map_err(io)?;
        let mut local = [0u8; LOCAL];
        if entry.local + LOCAL as u64 > self.size {
            return Err(problem(
                "has its local header past the end of the archive".into(),
            ));
        }
        file.seek(SeekFrom::Start(entry.local)).map_err(io)?;
        file.read_exact(&mut local).map_err(io)?;
        if u32_at(&local, 0) != LOCAL_SIGNATURE {
            return Err(problem(
                "has no local header where the directory points".into(),
            ));
        }
        let data =
            entry.local + LOCAL as u64 + u16_at(&local, 26) as u64 + u16_at(&local, 28) as u64;
        if data + entry.compressed > self.size {
            return Err(problem(format!(
                "has its {} bytes past the end of the archive",
                entry.compressed
            )));
        }
        // Bounded by the file's size, checked above.
        let mut stored = vec![0u8; entry.compressed as usize];
        file.seek(SeekFrom::Start(data)).map_err(io)?;
        file.read_exact(&mut stored).map_err(io)?;
        let bytes = match entry.method {
            DEFLATED => inflate(&stored, entry.size).map_err(problem)?,
            _ => stored,
        };
        if crc32fast::hash(&bytes) != entry.crc {
            return Err(problem(
                "does not match its CRC-32 (the archive is damaged)".into(),
            ));
        }
        Ok(bytes)
    }
}

/// Inflates a deflated entry that the directory says is `size` bytes, stopping past that.
fn inflate(stored: &[u8], size: u64) -> Result<Vec<u8>, String> {
    let limit = usize::try_from(size).map_err(|_| "is too large to read".to_string())?;
    let bytes = miniz_oxide::inflate::decompress_to_vec_with_limit(stored, limit)
        .map_err(|e| format!("does not inflate ({:?})", e.status))?;
    if bytes.len() as u64 != size {
        return Err(format!(
            "inflates to {} bytes where the directory says {size}",
            bytes.len()
        ));
    }
    Ok(bytes)
}

/// The `count` central directory headers in `dir` (which starts at `dir_offset` in the
/// archive), checked; folders are left out.
fn central_entries(
    path: &Path,
    dir: &[u8],
    count: usize,
    dir_offset: u64,
) -> Result<Vec<Pk3Entry>, Pk3Error> {
    let mut entries = Vec::new();
    let mut at = 0usize;
    for index in 0..count {
        let problem = |name: &str, problem: &str| Pk3Error::Entry {
            path: path.into(),
            index,
            name: name.into(),
            problem: problem.into(),
        };
        if at + CENTRAL > dir.len() || u32_at(dir, at) != CENTRAL_SIGNATURE {
            return Err(problem(
                "",
                "is missing from the central directory (truncated)",
            ));
        }
        let h = &dir[at..at + CENTRAL];
        let (name_len, extra_len, comment_len) = (
            u16_at(h, 28) as usize,
            u16_at(h, 30) as usize,
            u16_at(h, 32) as usize,
        );
        let next = at + CENTRAL + name_len + extra_len + comment_len;
        if next > dir.len() {
            return Err(problem("", "runs past the central directory (truncated)"));
        }
        let raw = &dir[at + CENTRAL..at + CENTRAL + name_len];
        let name = String::from_utf8_lossy(raw).replace('\\', "/");
        at = next;
        if name.ends_with('/') {
            continue;
        }
        let entry = Pk3Entry {
            name,
            index,
            method: u16_at(h, 10),
            compressed: u32_at(h, 20) as u64,
            size: u32_at(h, 24) as u64,
            crc: u32_at(h, 16),
            local: u32_at(h, 42) as u64,
        };
        let fail = |what: &str| Err(problem(&entry.name, what));
        if name_len == 0 || raw.iter().any(|&b| b < 0x20) {
            return fail("has no name or one with control bytes");
        }
        if u16_at(h, 8) & 1 != 0 {
            return fail("is encrypted, which is not read");
        }
        if entry.method != STORED && entry.method != DEFLATED {
            return fail(
                "is compressed by a method other than store or deflate, which is not read",
            );
        }
        if entry.method == STORED && entry.compressed != entry.size {
            return fail("is stored but its two sizes differ");
        }
        if entry.local + LOCAL as u64 + entry.compressed > dir_offset {
            return fail("has its bytes past the start of the central directory");
        }
        entries.push(entry);
    }
    Ok(entries)
}

/// The bytes of a zip archive holding `files` (name, contents, deflate or store), in order:
/// the writer the tests use to build pk3 files.
pub fn build(files: &[(&str, &[u8], bool)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, bytes, deflate) in files {
        let stored = match deflate {
            true => miniz_oxide::deflate::compress_to_vec(bytes, 6),
            false => bytes.to_vec(),
        };
        let method = if *deflate { DEFLATED } else { STORED };
        let crc = crc32fast::hash(bytes);
        let local = out.len() as u32;
        let sizes = |h: &mut Vec<u8>| {
            h.extend_from_slice(&crc.to_le_bytes());
            h.extend_from_slice(&(stored.len() as u32).to_le_bytes());
            h.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
        };
        out.extend_from_slice(&LOCAL_SIGNATURE.to_le_bytes());
        out.extend_from_slice(&[20, 0, 0, 0]);
        out.extend_from_slice(&method.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        sizes(&mut out);
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&stored);
        central.extend_from_slice(&CENTRAL_SIGNATURE.to_le_bytes());
        central.extend_from_slice(&[20, 0, 20, 0, 0, 0]);
        central.extend_from_slice(&method.to_le_bytes());
        central.extend_from_slice(&[0; 4]);
        sizes(&mut central);
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&local.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let (dir_offset, dir_size) = (out.len() as u32, central.len() as u32);
    out.extend_from_slice(&central);
    out.extend_from_slice(&END_SIGNATURE.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&dir_size.to_le_bytes());
    out.extend_from_slice(&dir_offset.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

#[cfg(test)]
#[path = "pk3_tests.rs"]
mod tests;
