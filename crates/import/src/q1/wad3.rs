//! Half-Life's WAD3 texture files: a map compiled without embedding some textures (ericw-tools'
//! `-xwadpath`, Valve's own tools) names them only, with the files to find them in listed in
//! its worldspawn's `wad` key (`;`-separated, often absolute paths of the author's machine).
//! Each file is looked for by its name beside the map and in the three folders above it, as
//! it is written there and bare; a texture found in none keeps its size, without texels (one
//! warning names what is missing and where it was looked for).

use std::path::{Path, PathBuf};

use lanthorn_level::{Entity, Material};

use super::lumps::{i32_at, u32_at};

/// A WAD3 directory entry's type for a miptex with its own palette.
const MIPTEX: u8 = 0x43;

/// Gives the materials of `level` that have no texels theirs from the WAD3 files its
/// worldspawn names, looked for around `map`. Returns the warning, if textures stay missing.
pub(super) fn fill_missing(
    materials: &mut [Material],
    entities: &[Entity],
    map: &Path,
) -> Option<String> {
    let missing = |m: &Material| m.texels.is_none() && !m.name.starts_with("missing");
    if !materials.iter().any(missing) {
        return None;
    }
    let names = entities
        .iter()
        .find(|e| e.classname() == "worldspawn")
        .and_then(|e| e.get("wad"))
        .unwrap_or("");
    let mut looked = Vec::new();
    for wad in names.split(';').filter(|w| !w.trim().is_empty()) {
        let Some(bytes) = find(wad.trim(), map, &mut looked) else {
            continue;
        };
        for m in materials.iter_mut().filter(|m| missing(m)) {
            if let Some((w, h, indices, palette)) = texture(&bytes, &m.name) {
                if (w, h) == (m.width, m.height) {
                    super::textures::paint_with(m, indices, &palette);
                }
            }
        }
    }
    let still: Vec<&str> = materials
        .iter()
        .filter(|m| missing(m))
        .map(|m| m.name.as_str())
        .collect();
    (!still.is_empty()).then(|| {
        format!(
            "{} textures are in no WAD3 file found ({}; looked for {}): drawn as checkerboards",
            still.len(),
            still.iter().take(5).copied().collect::<Vec<_>>().join(", "),
            if looked.is_empty() {
                "none: the map names no wad".to_string()
            } else {
                looked.join(", ")
            }
        )
    })
}

/// The bytes of the WAD3 file `wad` (a path as the map's `wad` key writes it), looked for
/// beside `map` and in the three folders above, as written and by its bare name.
fn find(wad: &str, map: &Path, looked: &mut Vec<String>) -> Option<Vec<u8>> {
    let written: PathBuf = wad.replace('\\', "/").trim_start_matches('/').into();
    let bare = written.file_name()?.to_owned();
    let mut dir = map.parent();
    for _ in 0..4 {
        let Some(d) = dir else { break };
        for candidate in [d.join(&written), d.join(&bare)] {
            if let Ok(bytes) = std::fs::read(&candidate) {
                if bytes.starts_with(b"WAD3") {
                    return Some(bytes);
                }
            }
        }
        dir = d.parent();
    }
    looked.push(bare.to_string_lossy().into_owned());
    None
}

/// The miptex named `name` (case-insensitively) in a WAD3 file: its size, its first mip level's
/// palette indices and its palette. `None` when absent or damaged (every offset checked).
fn texture<'a>(wad: &'a [u8], name: &str) -> Option<(u32, u32, &'a [u8], [u8; 768])> {
    let count = usize::try_from(i32_at(wad.get(..12)?, 4)).ok()?;
    let table = usize::try_from(i32_at(wad, 8)).ok()?;
    let entries = wad.get(table..table.checked_add(count.checked_mul(32)?)?)?;
    let entry = entries.chunks_exact(32).find(|e| {
        let n = &e[16..32];
        let n = &n[..n.iter().position(|&c| c == 0).unwrap_or(16)];
        e[12] == MIPTEX && e[13] == 0 && n.eq_ignore_ascii_case(name.as_bytes())
    })?;
    let (pos, len) = (u32_at(entry, 0) as usize, u32_at(entry, 4) as usize);
    let m = wad.get(pos..pos.checked_add(len)?)?;
    let (w, h) = (u32_at(m.get(..40)?, 16), u32_at(m, 20));
    let (mip0, n) = (
        u32_at(m, 24) as usize,
        (w as usize).checked_mul(h as usize)?,
    );
    let indices = m.get(mip0..mip0.checked_add(n)?)?;
    let palette = super::textures::own_palette(m, (w, h), name).ok()?;
    Some((w, h, indices, palette))
}
