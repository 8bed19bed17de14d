//! The BSPX `LIGHTGRID_OCTREE` lump (ericw-tools' `light -lightgrid`): the light at points of a
//! regular grid over the map, for moving objects, stored as an octree whose leaves hold boxes
//! of samples — per sample its styles (255: the point is in solid) and per style an RGB value.
//! Read into Lanthorn's light grid for objects in place of the grid the renderer would
//! otherwise lack for an imported map: each style's light as a uniform harmonic (the lump has
//! no direction), every `stride`th point along each axis when the grid holds more points than
//! Lanthorn's grid may (`light_grid::MAX_POINTS`). Every count and offset is checked; a damaged
//! lump is ignored with a warning.

use glam::Vec3;

use lanthorn_geom::sh::Sh9;
use lanthorn_level::light_grid::{self, LightGrid};
use lanthorn_level::styles::{LightStyles, MAX_SLOTS, NO_STYLE};

/// A cursor over the lump that reads little-endian values, `None` past its end.
struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn bytes(&mut self, n: usize) -> Option<&[u8]> {
        let b = self.data.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(b)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.bytes(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        let b = self.bytes(4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn f32(&mut self) -> Option<f32> {
        Some(f32::from_bits(self.u32()?))
    }
    fn vec3(&mut self) -> Option<Vec3> {
        Some(Vec3::new(self.f32()?, self.f32()?, self.f32()?))
    }
    fn u32x3(&mut self) -> Option<[u32; 3]> {
        Some([self.u32()?, self.u32()?, self.u32()?])
    }
}

/// The light grid in `lump`, or why it cannot be read.
pub(crate) fn read(lump: &[u8]) -> Result<LightGrid, String> {
    let mut r = Reader { data: lump, at: 0 };
    let short = || "it ends early".to_string();
    let step = r.vec3().ok_or_else(short)?;
    let size = r.u32x3().ok_or_else(short)?;
    let mins = r.vec3().ok_or_else(short)?;
    if !(step.min_element() > 0.0 && step.is_finite() && mins.is_finite()) {
        return Err(format!("spacing {step} or origin {mins} is not a grid's"));
    }
    if size.contains(&0) || size.iter().any(|&n| n > 1 << 16) {
        return Err(format!("size {size:?}"));
    }
    let _styles = r.u8().ok_or_else(short)?;
    let _root = r.u32().ok_or_else(short)?;
    let nodes = r.u32().ok_or_else(short)? as usize;
    r.bytes(nodes.checked_mul(44).ok_or_else(short)?)
        .ok_or_else(short)?;
    // Every `stride`th point, so the grid fits Lanthorn's.
    let total = size.iter().map(|&n| n as u64).product::<u64>();
    let stride = light_grid::stride_to_fit(size);
    let ours = size.map(|n| n.div_ceil(stride));
    let count = ours.iter().map(|&n| n as usize).product::<usize>();
    let mut points: Vec<Option<Vec<(u8, [u8; 3])>>> = vec![None; count];
    let leaves = r.u32().ok_or_else(short)?;
    for leaf in 0..leaves {
        let (lo, extent) = (r.u32x3().ok_or_else(short)?, r.u32x3().ok_or_else(short)?);
        let fits = (0..3).all(|k| lo[k] as u64 + extent[k] as u64 <= size[k] as u64);
        if !fits {
            return Err(format!(
                "leaf {leaf} at {lo:?} of {extent:?} points lies off the grid"
            ));
        }
        let n = extent.iter().map(|&e| e as u64).product::<u64>();
        if n > total {
            return Err(format!("leaf {leaf} holds more points than the grid"));
        }
        for i in 0..n {
            let (x, y, z) = (
                (i % extent[0] as u64) as u32,
                (i / extent[0] as u64 % extent[1] as u64) as u32,
                (i / (extent[0] as u64 * extent[1] as u64)) as u32,
            );
            let styles = r.u8().ok_or_else(short)?;
            if styles == NO_STYLE {
                continue;
            }
            let samples = r.bytes(4 * styles as usize).ok_or_else(short)?;
            let p = [lo[0] + x, lo[1] + y, lo[2] + z];
            if p.iter().any(|c| c % stride != 0) {
                continue;
            }
            let [i, j, k] = p.map(|c| (c / stride) as usize);
            let at = (k * ours[1] as usize + j) * ours[0] as usize + i;
            let kept = samples
                .chunks_exact(4)
                .filter(|s| s[0] != NO_STYLE)
                .take(MAX_SLOTS)
                .map(|s| (s[0], [s[1], s[2], s[3]]))
                .collect();
            points[at] = Some(kept);
        }
    }
    Ok(grid(mins, step * stride as f32, ours, points))
}

/// Lanthorn's grid of `points` (per point its styles' RGB; `None`: in solid).
fn grid(
    origin: Vec3,
    spacing: Vec3,
    size: [u32; 3],
    points: Vec<Option<Vec<(u8, [u8; 3])>>>,
) -> LightGrid {
    let mut styles = Vec::with_capacity(points.len());
    let mut slots = Vec::new();
    for p in points {
        let mut s = [NO_STYLE; MAX_SLOTS];
        for (k, (style, rgb)) in p.into_iter().flatten().enumerate() {
            s[k] = style;
            let mut sh = Sh9::ZERO;
            sh.add_uniform(Vec3::from(rgb.map(f32::from)));
            slots.push(sh);
        }
        styles.push(LightStyles(s));
    }
    LightGrid::without_sun((origin, spacing, size), styles, slots)
}
