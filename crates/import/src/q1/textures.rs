//! The miptex lump: texture names, sizes and 8-bit texels, decoded to RGBA8 with the Quake
//! palette. Only mip level 0 is decoded (the renderer builds its own mipmaps).

use lanthorn_level::{material_flags, Material};

use super::lumps::{i32_at, u32_at};
use super::Q1Error;

/// Palette indices from here on are fullbright (drawn unlit).
pub(super) const FIRST_FULLBRIGHT: u8 = 224;
/// Largest texture side accepted.
pub(super) const MAX_SIDE: u32 = 4096;

/// Material flags from a Quake texture name: `sky*` → SKY; `*…` → LIQUID, plus TRANSLUCENT for
/// water-like liquids (`*water…`, `*…mwat…` murky water, `*tele…`), not for lava or slime.
pub(super) fn flags_for_name(name: &str) -> u32 {
    let n = name.to_ascii_lowercase();
    if n.starts_with("sky") {
        material_flags::SKY
    } else if let Some(rest) = n.strip_prefix('*') {
        let translucent =
            rest.contains("water") || rest.contains("mwat") || rest.starts_with("tele");
        material_flags::LIQUID
            | if translucent {
                material_flags::TRANSLUCENT
            } else {
                0
            }
    } else {
        0
    }
}

/// Decodes every texture of the lump. Entries the file marks missing (offset -1) become a
/// 64×64 placeholder without texels named `missing<N>`.
pub(super) fn decode(
    lump: &[u8],
    palette: Option<&[u8; 768]>,
    file: &str,
) -> Result<Vec<Material>, Q1Error> {
    let bad = |detail: String| Q1Error::corrupt(file, "textures", detail);
    if lump.is_empty() {
        return Ok(Vec::new());
    }
    if lump.len() < 4 {
        return Err(bad(format!(
            "{} bytes cannot hold the texture count",
            lump.len()
        )));
    }
    let count = i32_at(lump, 0);
    if count < 0 || 4 + 4 * count as u64 > lump.len() as u64 {
        return Err(bad(format!(
            "texture count {count} does not fit in the lump's {} bytes",
            lump.len()
        )));
    }
    let mut out = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        let ofs = i32_at(lump, 4 + 4 * i);
        if ofs == -1 {
            out.push(Material {
                name: format!("missing{i}"),
                width: 64,
                height: 64,
                color: [1.0, 0.0, 1.0],
                ..Material::default()
            });
            continue;
        }
        if ofs < 0 || ofs as u64 + 40 > lump.len() as u64 {
            return Err(bad(format!(
                "texture {i}: offset {ofs} is outside the lump ({} bytes)",
                lump.len()
            )));
        }
        let m = &lump[ofs as usize..];
        let name_bytes = &m[..16];
        let name_len = name_bytes.iter().position(|&c| c == 0).unwrap_or(16);
        let name = String::from_utf8_lossy(&name_bytes[..name_len]).into_owned();
        let (w, h) = (u32_at(m, 16), u32_at(m, 20));
        if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
            return Err(bad(format!(
                "texture {i} \"{name}\": size {w}x{h} (expected 1..={MAX_SIDE})"
            )));
        }
        let mip0 = u32_at(m, 24) as u64;
        let flags = flags_for_name(&name);
        let mut mat = Material {
            name,
            width: w,
            height: h,
            flags,
            color: [0.5; 3],
            ..Material::default()
        };
        if mip0 != 0 {
            let n = w as u64 * h as u64;
            if ofs as u64 + mip0 + n > lump.len() as u64 {
                return Err(bad(format!(
                    "texture {i} \"{}\": texels at {} + {n} bytes run past the lump's end ({} bytes)",
                    mat.name,
                    ofs as u64 + mip0,
                    lump.len()
                )));
            }
            let indices = &m[mip0 as usize..(mip0 + n) as usize];
            if let Some(pal) = palette {
                let mut rgba = Vec::with_capacity(indices.len() * 4);
                let mut sum = [0u64; 3];
                for &c in indices {
                    let p = &pal[c as usize * 3..c as usize * 3 + 3];
                    rgba.extend_from_slice(&[p[0], p[1], p[2], 255]);
                    for k in 0..3 {
                        sum[k] += p[k] as u64;
                    }
                }
                for k in 0..3 {
                    let srgb = sum[k] as f32 / (n as f32 * 255.0);
                    mat.color[k] = srgb.powf(2.2);
                }
                mat.texels = Some(rgba);
            }
            if indices.iter().any(|&c| c >= FIRST_FULLBRIGHT) {
                mat.fullbright = Some(
                    indices
                        .iter()
                        .map(|&c| if c >= FIRST_FULLBRIGHT { 255 } else { 0 })
                        .collect(),
                );
            }
        }
        out.push(mat);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_flags() {
        use material_flags::*;
        assert_eq!(flags_for_name("sky4"), SKY);
        assert_eq!(flags_for_name("SKY1"), SKY);
        assert_eq!(flags_for_name("*water0"), LIQUID | TRANSLUCENT);
        assert_eq!(flags_for_name("*04mwat1"), LIQUID | TRANSLUCENT);
        assert_eq!(flags_for_name("*teleport"), LIQUID | TRANSLUCENT);
        assert_eq!(flags_for_name("*lava1"), LIQUID);
        assert_eq!(flags_for_name("*slime0"), LIQUID);
        assert_eq!(flags_for_name("wbrick1_5"), 0);
    }

    #[test]
    fn decodes_with_palette_and_fullbright_mask() {
        let mut lump = vec![0u8; 4 + 4 + 40 + 16 * 16];
        lump[0] = 1;
        lump[4] = 8; // offset of the miptex
        lump[8..13].copy_from_slice(b"*lava");
        lump[8 + 16] = 16;
        lump[8 + 20] = 16;
        lump[8 + 24] = 40;
        for i in 0..256 {
            lump[48 + i] = i as u8;
        }
        let mut pal = [0u8; 768];
        for i in 0..256 {
            pal[i * 3] = i as u8;
            pal[i * 3 + 1] = 1;
            pal[i * 3 + 2] = 2;
        }
        let m = decode(&lump, Some(&pal), "t").unwrap();
        assert_eq!(m.len(), 1);
        let t = m[0].texels.as_ref().unwrap();
        assert_eq!(&t[4 * 230..4 * 231], &[230, 1, 2, 255]);
        let fb = m[0].fullbright.as_ref().unwrap();
        assert_eq!((fb[223], fb[224], fb[255]), (0, 255, 255));
        assert_eq!(m[0].flags, material_flags::LIQUID);
        // Texels past the lump's end are an error, not a panic.
        assert!(decode(&lump[..200], Some(&pal), "t").is_err());
    }
}
