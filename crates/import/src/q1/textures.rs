//! The miptex lump: texture names, sizes and 8-bit texels, decoded to RGBA8 with the Quake
//! palette, or in a Half-Life map with each texture's own palette (after its last mip level:
//! a 16-bit count, 256, then the colours). Only mip level 0 is decoded (the renderer builds
//! its own mipmaps).

use lanthorn_level::{material_flags, Animation, Material};

use super::lumps::{i32_at, u32_at};
use super::Q1Error;

/// Palette indices from here on are fullbright (drawn unlit).
pub(super) const FIRST_FULLBRIGHT: u8 = 224;
/// Largest texture side accepted.
pub(super) const MAX_SIDE: u32 = 4096;

/// Material flags from a Quake texture name: `sky*` → SKY; `*…` → LIQUID, plus TRANSLUCENT for
/// water-like liquids (`*water…`, `*…mwat…` murky water, `*tele…`), not for lava or slime;
/// `{…` → FENCE (palette index 255 is a hole).
pub(super) fn flags_for_name(name: &str) -> u32 {
    let n = name.to_ascii_lowercase();
    if n.starts_with('{') {
        material_flags::FENCE
    } else if n.starts_with("sky") {
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

/// Where a texture's colours come from.
#[derive(Clone, Copy)]
enum Colours<'a> {
    /// One palette for every texture (Quake's; `None`: sizes only), indices 224–255 fullbright.
    Shared(Option<&'a [u8; 768]>),
    /// Each texture's own, stored after its mip levels (Half-Life), none fullbright.
    Own,
}

/// Decodes every texture of a Quake map's lump with `palette`. Entries the file marks missing
/// (offset -1) become a 64×64 placeholder without texels named `missing<N>`.
pub(super) fn decode(
    lump: &[u8],
    palette: Option<&[u8; 768]>,
    file: &str,
) -> Result<Vec<Material>, Q1Error> {
    decode_lump(lump, Colours::Shared(palette), file)
}

/// Decodes every texture of a Half-Life map's lump, each with its own palette; a texture kept
/// in a WAD3 file (no texels in the map) has its size only. Names beginning with `!` are water.
pub(super) fn decode_half_life(lump: &[u8], file: &str) -> Result<Vec<Material>, Q1Error> {
    let mut materials = decode_lump(lump, Colours::Own, file)?;
    for m in &mut materials {
        if m.name.starts_with('!') {
            m.flags |= material_flags::LIQUID | material_flags::TRANSLUCENT;
        }
    }
    Ok(materials)
}

fn decode_lump(lump: &[u8], colours: Colours, file: &str) -> Result<Vec<Material>, Q1Error> {
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
            let own;
            let palette = match colours {
                Colours::Shared(p) => p,
                Colours::Own => {
                    own = own_palette(m, (w, h), &mat.name)
                        .map_err(|d| bad(format!("texture {i} {d}")))?;
                    Some(&own)
                }
            };
            if let Some(pal) = palette {
                paint_with(&mut mat, indices, pal);
            }
            let shared = matches!(colours, Colours::Shared(_));
            if shared && indices.iter().any(|&c| c >= FIRST_FULLBRIGHT) {
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

/// `mat`'s texels from its palette `indices` in `pal`, holes cut in a fence.
pub(super) fn paint_with(mat: &mut Material, indices: &[u8], pal: &[u8; 768]) {
    paint(mat, indices, pal);
    if mat.flags & material_flags::FENCE != 0 {
        cut_holes(mat, indices);
    }
}

/// `mat`'s texels and mean colour from its palette `indices` in `pal`.
fn paint(mat: &mut Material, indices: &[u8], pal: &[u8; 768]) {
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
        let srgb = sum[k] as f32 / (indices.len().max(1) as f32 * 255.0);
        mat.color[k] = srgb.powf(2.2);
    }
    mat.texels = Some(rgba);
}

/// The palette index of a fence texture's holes.
const HOLE: u8 = 255;

/// A fence texture's holes (index `HOLE`): alpha 0, their colour that of the opaque texels
/// around them (spread in a few rounds), so no filter or mip level darkens the edges.
fn cut_holes(mat: &mut Material, indices: &[u8]) {
    let (w, h) = (mat.width as usize, mat.height as usize);
    let Some(rgba) = mat.texels.as_mut() else {
        return;
    };
    let mut known: Vec<bool> = indices.iter().map(|&c| c != HOLE).collect();
    for (px, _) in rgba.chunks_exact_mut(4).zip(&known).filter(|(_, k)| !**k) {
        px.copy_from_slice(&[0, 0, 0, 0]);
    }
    for _ in 0..8 {
        let mut next = known.clone();
        for i in (0..w * h).filter(|&i| !known[i]) {
            let (x, y) = (i % w, i / w);
            let (mut sum, mut n) = ([0u32; 3], 0);
            for (dx, dy) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
                let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                if nx < 0 || ny < 0 || nx >= w as i64 || ny >= h as i64 {
                    continue;
                }
                let j = ny as usize * w + nx as usize;
                if known[j] {
                    (0..3).for_each(|k| sum[k] += u32::from(rgba[4 * j + k]));
                    n += 1;
                }
            }
            if n > 0 {
                (0..3).for_each(|k| rgba[4 * i + k] = (sum[k] / n) as u8);
                next[i] = true;
            }
        }
        known = next;
    }
}

/// A Half-Life texture's own palette: after its fourth mip level (at its offset plus a 64th of
/// its texels), a 16-bit colour count that must be 256, then the colours.
pub(super) fn own_palette(m: &[u8], (w, h): (u32, u32), name: &str) -> Result<[u8; 768], String> {
    let last = u32_at(m, 24 + 12) as u64;
    let at = last + (w as u64 / 8) * (h as u64 / 8);
    let count = m
        .get(at as usize..at as usize + 2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]));
    match (count, m.get(at as usize + 2..at as usize + 2 + 768)) {
        (Some(256), Some(colours)) => Ok(std::array::from_fn(|k| colours[k])),
        (Some(n), _) if n != 256 => {
            Err(format!("\"{name}\": its palette has {n} colours, not 256"))
        }
        _ => Err(format!(
            "\"{name}\": its palette at {at} runs past the lump's end"
        )),
    }
}

/// Quake's animated textures: `+0name` … `+9name` shown in turn, five a second; every texture
/// of a chain shows the chain's picture of the moment, the first at time 0
/// (`R_TextureAnimation`). The chain's pictures are copied to the end of `materials` as a run,
/// and each texture of the chain animates over it. A chain stops at a missing number (Quake
/// refuses such a map; the pictures before it still turn).
pub(super) fn animate_chains(materials: &mut Vec<Material>) {
    let mut chains: std::collections::BTreeMap<String, [Option<usize>; 10]> = Default::default();
    for (i, m) in materials.iter().enumerate() {
        if let [b'+', digit @ b'0'..=b'9', ..] = m.name.as_bytes() {
            let chain = chains.entry(m.name[2..].to_ascii_lowercase()).or_default();
            chain[(digit - b'0') as usize] = Some(i);
        }
    }
    for frames in chains.values() {
        let run: Vec<usize> = frames.iter().map_while(|f| *f).collect();
        if run.len() < 2 {
            continue;
        }
        let first = materials.len() as u32;
        for &i in &run {
            materials.push(materials[i].clone());
        }
        let animation = Animation {
            first,
            frames: run.len() as u32,
            rate: 5.0,
        };
        for &i in frames.iter().flatten() {
            materials[i].animation = Some(animation);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `+0`…`+2` of one name animate over a run of copies of those three at five a second;
    /// `+5` past the gap shows the run too; a lone `+0` and other textures stay still.
    #[test]
    fn quakes_animated_textures_turn_over_a_run_of_their_pictures() {
        let named = |name: &str, shade: u8| Material {
            name: name.into(),
            width: 1,
            height: 1,
            texels: Some(vec![shade, shade, shade, 255]),
            ..Default::default()
        };
        let mut materials = vec![
            named("+1slip", 1),
            named("wall", 9),
            named("+0SLIP", 0),
            named("+2slip", 2),
            named("+5slip", 5),
            named("+0lone", 7),
        ];
        animate_chains(&mut materials);
        assert_eq!(materials.len(), 9);
        let shades: Vec<u8> = materials[6..]
            .iter()
            .map(|m| m.texels.as_ref().unwrap()[0])
            .collect();
        assert_eq!(shades, [0, 1, 2], "the run in Quake's order");
        let turning = Some(Animation {
            first: 6,
            frames: 3,
            rate: 5.0,
        });
        for i in [0, 2, 3, 4] {
            assert_eq!(materials[i].animation, turning, "{}", materials[i].name);
        }
        assert_eq!(
            (materials[1].animation, materials[5].animation),
            (None, None)
        );
    }

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
