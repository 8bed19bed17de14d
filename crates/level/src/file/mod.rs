//! The `.lvl` file: a versioned little-endian binary of the whole `Level`.
//!
//! Layout: magic `LNTHLVL\0`, `u32` version, `u64` payload length, then the sections in the
//! order of `Level`'s fields. The last, the leak path, is optional: a level without one ends
//! after the PVS, as files written before it existed do, so they still load. Every vector is a `u32` count followed by its elements; every
//! `f32` is stored by its bits, so save → load → save is byte-identical. Loading checks the
//! magic, the version, every length against the bytes left, and every index (see
//! [`validate`]); a bad file gives an [`LvlError`], never a panic.

use std::path::{Path, PathBuf};

mod codec;
mod sections;

use self::codec::{Res, R, W};
use self::sections::{
    read_bsp, read_cells, read_entities, read_leak, read_light_grid, read_lightmaps,
    read_materials, read_objects, read_portals, read_pvs, read_sky, read_surfaces, read_terrain,
    write_bsp, write_cells, write_entities, write_leak, write_light_grid, write_lightmaps,
    write_materials, write_objects, write_portals, write_pvs, write_sky, write_surfaces,
    write_terrain,
};
pub use super::validate::validate;
use super::Level;

/// The first bytes of every `.lvl` file.
pub const MAGIC: &[u8; 8] = b"LNTHLVL\0";
/// Version 2 added the light style of each surface's lightmap slots and the atlas's layers
/// (one per slot); version 1 files still load (every lit surface style 0, one layer). Version
/// 4 added the light grid (a section before the leak); older files load without one. Version 5
/// added each material's normal and specular maps; older files load without them.
pub const VERSION: u32 = 5;
/// The oldest version this build reads.
pub const OLDEST_VERSION: u32 = 1;

/// Why a `.lvl` file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum LvlError {
    /// The file could not be read.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A content error of the file at `path` (what `from_bytes` found).
    #[error("{path}: {error}")]
    InFile {
        /// The file.
        path: PathBuf,
        /// What is wrong in it.
        error: Box<LvlError>,
    },
    /// It does not start with [`MAGIC`].
    #[error("not a Lanthorn level: bad magic (expected \"LNTHLVL\")")]
    BadMagic,
    /// A version this build does not read.
    #[error("unsupported .lvl version {found} (this build reads versions 1 to {expected}); recompile the level")]
    Version {
        /// The file's version.
        found: u32,
        /// The newest this build reads.
        expected: u32,
    },
    /// The file ends inside a section.
    #[error("truncated .lvl: {what} at byte {offset} needs {needed} bytes, only {left} left")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Where.
        offset: usize,
        /// The bytes it needs.
        needed: usize,
        /// The bytes the file has left.
        left: usize,
    },
    /// The bytes read do not make a valid level.
    #[error("invalid .lvl: {0}")]
    Invalid(String),
}

// ---------------------------------------------------------------- writing

/// The file image of a level (header included).
pub fn to_bytes(level: &Level) -> Vec<u8> {
    to_bytes_of_version(level, VERSION)
}

/// The file image in an older `version` (tests check that old files still load).
fn to_bytes_of_version(level: &Level, version: u32) -> Vec<u8> {
    with_header(&write_sections(level, &mut Vec::new(), version).0, version)
}

/// A section's name and its bytes in the file.
pub type SectionSpan = (&'static str, std::ops::Range<usize>);

/// Where each section lies in `to_bytes(level)`: its name and byte range (for tests that
/// damage every section of a file).
pub fn section_spans(level: &Level) -> Vec<SectionSpan> {
    let mut spans = Vec::new();
    write_sections(level, &mut spans, VERSION);
    spans
        .iter_mut()
        .for_each(|(_, r)| *r = r.start + 20..r.end + 20);
    spans
}

/// The payload: the sections in the order of `Level`'s fields, each span recorded.
fn write_sections(level: &Level, spans: &mut Vec<SectionSpan>, version: u32) -> W {
    let mut w = W(Vec::with_capacity(1 << 16));
    type Writer<'a> = &'a dyn Fn(&mut W);
    let sections: [(&'static str, Writer); 13] = [
        ("cells", &|w| write_cells(w, &level.cells)),
        ("portals", &|w| write_portals(w, &level.portals)),
        ("surfaces", &|w| write_surfaces(w, &level.surfaces, version)),
        ("bsp", &|w| write_bsp(w, &level.bsp)),
        ("materials", &|w| {
            write_materials(w, &level.materials, version)
        }),
        ("lightmaps", &|w| write_lightmaps(w, &level.lightmaps)),
        ("objects", &|w| write_objects(w, &level.objects, version)),
        ("entities", &|w| write_entities(w, &level.entities)),
        ("sky", &|w| write_sky(w, level.sky.as_ref())),
        ("terrain", &|w| write_terrain(w, level.terrain.as_ref())),
        ("pvs", &|w| write_pvs(w, level.pvs.as_ref())),
        ("light grid", &|w| {
            write_light_grid(w, level.light_grid.as_ref(), version)
        }),
        ("leak", &|w| write_leak(w, level.leak.as_ref())),
    ];
    for (name, write) in sections {
        let start = w.0.len();
        write(&mut w);
        spans.push((name, start..w.0.len()));
    }
    w
}

/// Magic, version and payload length, then the payload.
fn with_header(payload: &[u8], version: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 20);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// Writes the level to `path` through a temporary file in the same folder and a rename, so a
/// failed save never leaves a half-written level behind.
pub fn save(level: &Level, path: &Path) -> Result<(), LvlError> {
    if let Err(e) = validate(level) {
        return Err(LvlError::Invalid(format!(
            "refusing to save an inconsistent level: {e}"
        )));
    }
    let bytes = to_bytes(level);
    crate::files::write_atomically(path, &bytes).map_err(|e| LvlError::Io {
        path: e.path,
        error: e.error,
    })
}

/// Reads and checks a `.lvl` file.
pub fn load_lvl(path: &Path) -> Result<Level, LvlError> {
    let bytes = std::fs::read(path).map_err(|error| LvlError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    from_bytes(&bytes).map_err(|error| LvlError::InFile {
        path: path.to_path_buf(),
        error: Box::new(error),
    })
}

// ---------------------------------------------------------------- reading

/// Parses and validates a file image.
pub fn from_bytes(bytes: &[u8]) -> Result<Level, LvlError> {
    let mut r = read_header(bytes)?;
    // Sections in file order, which is the order of `Level`'s fields.
    let cells = read_cells(&mut r)?;
    let portals = read_portals(&mut r)?;
    let surfaces = read_surfaces(&mut r)?;
    let bsp = read_bsp(&mut r)?;
    let materials = read_materials(&mut r)?;
    let lightmaps = read_lightmaps(&mut r)?;
    let objects = read_objects(&mut r)?;
    let entities = read_entities(&mut r)?;
    let sky = read_sky(&mut r)?;
    let terrain = read_terrain(&mut r)?;
    let pvs = read_pvs(&mut r)?;
    let light_grid = read_light_grid(&mut r)?;
    let leak = read_leak(&mut r)?;
    if r.pos != bytes.len() {
        return Err(LvlError::Invalid(format!(
            "{} bytes left over after the last section",
            bytes.len() - r.pos
        )));
    }
    let level = Level {
        cells,
        portals,
        surfaces,
        bsp,
        materials,
        lightmaps,
        objects,
        entities,
        sky,
        terrain,
        pvs,
        light_grid,
        leak,
    };
    validate(&level).map_err(LvlError::Invalid)?;
    Ok(level)
}

/// Checks the magic, the version and that the payload length matches the bytes that follow;
/// returns a reader at the first section.
fn read_header(bytes: &[u8]) -> Res<R<'_>> {
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err(LvlError::BadMagic);
    }
    let mut r = R {
        b: bytes,
        pos: 8,
        version: 0,
    };
    let version = r.u32("version")?;
    r.version = version;
    if !(OLDEST_VERSION..=VERSION).contains(&version) {
        return Err(LvlError::Version {
            found: version,
            expected: VERSION,
        });
    }
    let len = r.u64("payload length")?;
    let left = (bytes.len() - r.pos) as u64;
    if len > left {
        return Err(LvlError::Truncated {
            what: "payload",
            offset: r.pos,
            needed: len as usize,
            left: left as usize,
        });
    }
    if len < left {
        return Err(LvlError::Invalid(format!(
            "{} bytes after the end of the level",
            left - len
        )));
    }
    Ok(r)
}

#[cfg(test)]
mod tests;
