//! WAD2 texture directories (Quake): texture names and sizes for the compiler.

use std::collections::HashMap;
use std::path::Path;

/// Texture sizes by lower-case name.
#[derive(Clone, Debug, Default)]
pub(super) struct TextureSizes {
    pub sizes: HashMap<String, (u32, u32)>,
    /// Palette indices of the full-size mip level, where the wad holds them whole.
    pub indices: HashMap<String, Vec<u8>>,
}

impl TextureSizes {
    /// Adds the miptex entries of a WAD2 image; names already present are kept (the first wad
    /// wins). Returns how many were added; a malformed wad is an error message.
    pub(super) fn add_wad(&mut self, bytes: &[u8]) -> Result<usize, String> {
        let rd = |o: usize| -> Option<u32> {
            bytes
                .get(o..o + 4)
                .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        };
        if bytes.len() < 12 || &bytes[..4] != b"WAD2" {
            return Err("not a WAD2 file".into());
        }
        let count = rd(4).unwrap() as usize;
        let table = rd(8).unwrap() as usize;
        if table
            .checked_add(count.checked_mul(32).ok_or("bad lump count")?)
            .is_none_or(|end| end > bytes.len())
        {
            return Err(format!(
                "lump table ({count} entries at {table}) runs past the end of the file"
            ));
        }
        let mut added = 0;
        for i in 0..count {
            let e = table + i * 32;
            let pos = rd(e).unwrap() as usize;
            let kind = bytes[e + 12];
            let compression = bytes[e + 13];
            if kind != 0x44 || compression != 0 {
                continue;
            }
            let name = lump_name(&bytes[e + 16..e + 32]);
            let (Some(w), Some(h)) = (rd(pos + 16), rd(pos + 20)) else {
                continue;
            };
            if w == 0 || h == 0 || w > 4096 || h > 4096 {
                continue;
            }
            if !self.sizes.contains_key(&name) {
                let mip0 = rd(pos + 24).and_then(|o| {
                    let start = pos.checked_add(o as usize)?;
                    bytes.get(start..start.checked_add(w as usize * h as usize)?)
                });
                if let Some(px) = mip0 {
                    self.indices.insert(name.clone(), px.to_vec());
                }
                self.sizes.insert(name, (w, h));
                added += 1;
            }
        }
        Ok(added)
    }

    pub(super) fn add_wad_file(&mut self, path: &Path) -> Result<usize, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        self.add_wad(&bytes)
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// RGBA8 texels and the fullbright mask (palette entries 224–255) of a texture, decoded
    /// with a 768-byte Quake palette.
    pub(super) fn decode(&self, name: &str, palette: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
        let px = self.indices.get(&name.to_ascii_lowercase())?;
        if palette.len() < 768 {
            return None;
        }
        let mut rgba = Vec::with_capacity(px.len() * 4);
        let mut bright = Vec::with_capacity(px.len());
        for &i in px {
            let c = &palette[i as usize * 3..i as usize * 3 + 3];
            rgba.extend_from_slice(&[c[0], c[1], c[2], 255]);
            bright.push(if i >= 224 { 255 } else { 0 });
        }
        Some((rgba, bright))
    }

    pub(super) fn get(&self, name: &str) -> Option<(u32, u32)> {
        self.sizes.get(&name.to_ascii_lowercase()).copied()
    }
}

fn lump_name(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-lump WAD2 built by hand: the oracle is the bytes we wrote.
    fn tiny_wad() -> Vec<u8> {
        let mut b = b"WAD2".to_vec();
        b.extend_from_slice(&2u32.to_le_bytes());
        let table_at = 12 + 2 * 40;
        b.extend_from_slice(&(table_at as u32).to_le_bytes());
        for (name, w, h) in [("Wall1", 32u32, 16u32), ("*water0", 64, 64)] {
            let mut n = [0u8; 16];
            n[..name.len()].copy_from_slice(name.as_bytes());
            b.extend_from_slice(&n);
            b.extend_from_slice(&w.to_le_bytes());
            b.extend_from_slice(&h.to_le_bytes());
            b.extend_from_slice(&[0u8; 16]);
        }
        for (i, name) in ["WALL1", "*WATER0"].iter().enumerate() {
            b.extend_from_slice(&((12 + i * 40) as u32).to_le_bytes());
            b.extend_from_slice(&40u32.to_le_bytes());
            b.extend_from_slice(&40u32.to_le_bytes());
            b.extend_from_slice(&[0x44, 0, 0, 0]);
            let mut n = [0u8; 16];
            n[..name.len()].copy_from_slice(name.as_bytes());
            b.extend_from_slice(&n);
        }
        b
    }

    #[test]
    fn reads_sizes_and_rejects_garbage() {
        let mut t = TextureSizes::default();
        assert_eq!(t.add_wad(&tiny_wad()).unwrap(), 2);
        assert_eq!(t.get("wall1"), Some((32, 16)));
        assert_eq!(t.get("*Water0"), Some((64, 64)));
        let w = tiny_wad();
        for n in 0..w.len() {
            let _ = TextureSizes::default().add_wad(&w[..n]);
        }
        assert!(TextureSizes::default().add_wad(b"PACK").is_err());
    }

    #[test]
    fn real_wads_have_quake_textures() {
        let dir = lanthorn_testdata::realdata_dir().join("quake/wads");
        if !dir.exists() {
            lanthorn_testdata::missing_realdata(&dir);
            return;
        }
        let mut t = TextureSizes::default();
        let n = t.add_wad_file(&dir.join("base.wad")).unwrap();
        assert!(n > 50, "{n}");
        // Every size is a multiple of 8 (mip levels down to /8 must be whole texels).
        assert!(t.sizes.values().all(|&(w, h)| w % 8 == 0 && h % 8 == 0));
        // Decoding with the real palette: every texture decodes to w×h texels.
        let palette =
            std::fs::read(lanthorn_testdata::realdata_dir().join("quake/palette.lmp")).unwrap();
        for (name, &(w, h)) in &t.sizes {
            let (rgba, bright) = t.decode(name, &palette).unwrap();
            assert_eq!(rgba.len(), (w * h * 4) as usize);
            assert_eq!(bright.len(), (w * h) as usize);
        }
        // Quake light fixtures have fullbright texels; plain bricks do not.
        let lights = t.sizes.keys().filter(|n| n.starts_with("light")).count();
        let lit = t
            .sizes
            .keys()
            .filter(|n| t.decode(n, &palette).unwrap().1.contains(&255))
            .count();
        assert!(lights == 0 || lit > 0);
    }
}
