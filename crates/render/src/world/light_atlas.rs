//! The lightmap atlas as the world shader reads it: one RGBA8 texture, fetched once per
//! fragment, and each lit surface's slot tints (on its vertices). How a surface's texels hold
//! its light depends on how many light styles it has ([`Packing`]); the shader turns a texel
//! into light with one 3×4 matrix per surface (`style_rows` in world_light.inc.wgsl), so there
//! is no second fetch and no loop (docs/performance.md).
//! Where a slot is stored as one grey value (its texel's brightest channel), the slot's colour
//! comes back from its tint: the slot's summed RGB over the surface divided by the summed grey,
//! exact when the slot's lights on that surface share a colour (one torch, a row of torches).

use lanthorn_level::{Level, Surface};
use lanthorn_light::atlas::BORDER;

/// How a lit surface's light styles sit in its atlas texels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    /// One style: its colour in RGB.
    Colour,
    /// Two styles: slot 0's colour in RGB, slot 1 grey in A (its colour from its tint).
    ColourAndGrey,
    /// Three or four styles (Quake's faces can have four): slot k grey in channel k.
    Grey,
}

/// How `s`'s light is packed (`None`: no lightmap).
pub fn packing(s: &Surface) -> Option<Packing> {
    s.lightmap?;
    Some(match s.styles.count() {
        0 | 1 => Packing::Colour,
        2 => Packing::ColourAndGrey,
        _ => Packing::Grey,
    })
}

/// Whether the shader reads `s`'s light as packed styles (see [`Packing`]).
pub fn packs_styles(s: &Surface) -> bool {
    matches!(packing(s), Some(Packing::ColourAndGrey | Packing::Grey))
}

/// A texel's grey value: its brightest channel (a slot of one colour keeps full precision).
fn grey(t: &[u8]) -> u8 {
    t[0].max(t[1]).max(t[2])
}

/// Each slot's tint, RGBA8 packed as the shader unpacks it (`unpack4x8unorm`): the slot's RGB
/// summed over the surface's luxels over its grey summed, white where it is dark or unused.
pub fn slot_tints(level: &Level, s: &Surface) -> [u32; 4] {
    let white = u32::from_le_bytes([255, 255, 255, 0]);
    let mut tints = [white; 4];
    let (Some(r), true) = (s.lightmap, packs_styles(s)) else {
        return tints;
    };
    let lm = &level.lightmaps;
    let layer = lm.width as usize * lm.height as usize * 3;
    for (k, tint) in tints.iter_mut().enumerate().take(s.styles.count().min(4)) {
        let (mut rgb, mut sum) = ([0u64; 3], 0u64);
        for y in r.y..r.y + r.height {
            for x in r.x..r.x + r.width {
                let at = k * layer + (y as usize * lm.width as usize + x as usize) * 3;
                let Some(t) = lm.texels.get(at..at + 3) else {
                    continue;
                };
                for c in 0..3 {
                    rgb[c] += t[c] as u64;
                }
                sum += grey(t) as u64;
            }
        }
        if sum > 0 {
            let c = rgb.map(|v| ((v * 255 + sum / 2) / sum).min(255) as u8);
            *tint = u32::from_le_bytes([c[0], c[1], c[2], 0]);
        }
    }
    tints
}

/// The atlas texels (`width × height` RGBA8, row-major): layer 0 in RGB (alpha 0), and every
/// surface with several styles, border included, packed as its [`Packing`] says.
pub fn atlas_rgba(level: &Level) -> Vec<u8> {
    let lm = &level.lightmaps;
    let (w, h) = (lm.width as usize, lm.height as usize);
    let layer = w * h * 3;
    let mut rgba = vec![0u8; w * h * 4];
    for (px, src) in rgba
        .chunks_exact_mut(4)
        .zip(lm.texels[..layer.min(lm.texels.len())].chunks_exact(3))
    {
        px[..3].copy_from_slice(src);
    }
    for s in level.surfaces.iter() {
        let (Some(r), Some(packing)) = (s.lightmap, packing(s)) else {
            continue;
        };
        // Channel k holds slot `first + k`'s grey.
        let (first, channel0) = match packing {
            Packing::Colour => continue,
            Packing::ColourAndGrey => (1, 3),
            Packing::Grey => (0, 0),
        };
        let b = BORDER as usize;
        let (x0, y0) = (
            (r.x as usize).saturating_sub(b),
            (r.y as usize).saturating_sub(b),
        );
        let (x1, y1) = (
            ((r.x + r.width) as usize + b).min(w),
            ((r.y + r.height) as usize + b).min(h),
        );
        for y in y0..y1 {
            for x in x0..x1 {
                let at = y * w + x;
                for c in channel0..4 {
                    let k = first + c - channel0;
                    let t = lm.texels.get(k * layer + at * 3..k * layer + at * 3 + 3);
                    rgba[at * 4 + c] = match t {
                        Some(t) if k < s.styles.count() => grey(t),
                        _ => 0,
                    };
                }
            }
        }
    }
    rgba
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanthorn_level::{LightStyles, LightmapRect, Lightmaps};

    /// An 8×4 atlas of three layers (layer k uniformly `colours[k]`) with a 2×2 surface of
    /// `styles` at (1, 1) and a one-style surface at (5, 1).
    fn level(styles: [u8; 4], colours: [[u8; 3]; 3]) -> Level {
        let (w, h) = (8u32, 4u32);
        let texels = colours
            .iter()
            .flat_map(|c| {
                std::iter::repeat(c)
                    .take((w * h) as usize)
                    .flatten()
                    .copied()
            })
            .collect();
        let rect = |x, y| {
            Some(LightmapRect {
                x,
                y,
                width: 2,
                height: 2,
            })
        };
        Level {
            surfaces: vec![
                Surface {
                    lightmap: rect(1, 1),
                    styles: LightStyles(styles),
                    ..Default::default()
                },
                Surface {
                    lightmap: rect(5, 1),
                    ..Default::default()
                },
            ],
            lightmaps: Lightmaps {
                width: w,
                height: h,
                texels,
            },
            ..Default::default()
        }
    }

    fn texel(rgba: &[u8], x: usize, y: usize) -> &[u8] {
        &rgba[(y * 8 + x) * 4..(y * 8 + x) * 4 + 4]
    }

    /// Two styles: slot 0's colour stays in RGB, slot 1's brightest channel goes to A (border
    /// included) and its colour to its tint; a one-style surface and the texels outside every
    /// rect keep layer 0.
    #[test]
    fn two_style_surfaces_keep_slot_0_colour_and_tint_slot_1() {
        let level = level([0, 5, 255, 255], [[10, 20, 30], [200, 100, 0], [0; 3]]);
        let rgba = atlas_rgba(&level);
        for (x, y) in [(0, 0), (2, 2), (3, 3)] {
            assert_eq!(texel(&rgba, x, y), &[10, 20, 30, 200], "({x}, {y})");
        }
        assert_eq!(texel(&rgba, 5, 1), &[10, 20, 30, 0]);
        assert_eq!(texel(&rgba, 7, 3), &[10, 20, 30, 0]);
        let tints = slot_tints(&level, &level.surfaces[0]);
        assert_eq!(tints[1].to_le_bytes(), [255, 128, 0, 0]);
        assert_eq!(packing(&level.surfaces[0]), Some(Packing::ColourAndGrey));
        assert_eq!(packing(&level.surfaces[1]), Some(Packing::Colour));
        assert_eq!(slot_tints(&level, &level.surfaces[1]), [0x00ff_ffff; 4]);
    }

    /// Three styles: slot k's brightest channel in channel k, the unused fourth channel 0, and
    /// each slot's tint its colour over its brightest channel.
    #[test]
    fn three_style_surfaces_pack_grey_slots_with_their_tints() {
        let level = level([0, 5, 6, 255], [[40, 40, 40], [0, 90, 180], [60, 30, 30]]);
        let rgba = atlas_rgba(&level);
        assert_eq!(texel(&rgba, 1, 1), &[40, 180, 60, 0]);
        let tints = slot_tints(&level, &level.surfaces[0]).map(u32::to_le_bytes);
        assert_eq!(tints[0], [255, 255, 255, 0]);
        assert_eq!(tints[1], [0, 128, 255, 0]);
        assert_eq!(tints[2], [255, 128, 128, 0]);
        // Each slot's light comes back: grey × tint ≈ the slot's colour (to one 8-bit step).
        for (k, colour) in [[40, 40, 40], [0, 90, 180], [60, 30, 30]]
            .iter()
            .enumerate()
        {
            for c in 0..3 {
                let back = rgba[(8 + 1) * 4 + k] as f32 * tints[k][c] as f32 / 255.0;
                assert!(
                    (back - colour[c] as f32).abs() <= 1.0,
                    "slot {k} channel {c}: {back}"
                );
            }
        }
    }
}
