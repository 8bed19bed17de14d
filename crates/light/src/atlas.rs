//! Lightmap atlas packing: many small luxel blocks into one RGB8 texture.
//!
//! Placement uses `guillotiere`'s `SimpleAtlasAllocator` (guillotine packing; we never free,
//! and it is about 5× faster than the full `AtlasAllocator` on a few thousand blocks). Every block gets a 1-luxel border filled by
//! duplicating its edge luxels, so bilinear filtering at a block's edge never picks up a
//! neighbour's light. The returned [`LightmapRect`] of a block is its interior (without the
//! border): the atlas position of luxel `(i, j)` of block `k` is `rects[k].x + i, rects[k].y + j`.
//! A block may carry up to four layers (a Quake face's light style maps): layer `l` of every
//! block goes to layer `l` of the atlas, at the block's one rect.

use guillotiere::{size2, AllocatorOptions, SimpleAtlasAllocator};

use lanthorn_level::{LightmapRect, Lightmaps};

/// Largest atlas side we try (the 2D texture limit of the target GPUs).
pub const MAX_ATLAS_SIDE: u32 = 16384;

/// Border around every block, in luxels.
pub const BORDER: u32 = 1;

/// Layers a block (and the atlas) may have: one per light style slot.
pub const MAX_LAYERS: usize = lanthorn_level::styles::MAX_SLOTS;

/// One block of luxels to place: `rgb` holds `width * height * 3` bytes, row-major, per
/// layer, the layers (1 to [`MAX_LAYERS`]) one after another.
#[derive(Clone, Copy, Debug)]
pub struct LuxelBlock<'a> {
    /// Luxels across.
    pub width: u32,
    /// Luxels down.
    pub height: u32,
    /// The layers' RGB bytes, one after another.
    pub rgb: &'a [u8],
}

/// Why blocks could not be packed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AtlasError {
    /// A block's bytes are not whole layers of its size.
    #[error("lightmap block {index} is {width}x{height} luxels with {bytes} bytes of data (expected {expected} per layer, 1 to 4 layers)")]
    BadBlock {
        /// The block (input order).
        index: usize,
        /// Its luxels across.
        width: u32,
        /// Its luxels down.
        height: u32,
        /// The bytes it has.
        bytes: usize,
        /// The bytes a layer of its size has.
        expected: u64,
    },
    /// The blocks do not fit the largest atlas.
    #[error("lightmap blocks ({blocks}, {luxels} luxels) do not fit in a {max}x{max} atlas; reduce lightmap resolution")]
    TooLarge {
        /// How many blocks.
        blocks: usize,
        /// Their luxels together.
        luxels: u64,
        /// The atlas's largest side.
        max: u32,
    },
}

/// Packs `blocks` into one atlas; returns the atlas and, per block in input order, its interior
/// rectangle. An empty input gives a 1×1 black atlas.
pub fn pack(blocks: &[LuxelBlock]) -> Result<(Lightmaps, Vec<LightmapRect>), AtlasError> {
    let (area, layers) = check_blocks(blocks)?;
    if blocks.is_empty() {
        return Ok((
            Lightmaps {
                width: 1,
                height: 1,
                texels: vec![0; 3],
            },
            Vec::new(),
        ));
    }
    let ((w, h), origins) = place(blocks, area)?;
    let (texels, rects) = copy_blocks(blocks, &origins, (w, h), layers);
    Ok((
        Lightmaps {
            width: w,
            height: h,
            texels,
        },
        rects,
    ))
}

/// The atlas area the blocks need with their borders, and the most layers one has; a block
/// whose size and data disagree is an error.
fn check_blocks(blocks: &[LuxelBlock]) -> Result<(u64, usize), AtlasError> {
    let mut area: u64 = 0;
    let mut layers = 1;
    for (index, b) in blocks.iter().enumerate() {
        let expected = b.width as u64 * b.height as u64 * 3;
        let len = b.rgb.len() as u64;
        if b.width == 0
            || b.height == 0
            || b.width > MAX_ATLAS_SIDE - 2 * BORDER
            || b.height > MAX_ATLAS_SIDE - 2 * BORDER
            || !len.is_multiple_of(expected)
            || !(1..=MAX_LAYERS as u64).contains(&(len / expected))
        {
            return Err(AtlasError::BadBlock {
                index,
                width: b.width,
                height: b.height,
                bytes: b.rgb.len(),
                expected,
            });
        }
        area += (b.width + 2 * BORDER) as u64 * (b.height + 2 * BORDER) as u64;
        layers = layers.max((len / expected) as usize);
    }
    Ok((area, layers))
}

/// The atlas size and each block's origin (with its border): starts near the square that
/// holds `area` and grows the shorter side until all fit.
fn place(blocks: &[LuxelBlock], area: u64) -> Result<((u32, u32), Vec<(u32, u32)>), AtlasError> {
    let too_large = || AtlasError::TooLarge {
        blocks: blocks.len(),
        luxels: blocks
            .iter()
            .map(|b| b.width as u64 * b.height as u64)
            .sum(),
        max: MAX_ATLAS_SIDE,
    };
    // Tallest blocks first packs tighter with a guillotine allocator.
    let mut order: Vec<usize> = (0..blocks.len()).collect();
    order.sort_by_key(|&i| {
        (
            std::cmp::Reverse(blocks[i].height),
            std::cmp::Reverse(blocks[i].width),
            i,
        )
    });
    let side = ((area as f64 * 1.1).sqrt().ceil() as u64)
        .next_power_of_two()
        .clamp(64, MAX_ATLAS_SIDE as u64) as u32;
    let (mut w, mut h) = (side, side / 2);
    if (w as u64 * h as u64) < area {
        h = side;
    }
    loop {
        if let Some(origins) = try_place(blocks, &order, (w, h)) {
            return Ok(((w, h), origins));
        }
        if h < w {
            h *= 2;
        } else if w < MAX_ATLAS_SIDE {
            w *= 2;
        } else {
            return Err(too_large());
        }
        if h > MAX_ATLAS_SIDE {
            return Err(too_large());
        }
    }
}

/// Each block's origin in a `w`×`h` atlas, allocated in `order`; `None` if one does not fit.
fn try_place(
    blocks: &[LuxelBlock],
    order: &[usize],
    (w, h): (u32, u32),
) -> Option<Vec<(u32, u32)>> {
    let options = AllocatorOptions {
        small_size_threshold: 8,
        large_size_threshold: 64,
        ..AllocatorOptions::default()
    };
    let mut alloc = SimpleAtlasAllocator::with_options(size2(w as i32, h as i32), &options);
    let mut origins = vec![(0u32, 0u32); blocks.len()];
    for &i in order {
        let b = &blocks[i];
        let r = alloc.allocate(size2(
            (b.width + 2 * BORDER) as i32,
            (b.height + 2 * BORDER) as i32,
        ))?;
        origins[i] = (r.min.x as u32, r.min.y as u32);
    }
    Some(origins)
}

/// The atlas texels (`layers` layers of `w`×`h` RGB) with every block copied to its origin,
/// its edge luxels repeated into its border, and each block's interior rectangle.
fn copy_blocks(
    blocks: &[LuxelBlock],
    origins: &[(u32, u32)],
    (w, h): (u32, u32),
    layers: usize,
) -> (Vec<u8>, Vec<LightmapRect>) {
    let layer_bytes = w as usize * h as usize * 3;
    let mut texels = vec![0u8; layer_bytes * layers];
    let mut rects = Vec::with_capacity(blocks.len());
    for (b, &(ox, oy)) in blocks.iter().zip(origins) {
        let (bw, bh) = (b.width as usize, b.height as usize);
        for (l, rgb) in b.rgb.chunks_exact(bw * bh * 3).enumerate() {
            let layer = &mut texels[l * layer_bytes..(l + 1) * layer_bytes];
            for py in 0..bh + 2 * BORDER as usize {
                let sy = py.saturating_sub(BORDER as usize).min(bh - 1);
                let row = (oy as usize + py) * w as usize;
                for px in 0..bw + 2 * BORDER as usize {
                    let sx = px.saturating_sub(BORDER as usize).min(bw - 1);
                    let src = (sy * bw + sx) * 3;
                    let dst = (row + ox as usize + px) * 3;
                    layer[dst..dst + 3].copy_from_slice(&rgb[src..src + 3]);
                }
            }
        }
        rects.push(LightmapRect {
            x: ox + BORDER,
            y: oy + BORDER,
            width: b.width,
            height: b.height,
        });
    }
    (texels, rects)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tiny deterministic generator for test data.
    fn lcg(state: &mut u64) -> u32 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*state >> 33) as u32
    }

    #[test]
    fn packs_without_overlap_and_with_duplicated_borders() {
        let mut s = 7u64;
        let data: Vec<(u32, u32, Vec<u8>)> = (0..500)
            .map(|_| {
                let (w, h) = (1 + lcg(&mut s) % 18, 1 + lcg(&mut s) % 18);
                let rgb = (0..w * h * 3).map(|_| lcg(&mut s) as u8).collect();
                (w, h, rgb)
            })
            .collect();
        let blocks: Vec<LuxelBlock> = data
            .iter()
            .map(|(w, h, rgb)| LuxelBlock {
                width: *w,
                height: *h,
                rgb,
            })
            .collect();
        let (atlas, rects) = pack(&blocks).unwrap();
        assert_eq!(
            atlas.texels.len(),
            (atlas.width * atlas.height * 3) as usize
        );
        // Padded rectangles inside the atlas and pairwise disjoint.
        let padded: Vec<(i64, i64, i64, i64)> = rects
            .iter()
            .map(|r| {
                (
                    r.x as i64 - 1,
                    r.y as i64 - 1,
                    (r.x + r.width) as i64 + 1,
                    (r.y + r.height) as i64 + 1,
                )
            })
            .collect();
        for (i, a) in padded.iter().enumerate() {
            assert!(
                a.0 >= 0 && a.1 >= 0 && a.2 <= atlas.width as i64 && a.3 <= atlas.height as i64
            );
            for b in &padded[i + 1..] {
                assert!(
                    a.2 <= b.0 || b.2 <= a.0 || a.3 <= b.1 || b.3 <= a.1,
                    "overlap {a:?} {b:?}"
                );
            }
        }
        let texel = |x: i64, y: i64| {
            let i = ((y * atlas.width as i64 + x) * 3) as usize;
            &atlas.texels[i..i + 3]
        };
        for ((w, h, rgb), r) in data.iter().zip(&rects) {
            assert_eq!((r.width, r.height), (*w, *h));
            for y in -1..*h as i64 + 1 {
                for x in -1..*w as i64 + 1 {
                    let (sx, sy) = (x.clamp(0, *w as i64 - 1), y.clamp(0, *h as i64 - 1));
                    let src = ((sy * *w as i64 + sx) * 3) as usize;
                    assert_eq!(texel(r.x as i64 + x, r.y as i64 + y), &rgb[src..src + 3]);
                }
            }
        }
        // Reasonably tight: at least 40% of the atlas used by padded blocks.
        let used: i64 = padded.iter().map(|p| (p.2 - p.0) * (p.3 - p.1)).sum();
        assert!(
            used as f64 >= 0.4 * (atlas.width * atlas.height) as f64,
            "used {used} of {}x{}",
            atlas.width,
            atlas.height
        );
    }

    /// Layer `l` of each block lands in atlas layer `l` at the block's rect; blocks with
    /// fewer layers leave the others black.
    #[test]
    fn layers_share_one_rect() {
        let one: Vec<u8> = vec![10; 2 * 3 * 3];
        let three: Vec<u8> = [1u8, 2, 3]
            .iter()
            .flat_map(|&v| vec![v; 3 * 2 * 3])
            .collect();
        let blocks = [
            LuxelBlock {
                width: 2,
                height: 3,
                rgb: &one,
            },
            LuxelBlock {
                width: 3,
                height: 2,
                rgb: &three,
            },
        ];
        let (atlas, rects) = pack(&blocks).unwrap();
        assert_eq!(atlas.layers(), 3);
        let layer = (atlas.width * atlas.height * 3) as usize;
        let at = |l: usize, x: u32, y: u32| {
            atlas.texels[l * layer + ((y * atlas.width + x) * 3) as usize]
        };
        for l in 0..3 {
            assert_eq!(at(l, rects[1].x + 2, rects[1].y + 1), l as u8 + 1);
            assert_eq!(
                at(l, rects[0].x + 1, rects[0].y + 2),
                if l == 0 { 10 } else { 0 }
            );
        }
        let five = vec![0u8; 5 * 3];
        assert!(matches!(
            pack(&[LuxelBlock {
                width: 1,
                height: 1,
                rgb: &five
            }]),
            Err(AtlasError::BadBlock { .. })
        ));
    }

    #[test]
    fn rejects_bad_blocks() {
        let rgb = [0u8; 5];
        assert!(matches!(
            pack(&[LuxelBlock {
                width: 1,
                height: 2,
                rgb: &rgb
            }]),
            Err(AtlasError::BadBlock { .. })
        ));
        assert!(matches!(
            pack(&[LuxelBlock {
                width: 0,
                height: 0,
                rgb: &[]
            }]),
            Err(AtlasError::BadBlock { .. })
        ));
        let (a, r) = pack(&[]).unwrap();
        assert!(r.is_empty() && a.width == 1);
    }
}
