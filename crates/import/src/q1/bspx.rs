//! BSPX: the lump directory ericw-tools and other compilers append after a BSP's own lumps
//! (4-byte aligned after the last of them): "BSPX", a count, then per lump a 24-byte
//! NUL-padded name, an offset and a length. It carries coloured light (`RGBLIGHTING`), a
//! face's own lightmap scale (`LMSHIFT`, `DECOUPLED_LM`), a light grid for objects
//! (`LIGHTGRID_OCTREE`) and more; a reader takes the lumps it knows and skips the rest.

use super::lumps::{i32_at, HEADER_SIZE, LUMP_NAMES};
use super::Q1Error;

/// One BSPX lump: its name and its bytes in the file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BspxLump<'a> {
    pub name: &'a str,
    pub data: &'a [u8],
}

/// Bytes a directory entry takes.
const ENTRY: usize = 24 + 4 + 4;

/// The BSPX lumps of `bytes` (a BSP whose header has been checked), none when the file has no
/// directory after its lumps. A directory that is there but wrong (an entry past the end of
/// the file, a name that is not text) is an error naming the entry.
pub(crate) fn lumps<'a>(bytes: &'a [u8], file: &str) -> Result<Vec<BspxLump<'a>>, Q1Error> {
    let end = (0..LUMP_NAMES.len())
        .map(|i| {
            let ofs = i32_at(bytes, 4 + i * 8).max(0) as usize;
            ofs + i32_at(bytes, 8 + i * 8).max(0) as usize
        })
        .max()
        .unwrap_or(HEADER_SIZE)
        .max(HEADER_SIZE);
    let at = end.next_multiple_of(4);
    if bytes.get(at..at + 4) != Some(b"BSPX") || bytes.len() < at + 8 {
        return Ok(Vec::new());
    }
    let count = i32_at(bytes, at + 4);
    let room = (bytes.len() - at - 8) / ENTRY;
    if count < 0 || count as usize > room {
        return Err(bad(
            file,
            format!("{count} lumps, but the file has room for {room}"),
        ));
    }
    (0..count as usize)
        .map(|k| {
            let e = at + 8 + k * ENTRY;
            let raw = &bytes[e..e + 24];
            let name = std::str::from_utf8(&raw[..raw.iter().position(|&b| b == 0).unwrap_or(24)])
                .map_err(|_| bad(file, format!("lump {k}'s name is not text")))?;
            let (ofs, len) = (i32_at(bytes, e + 24), i32_at(bytes, e + 28));
            let range = usize::try_from(ofs)
                .ok()
                .zip(usize::try_from(len).ok())
                .map(|(o, l)| o..o.saturating_add(l))
                .filter(|r| r.end <= bytes.len());
            let Some(range) = range else {
                return Err(bad(
                    file,
                    format!("lump {k} ({name}): offset {ofs}, length {len} run past the file's {} bytes", bytes.len()),
                ));
            };
            Ok(BspxLump {
                name,
                data: &bytes[range],
            })
        })
        .collect()
}

fn bad(file: &str, detail: String) -> Q1Error {
    Q1Error::corrupt(file, "BSPX", detail)
}
