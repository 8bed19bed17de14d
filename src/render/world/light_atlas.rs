//! The lightmap atlas as the world shader reads it: one RGBA8 texture, fetched once per
//! fragment. A surface with one light style keeps its slot-0 colour in RGB; a surface with
//! several styles (Quake's faces: their maps are grey) gets its slots packed into the channels,
//! slot k in channel k, so the shader sums them with one dot product against the styles'
//! brightnesses — no second fetch and no loop, which cost lavapipe about a quarter of the world
//! pass. (A multi-style surface with coloured maps, which no producer makes today, is packed as
//! each map's mean of R, G and B.)

use crate::level::{Level, Surface};
use crate::light::atlas::BORDER;

/// Whether the shader reads `s`'s light as packed styles (see the module docs).
pub fn packs_styles(s: &Surface) -> bool {
    s.lightmap.is_some() && s.styles.count() > 1
}

/// The atlas texels (`width × height` RGBA8, row-major) for `level`: layer 0 in RGB (alpha 0),
/// and every multi-style surface's rect, with its border, packed.
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
    for s in level.surfaces.iter().filter(|s| packs_styles(s)) {
        let Some(r) = s.lightmap else { continue };
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
                for k in 0..s.styles.count().min(4) {
                    let Some(t) = lm.texels.get(k * layer + at * 3..k * layer + at * 3 + 3) else {
                        continue;
                    };
                    rgba[at * 4 + k] = ((t[0] as u32 + t[1] as u32 + t[2] as u32 + 1) / 3) as u8;
                }
                for k in s.styles.count()..4 {
                    rgba[at * 4 + k] = 0;
                }
            }
        }
    }
    rgba
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::{LightStyles, LightmapRect, Lightmaps};

    /// A 2-style surface's texels (border included) carry slot k in channel k; a 1-style
    /// surface keeps its colour; texels outside every rect keep layer 0.
    #[test]
    fn multi_style_surfaces_pack_their_slots_into_channels() {
        let (w, h) = (8u32, 4u32);
        let layer = (w * h * 3) as usize;
        let mut texels = vec![0u8; layer * 2];
        for i in 0..(w * h) as usize {
            texels[i * 3..i * 3 + 3].copy_from_slice(&[10, 20, 30]);
            texels[layer + i * 3..layer + i * 3 + 3].fill(90);
        }
        let rect = |x, y| {
            Some(LightmapRect {
                x,
                y,
                width: 2,
                height: 2,
            })
        };
        let level = Level {
            surfaces: vec![
                Surface {
                    lightmap: rect(1, 1),
                    styles: LightStyles([0, 5, 255, 255]),
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
        };
        let rgba = atlas_rgba(&level);
        let at = |x: u32, y: u32| &rgba[((y * w + x) * 4) as usize..((y * w + x) * 4 + 4) as usize];
        // Rect (1..3, 1..3) with its 1-luxel border (0..4, 0..4): packed grey slots.
        assert_eq!(at(0, 0), &[20, 90, 0, 0]);
        assert_eq!(at(2, 2), &[20, 90, 0, 0]);
        assert_eq!(at(3, 3), &[20, 90, 0, 0]);
        // The single-style surface and everything else: layer 0's colour.
        assert_eq!(at(5, 1), &[10, 20, 30, 0]);
        assert_eq!(at(7, 3), &[10, 20, 30, 0]);
        assert!(packs_styles(&level.surfaces[0]) && !packs_styles(&level.surfaces[1]));
    }
}
